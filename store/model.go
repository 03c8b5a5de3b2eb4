package store

import "time"

// Realm is an organization. Every user, channel, message, linkifier and group
// belongs to exactly one realm, and no operation reaches across realms: an id of
// another realm behaves exactly like an id that does not exist.
type Realm struct {
	ID RealmID
	// StringID is the realm's short unique name (Zulip's subdomain), sent as
	// sender_realm_str.
	StringID string
	Name     string
	// NameChangesDisabled makes non-administrators' full_name changes no-ops.
	NameChangesDisabled bool
	// EmailChangesDisabled refuses non-administrators' e-mail changes.
	EmailChangesDisabled bool
	// RequireUniqueNames refuses a full name another user already has
	// (compared by [FoldKey]).
	RequireUniqueNames bool
	// EmptyTopicDisplayName is how clients show the empty topic; a topic name
	// equal to it addresses the empty topic. Zero value: "general chat".
	EmptyTopicDisplayName string
	DateCreated           time.Time
	// Messages holds who may edit, move and delete messages, and within
	// which time limits; the zero value is Zulip's defaults.
	Messages MessagePolicy
	// ReadReceiptsDisabled turns Zulip's enable_read_receipts off: GET
	// /messages/{id}/read_receipts is refused. Zero value: enabled.
	ReadReceiptsDisabled bool
	// Description is the organization description (Zulip's
	// realm_description), Markdown source as the administrators wrote it.
	Description string
	// DefaultLanguage is the organization's language (Zulip's
	// realm_default_language); empty means Zulip's default, "en".
	DefaultLanguage string
	// Deactivated marks a realm its owner deactivated: the Service refuses
	// every request of its users with Zulip's REALM_DEACTIVATED error.
	Deactivated bool
	// IconSource is where the organization's icon comes from (Zulip's
	// icon_source): "U" for an uploaded one, else (empty or "G") the
	// default icon.
	IconSource string
	// IconVersion counts the icon's changes (Zulip's icon_version); an
	// uploaded icon's URL carries it, so a new one is fetched anew.
	IconVersion int
}

// DefaultEmptyTopicDisplayName is Zulip's display name of the empty topic.
const DefaultEmptyTopicDisplayName = "general chat"

// Role is a user's role in a realm, with Zulip's wire numbers: a smaller number
// has more rights.
type Role int

// The roles.
const (
	RoleOwner         Role = 100
	RoleAdministrator Role = 200
	RoleModerator     Role = 300
	RoleMember        Role = 400
	RoleGuest         Role = 600
)

// IsAdmin reports whether r is an administrator or an owner.
func (r Role) IsAdmin() bool { return r == RoleOwner || r == RoleAdministrator }

// String returns the fixture name of the role ("owner", "administrator", ...).
func (r Role) String() string {
	switch r {
	case RoleOwner:
		return "owner"
	case RoleAdministrator:
		return "administrator"
	case RoleModerator:
		return "moderator"
	case RoleMember:
		return "member"
	case RoleGuest:
		return "guest"
	}
	return "invalid"
}

// ParseRole parses a fixture role name. It reports false for unknown names.
func ParseRole(s string) (Role, bool) {
	for _, r := range []Role{RoleOwner, RoleAdministrator, RoleModerator, RoleMember, RoleGuest} {
		if r.String() == s {
			return r, true
		}
	}
	return 0, false
}

// BotType is the kind of a bot, with Zulip's wire numbers. The zero value means
// "not a bot".
type BotType int

// The bot types.
const (
	BotTypeGeneric         BotType = 1
	BotTypeIncomingWebhook BotType = 2
	BotTypeOutgoingWebhook BotType = 3
)

// User is a human user or a bot (IsBot) of one realm.
type User struct {
	ID      UserID
	RealmID RealmID
	// Email is the login and API e-mail (Zulip's delivery_email); unique within a
	// realm, compared case-insensitively.
	Email    string
	FullName string
	// FullNameKey is FoldKey(FullName); stores keep it up to date on every write.
	FullNameKey string
	Role        Role
	IsActive    bool
	IsBot       bool
	BotType     BotType // zero for humans
	BotOwnerID  UserID  // zero for humans
	// APIKeyHash is the hash of the user's API key the Service stores (chatcore.HashAPIKey);
	// the key itself is never stored, and a store compares the hash as opaque text.
	APIKeyHash string
	// PasswordHash is the encoded password hash; empty when the user has no
	// password (then password changes fail with "Wrong password!").
	PasswordHash string
	// AvatarSource is "G" (gravatar), "U" (uploaded) or "D" (deleted /
	// default).
	AvatarSource string
	// AvatarVersion counts the avatar's changes, from 1 as in Zulip (0 is
	// taken as 1); an uploaded avatar's files are named by it.
	AvatarVersion int
	DateJoined    time.Time
	// Settings holds the personal settings; Settings.Timezone is the profile time zone.
	Settings Settings
	// CanCreateUsers is Zulip's can_create_users: the server's operator
	// lets this administrator or bot create accounts with POST /users.
	CanCreateUsers bool
}

// BotService is an outgoing-webhook service of a bot: where the server POSTs the
// payload and the token that authenticates it.
type BotService struct {
	ID    BotServiceID
	BotID UserID
	// Name is the service's name (Zulip stores the bot's short name).
	Name    string
	BaseURL string
	Token   string
	// Interface is "generic" or "slack".
	Interface string
}

// Group is a user group. Membership is recursive: the members of a group are its
// direct Members plus the members of every group in Subgroups.
type Group struct {
	ID          GroupID
	RealmID     RealmID
	Name        string
	Description string
	Members     []UserID
	Subgroups   []GroupID
	// IsSystemGroup marks one of Zulip's role-based system groups
	// ("role:owners", ...). A system group has no member rows: its members
	// are the users of its realm whose role is at most SystemRole (every
	// role number up to it; zero for role:nobody), and stores expand it so
	// in GroupMembers.
	IsSystemGroup bool
	SystemRole    Role
	// Deactivated groups keep their members but are hidden from most lists.
	Deactivated bool
	// CreatorID is the user who created the group; zero when unknown.
	CreatorID   UserID
	DateCreated time.Time
}

// Stream is a channel.
type Stream struct {
	ID          StreamID
	RealmID     RealmID
	RecipientID RecipientID // assigned by the store on create when zero
	Name        string
	Description string
	InviteOnly  bool
	// HistoryPublicToSubscribers is false for protected history: a subscriber
	// sees only messages sent after they joined.
	HistoryPublicToSubscribers bool
	IsArchived                 bool
	// FirstMessageID is the id of the oldest message in the channel, zero when
	// it has none.
	FirstMessageID MessageID
	DateCreated    time.Time
	// CreatorID is the user who created the channel; zero when unknown (a
	// channel loaded from a fixture).
	CreatorID UserID
	// RenderedDescription is Description rendered to HTML when the channel
	// was created or its description changed; "" with a non-empty
	// Description means it was never rendered (the Service renders it when
	// it shows the channel).
	RenderedDescription string
}

// Subscriber is one row of a channel's subscriber list: an active
// subscription of an active user, without its properties.
type Subscriber struct {
	StreamID StreamID
	UserID   UserID
}

// Subscription says that a user is (or was) subscribed to a channel.
type Subscription struct {
	StreamID StreamID
	UserID   UserID
	Active   bool
	// FirstVisibleMessageID is the smallest message id the user may read in a
	// channel with protected history (messages sent before they joined are
	// hidden). Zero when the user has seen the channel from the start.
	FirstVisibleMessageID MessageID
	// SinceMessageID is the first message id the subscription covers: the
	// user received the channel's messages from this id on while the
	// subscription is active (see [UserMessage.Received]). Set when the
	// subscription starts to the next message id; zero covers every message.
	SinceMessageID MessageID
	// SubscriptionProperties are the user's personal settings for the
	// channel; they survive unsubscribing and subscribing again.
	SubscriptionProperties
}

// SubscriptionProperties are a user's personal settings for one channel, as
// POST /users/me/subscriptions/properties changes them.
type SubscriptionProperties struct {
	// Color is the user's colour for the channel, "#rrggbb"; "" means none
	// was chosen yet (the Service shows a colour picked from the channel id).
	Color    string
	PinToTop bool
	IsMuted  bool
	// The notification settings; nil inherits the user's own setting
	// (enable_stream_desktop_notifications, ...; wildcard_mentions_notify).
	DesktopNotifications   *bool
	AudibleNotifications   *bool
	PushNotifications      *bool
	EmailNotifications     *bool
	WildcardMentionsNotify *bool
}

// MessageType is "stream" or "private", as on the wire.
type MessageType string

// The message types.
const (
	MessageTypeStream  MessageType = "stream"
	MessageTypePrivate MessageType = "private"
)

// Message is a sent message. A channel message has StreamID and Topic; a direct
// message has DirectMembers (every participant, sender included, sorted).
type Message struct {
	ID          MessageID
	RealmID     RealmID
	SenderID    UserID
	Type        MessageType
	RecipientID RecipientID
	StreamID    StreamID // zero for direct messages
	// Topic is the topic as sent; "" is the empty topic. Always "" for direct messages.
	Topic string
	// TopicKey is [TopicKey] of Topic, which topic lookups compare; stores fill it in
	// on create.
	TopicKey        string
	DirectMembers   []UserID
	Content         string // raw Markdown
	RenderedContent string // HTML
	Client          string // the sending client's name, e.g. "website"
	SentAt          time.Time
	// LastEditedAt is zero when the content was never edited.
	LastEditedAt time.Time
	// LastMovedAt is zero when the message was never moved.
	LastMovedAt time.Time
	IsMeMessage bool
	// DefaultFlags are the flags of every user who received the message and
	// has no flag row for it (FlagStreamWildcardMentioned for @**all**).
	DefaultFlags MessageFlags
	// Has is what the content has (links, images, attachments), as the
	// rules compute it at send and edit; stores keep it as given.
	Has         MessageHas
	Reactions   []Reaction
	EditHistory []EditHistoryEntry // most recent first
	Submessages []Submessage
}

// MessageHas is a set of what a message's content has, for the has:
// narrows.
type MessageHas uint8

// The MessageHas bits.
const (
	HasLink MessageHas = 1 << iota
	HasImage
	HasAttachment
)

// Reaction is an emoji reaction on a message.
type Reaction struct {
	UserID    UserID `json:"user_id"`
	EmojiName string `json:"emoji_name"`
	EmojiCode string `json:"emoji_code"`
	// ReactionType is one of the reaction types below.
	ReactionType string `json:"reaction_type"`
}

// The reaction types.
const (
	ReactionUnicodeEmoji    = "unicode_emoji"
	ReactionRealmEmoji      = "realm_emoji"
	ReactionZulipExtraEmoji = "zulip_extra_emoji"
)

// EditHistoryEntry records one edit or move of a message; Prev* fields are set
// only for what changed.
type EditHistoryEntry struct {
	UserID              UserID    `json:"user_id"`
	Timestamp           time.Time `json:"-"`
	PrevContent         string    `json:"prev_content,omitempty"`
	PrevRenderedContent string    `json:"prev_rendered_content,omitempty"`
	PrevStreamID        StreamID  `json:"prev_stream,omitempty"`
	StreamID            StreamID  `json:"stream,omitempty"`
	PrevTopic           *string   `json:"prev_topic,omitempty"`
	Topic               *string   `json:"topic,omitempty"`
}

// Submessage is a widget submessage (polls, todo lists) attached to a message.
type Submessage struct {
	ID        int64     `json:"id"`
	MessageID MessageID `json:"message_id"`
	SenderID  UserID    `json:"sender_id"`
	MsgType   string    `json:"msg_type"`
	Content   string    `json:"content"`
}

// ScheduledKind tells a scheduled message from a reminder; both live in one table
// and one id space, as in Zulip.
type ScheduledKind int

// The scheduled kinds.
const (
	ScheduledSendLater ScheduledKind = 1
	ScheduledReminder  ScheduledKind = 2
)

// ScheduledMessage is a message to be sent later, or a reminder (a direct message
// from the notification bot to the user at delivery time).
type ScheduledMessage struct {
	ID       ScheduledMessageID
	RealmID  RealmID
	SenderID UserID
	Kind     ScheduledKind
	Type     MessageType
	StreamID StreamID
	Topic    string
	// DirectMembers are the recipients of a direct message, sender excluded,
	// sorted. For a reminder it is the user themself.
	DirectMembers   []UserID
	Content         string
	RenderedContent string
	DeliverAt       time.Time
	Delivered       bool
	Failed          bool
	// FailureMessage says why the last delivery attempt failed.
	FailureMessage string
	// DeliveredMessageID is the id of the sent message once delivered.
	DeliveredMessageID MessageID
	// ReminderTargetMessageID is the message a reminder is about (reminders only).
	ReminderTargetMessageID MessageID
	// ReminderNote is the user's note of a reminder (reminders only).
	ReminderNote string
}

// Linkifier turns matches of Pattern (RE2 syntax with named groups) into links
// built from URLTemplate (RFC 6570). Linkifiers apply in Order, then ID.
type Linkifier struct {
	ID          LinkifierID
	RealmID     RealmID
	Pattern     string
	URLTemplate string
	Order       int
}

// Draft is a draft stored on the server for a user.
type Draft struct {
	ID       DraftID
	UserID   UserID
	Type     MessageType // "" for a draft with no recipient yet
	StreamID StreamID
	Topic    string
	To       []UserID
	Content  string
	LastEdit time.Time
}

// EmailChange is a pending e-mail change, completed when the user follows the
// confirmation link that carries Key.
type EmailChange struct {
	Key       string
	UserID    UserID
	RealmID   RealmID
	OldEmail  string
	NewEmail  string
	CreatedAt time.Time
}
