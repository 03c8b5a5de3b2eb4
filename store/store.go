package store

import (
	"context"
	"time"
)

// Store persists chatcore's data. Implementations live under store/ (memory,
// sqlite, postgres); store/storetest is the conformance suite every implementation must
// pass, and embedders may run it against their own.
//
// All access goes through managed transactions. chatcore's Service runs every rule
// that must check and write atomically ("never deactivate the only owner",
// bulk setting edits, ...) inside one Update. Stores check no permissions,
// validate no input and write no user-facing text. Methods return errors
// wrapping [ErrNotFound] or [ErrConflict] where stated.
//
// Stores are not plain persistence everywhere: where one set-based query is
// much faster than the Service looping over rows, a store applies a rule of
// the domain itself, and the method's doc comment says which. These are
// [SettingsStore.UpdateSettingBulk] (expands groups recursively through
// subgroups, keeps only their active members, never updates bots or users of
// other realms, skips users already holding the value and, on request, users
// who edited the setting themselves), [GroupStore.GroupMembers] (recursive
// expansion, active humans only), [MessageStore.DeleteMessages] (newest first,
// with every child row, filtered by message kinds), [MessageStore.DirectRecipient]
// (finds or creates a conversation) and [DraftStore.DeleteDraftsOf]. An
// implementation must keep these rules exactly; the conformance suite checks
// them.
//
// Create methods keep an explicit id (fixture ids survive loading) and replace
// a zero id with one above every id ever used for that kind, so later inserts
// go above loaded ids and ids are not reused after a delete.
type Store interface {
	// View runs fn in a read-only transaction that sees a consistent snapshot of
	// committed data. fn must not keep tx after it returns. When ctx is done
	// before fn starts, View returns ctx.Err() without calling fn. A store
	// may run fn more than once, each run in a new transaction (postgres,
	// after the connection died under it): fn must set its results afresh
	// on every run. An error of passing database trouble, after any retries
	// of the store's own, wraps ErrUnavailable (as Update's does).
	View(ctx context.Context, fn func(tx Tx) error) error
	// Update runs fn in a read-write transaction. It commits when fn returns nil
	// and rolls back when fn returns an error or panics (the panic is re-raised
	// after the rollback). fn must use only tx: calling Update or View of the
	// same store inside fn deadlocks. When ctx is done before fn starts, Update
	// returns ctx.Err() without calling fn; when it is done by the time fn
	// returns nil, Update rolls back and returns an error.
	//
	// Committed Updates are serialisable: their effect is that of running them
	// one at a time, also across processes sharing one database, so a rule
	// that fn checks and then writes holds. A store may get there by running
	// one writer at a time (memory, sqlite) or by running writers at once and
	// retrying one it could not order (postgres: SERIALIZABLE transactions,
	// retried on a serialization failure, and on a connection lost before
	// the commit was sent). Update may therefore run fn more
	// than once, each run in a new transaction whose writes are discarded
	// unless it is the one that commits: fn must keep nothing it did in a run
	// that did not commit (the Service collects events, e-mails and rate-limit
	// answers per Update and publishes them after the commit).
	//
	// A write that fails on a uniqueness or a missing row (ErrConflict,
	// ErrNotFound) may end the transaction (PostgreSQL aborts it): fn must
	// return an error after one, and a store makes Update fail if fn does not.
	Update(ctx context.Context, fn func(tx Tx) error) error
	// Close releases the store's resources. It must not be called while
	// transactions are running.
	Close() error
}

// Tx is the access a transaction gives. Methods of a Tx passed to View return
// an error for writes. A Tx is not safe for concurrent use.
type Tx interface {
	RealmStore
	UserStore
	SettingsStore
	GroupStore
	GroupAdminStore
	DefaultStreamStore
	StreamStore
	MessageStore
	ScheduledMessageStore
	LinkifierStore
	DraftStore
	DraftEditStore
	SubmessageStore
	ReadReceiptStore
	EmailChangeStore
	FlagStore
	EventStore
	ReactionStore
	PresenceStore
	WebhookStore
	UserTopicStore
	MutedUserStore
	UserStatusStore
	AlertWordStore
	AttachmentStore
	RealmEmojiStore
	InviteStore
	ConversationStore
	LoginKeyStore
	ServerSecretStore
}

// RealmStore persists realms.
type RealmStore interface {
	// Realm returns the realm with the id, or an error wrapping ErrNotFound.
	Realm(ctx context.Context, id RealmID) (*Realm, error)
	// RealmByStringID returns the realm with the string id, or ErrNotFound.
	RealmByStringID(ctx context.Context, stringID string) (*Realm, error)
	// Realms returns every realm ordered by id.
	Realms(ctx context.Context) ([]Realm, error)
	// CreateRealm inserts r. A zero r.ID is replaced by the next free id; an
	// explicit id already in use, or a string id in use, gives ErrConflict.
	CreateRealm(ctx context.Context, r *Realm) error
	// UpdateRealm overwrites the stored realm r.ID, or returns ErrNotFound.
	UpdateRealm(ctx context.Context, r *Realm) error
	// RealmUserDefaults returns the settings new accounts of the realm
	// start with (Zulip's RealmUserDefault): DefaultSettings until
	// PutRealmUserDefaults stored others. Settings the stored copy lacks
	// (added after it was written) have their default value.
	RealmUserDefaults(ctx context.Context, realm RealmID) (Settings, error)
	// PutRealmUserDefaults stores the realm's defaults for new accounts,
	// replacing any stored before.
	PutRealmUserDefaults(ctx context.Context, realm RealmID, s *Settings) error
}

// UserFilter selects users; zero fields do not filter. Results are ordered by id.
type UserFilter struct {
	RealmID RealmID
	IDs     []UserID // only these ids (nil: any; empty non-nil: none)
	Roles   []Role   // only these roles
	// Active and Bot filter on IsActive and IsBot when non-nil.
	Active *bool
	Bot    *bool
	// BotOwnerID selects the bots owned by this user.
	BotOwnerID UserID
	// FullNameKey selects users whose FullNameKey equals it.
	FullNameKey string
	// Profile lets the store leave every setting but the two other users
	// see (Settings.Timezone and Settings.EmailAddressVisibility) at its
	// zero value: what a listing of a realm's people needs, read without
	// the rest of each user's settings. The users selected are the same.
	Profile bool
}

// KeyHolder is what authenticating an API key reads: the user the key
// belongs to, whether it is their own key (User.APIKeyHash) rather than a
// login key ([LoginKey]), and whether their realm is deactivated.
type KeyHolder struct {
	User             *User
	OwnKey           bool
	RealmDeactivated bool
}

// UserStore persists users, bots and bot services.
type UserStore interface {
	// User returns the user or bot with the id, or ErrNotFound.
	User(ctx context.Context, id UserID) (*User, error)
	// UserByEmail returns the user of the realm whose Email equals email
	// case-insensitively (by FoldKey), or ErrNotFound.
	UserByEmail(ctx context.Context, realm RealmID, email string) (*User, error)
	// UserByAPIKeyHash returns the user whose APIKeyHash equals hash, or ErrNotFound.
	UserByAPIKeyHash(ctx context.Context, hash string) (*User, error)
	// KeyHolder returns, in one read, the user an API key hash belongs to
	// (their own APIKeyHash first, else a login key's user) with the state
	// of their realm that authentication checks, or ErrNotFound.
	KeyHolder(ctx context.Context, hash string) (KeyHolder, error)
	// Users returns the users matching f.
	Users(ctx context.Context, f UserFilter) ([]User, error)
	// CreateUser inserts u (settings included) and fills in u.ID when zero.
	// A duplicate id, e-mail within the realm, or API key hash gives ErrConflict;
	// an unknown realm gives ErrNotFound.
	CreateUser(ctx context.Context, u *User) error
	// UpdateUser overwrites the stored user u.ID, settings included, or returns
	// ErrNotFound. A duplicate e-mail or API key hash gives ErrConflict.
	UpdateUser(ctx context.Context, u *User) error
	// BotServices returns the outgoing-webhook services of a bot ordered by id.
	BotServices(ctx context.Context, bot UserID) ([]BotService, error)
	// CreateBotService inserts s and fills in s.ID when zero; an unknown bot
	// gives ErrNotFound.
	CreateBotService(ctx context.Context, s *BotService) error
}

// BulkSettingUpdate sets one setting for many users of a realm at once.
type BulkSettingUpdate struct {
	RealmID RealmID
	// UserIDs are explicit targets (deactivated users included); GroupIDs add
	// the active members of these groups, recursively through subgroups. Bots
	// are never updated, and unknown ids and ids of other realms are ignored.
	UserIDs  []UserID
	GroupIDs []GroupID
	// Setting is the wire name; Value a bool, int or string of its type.
	Setting string
	Value   any
	// SkipIfEdited skips users who changed this setting themselves (see
	// SettingsStore.RecordSettingEdits).
	SkipIfEdited bool
}

// SettingValue is one setting of a user: its wire name (one of
// [SettingNames]) and its value, a bool, int or string of the setting's type.
type SettingValue struct {
	Name  string
	Value any
}

// SettingsStore holds what settings need beyond the user row.
type SettingsStore interface {
	// UpdateUserSettings sets the named settings of the user and nothing else
	// of the user's row, in one write: the narrow form of
	// [UserStore.UpdateUser] for a user changing their own settings. An
	// unknown user gives ErrNotFound. An unknown setting, a setting named
	// twice or a value of the wrong type gives an error that is neither
	// ErrNotFound nor ErrConflict, and changes nothing. No changes is a no-op
	// (the user is then not looked up).
	UpdateUserSettings(ctx context.Context, user UserID, changes []SettingValue) error
	// UpdateSettingBulk applies u in one set-based write (no statement per user)
	// and returns the ids of the users whose value changed, in ascending order.
	// Users already holding the value are left alone and not returned. An
	// unknown setting or a value of the wrong type gives an error that is
	// neither ErrNotFound nor ErrConflict.
	UpdateSettingBulk(ctx context.Context, u BulkSettingUpdate) ([]UserID, error)
	// RecordSettingEdits records that the user changed the named settings
	// themselves; recording one twice is not an error.
	RecordSettingEdits(ctx context.Context, user UserID, settings []string) error
	// EditedSettings returns the settings the user changed themselves, sorted.
	EditedSettings(ctx context.Context, user UserID) ([]string, error)
}

// GroupStore persists user groups.
type GroupStore interface {
	// Group returns the group with the id, or ErrNotFound.
	Group(ctx context.Context, id GroupID) (*Group, error)
	// Groups returns the groups of a realm ordered by id.
	Groups(ctx context.Context, realm RealmID) ([]Group, error)
	// CreateGroup inserts g with its members and subgroups and fills in g.ID when
	// zero. Duplicate ids or names in the realm give ErrConflict. Subgroups may
	// name groups created later in the same transaction.
	CreateGroup(ctx context.Context, g *Group) error
	// GroupMembers returns the active human members of the groups, recursively
	// through subgroups (cycles are harmless), sorted and without duplicates.
	// Unknown group ids are ignored.
	GroupMembers(ctx context.Context, ids []GroupID) ([]UserID, error)
}

// StreamStore persists channels and subscriptions.
type StreamStore interface {
	// Stream returns the channel with the id, or ErrNotFound.
	Stream(ctx context.Context, id StreamID) (*Stream, error)
	// StreamByName returns the channel of the realm with the name, compared by
	// FoldKey, or ErrNotFound.
	StreamByName(ctx context.Context, realm RealmID, name string) (*Stream, error)
	// Streams returns the channels of a realm ordered by id.
	Streams(ctx context.Context, realm RealmID) ([]Stream, error)
	// CreateStream inserts s, filling in s.ID and s.RecipientID when zero.
	// A duplicate id or name in the realm gives ErrConflict.
	CreateStream(ctx context.Context, s *Stream) error
	// UpdateStream overwrites the stored channel s.ID, or returns ErrNotFound.
	// A name (by FoldKey) used by another channel of the realm gives ErrConflict.
	UpdateStream(ctx context.Context, s *Stream) error
	// Subscription returns the user's subscription to the channel, active or
	// not, or ErrNotFound.
	Subscription(ctx context.Context, stream StreamID, user UserID) (*Subscription, error)
	// Subscriptions returns the subscriptions of a channel (stream != 0) or of a
	// user (user != 0), active and inactive, ordered by stream then user.
	Subscriptions(ctx context.Context, stream StreamID, user UserID) ([]Subscription, error)
	// ActiveSubscriberIDs returns the users with an active subscription to
	// the channel, ascending (one value per subscriber: the send path reads
	// it for every message).
	ActiveSubscriberIDs(ctx context.Context, stream StreamID) ([]UserID, error)
	// StreamAudience returns the channel (or ErrNotFound) and the users with
	// an active subscription to it who can see its message with id upTo:
	// every active subscriber when the channel's history is public to
	// subscribers, otherwise those whose FirstVisibleMessageID is at most
	// upTo; ascending, one value per user. It is one read for what the
	// events of a deletion need.
	StreamAudience(ctx context.Context, stream StreamID, upTo MessageID) (*Stream, []UserID, error)
	// PutSubscription inserts or replaces the subscription.
	PutSubscription(ctx context.Context, s Subscription) error
	// DeactivateSubscriptions marks every subscription of the user inactive.
	DeactivateSubscriptions(ctx context.Context, user UserID) error
	// RealmSubscribers returns the subscriber lists of every channel of the
	// realm in one read: the active subscriptions of active users, ordered by
	// stream then user, without their properties (a large realm has tens of
	// thousands, read on every full /register).
	RealmSubscribers(ctx context.Context, realm RealmID) ([]Subscriber, error)
	// StreamTopics returns the topics of the channel's messages with an id
	// of at least minID (0: every message): one entry per TopicKey, with
	// the topic as the newest such message stores it and that message's id,
	// ordered by that id, newest first. A channel without messages gives an
	// empty list.
	StreamTopics(ctx context.Context, stream StreamID, minID MessageID) ([]TopicSummary, error)
	// TopicParticipants returns the users who sent a message of the
	// channel's topic (by TopicKey) or reacted to one, ascending, each
	// once: Zulip's participants of a topic, whom a topic wildcard mention
	// notifies. Nothing else of the messages is read.
	TopicParticipants(ctx context.Context, stream StreamID, topicKey string) ([]UserID, error)
}

// TopicSummary is one topic of a channel, as StreamStore.StreamTopics
// lists it.
type TopicSummary struct {
	// Name is the topic of the newest message of the topic.
	Name string
	// MaxID is the id of that message.
	MaxID MessageID
}

// MessageKinds selects kinds of messages by what they were sent to. The zero
// value selects all kinds.
type MessageKinds uint8

// The message kinds.
const (
	KindPublicChannel  MessageKinds = 1 << iota // channels that are not invite-only
	KindPrivateChannel                          // invite-only channels
	KindDirect                                  // direct messages, 1:1 and group
)

// MessageFilter selects messages of one realm for deletion. Zero fields do not
// filter (RealmID is required).
type MessageFilter struct {
	RealmID  RealmID
	StreamID StreamID
	// TopicKey, when non-nil, selects channel messages whose TopicKey equals it.
	TopicKey *string
	// MinID keeps only messages with id >= MinID.
	MinID MessageID
	// BeforeID, when not zero, keeps only messages with id < BeforeID. A
	// deletion in batches passes the previous batch's lowest id, so that a
	// batch starts where the last one stopped: the stores' indexes may still
	// hold entries for the rows already deleted (PostgreSQL's until vacuum
	// removes them), which a scan from the newest end would walk again.
	BeforeID MessageID
	SenderID UserID
	Kinds    MessageKinds
	// IDs, when non-nil, keeps only messages with one of these ids (order and
	// repeats do not matter); an empty non-nil slice selects nothing.
	IDs []MessageID
}

// MessageMove moves channel messages of one topic, as [MessageStore.MoveMessages]
// does it.
type MessageMove struct {
	RealmID RealmID
	// StreamID and TopicKey select the messages: channel messages of this
	// channel whose TopicKey equals TopicKey, with id >= MinID and, when
	// BeforeID is not zero, id < BeforeID.
	StreamID StreamID
	TopicKey string
	MinID    MessageID
	BeforeID MessageID
	// ToStream, ToRecipient and ToTopic are where the messages go (ToStream
	// may equal StreamID: a move to another topic of the same channel).
	ToStream    StreamID
	ToRecipient RecipientID
	ToTopic     string
	// MovedAt becomes each moved message's LastMovedAt.
	MovedAt time.Time
	// Entry becomes each moved message's most recent edit-history entry.
	Entry EditHistoryEntry
}

// MessageQuery selects messages of one realm for reading. Results are ordered
// by id, ascending, or descending when Newest is set.
type MessageQuery struct {
	RealmID RealmID
	// Recipients, when non-nil, keeps only messages to one of these recipients
	// (channels or direct conversations); an empty non-nil slice selects nothing.
	Recipients []RecipientID
	// TopicKey, when non-nil, keeps only channel messages with this TopicKey.
	TopicKey *string
	// StreamID, when non-zero, keeps only messages of this channel. With
	// TopicKey, a SQL store reads the topic through its channel+topic index
	// by this id (Recipients alone name the channel only through its
	// recipient, which the planner cannot see through).
	StreamID StreamID
	// IDs, when non-nil, keeps only messages with one of these ids (order and
	// repeats do not matter); an empty non-nil slice selects nothing.
	IDs []MessageID
	// AfterID and BeforeID are exclusive bounds when non-zero.
	AfterID  MessageID
	BeforeID MessageID
	Newest   bool
	// Limit bounds the result; zero means no limit.
	Limit int
	// SenderID, when non-zero, keeps only messages this user sent.
	SenderID UserID
	// Has keeps only messages whose Has holds every bit of it.
	Has MessageHas
	// HasReaction keeps only messages with at least one reaction.
	HasReaction bool
	// TopicPrefix, when not "", keeps only channel messages whose topic
	// starts with it (a resolved topic's prefix).
	TopicPrefix string
	// FlagUser, when non-zero, keeps only messages this user received (see
	// [UserMessage.Received]) whose flags for them have every bit of AllFlags,
	// at least one bit of AnyFlags (when non-zero) and no bit of NoFlags.
	//
	// Such a query reads each channel and conversation the user is in
	// through an index from where their receipt starts, and their flag rows,
	// merging them by id: its cost follows the result and the number of
	// channels and conversations the user is in, never the history.
	FlagUser UserID
	AllFlags MessageFlags
	AnyFlags MessageFlags
	NoFlags  MessageFlags
	// TopicUser, when non-zero, keeps only the messages TopicFilter selects
	// by this user's topic visibility policies and channel mutes (in:home,
	// is:muted, is:followed); each message is checked through the primary
	// key of the user's topic rows and subscriptions.
	TopicUser   UserID
	TopicFilter TopicFilter
	// NarrowConds holds full-text search and negated narrow terms.
	NarrowConds
}

// DeletedMessage describes a message removed by MessageStore.DeleteMessages.
type DeletedMessage struct {
	ID       MessageID
	Type     MessageType
	StreamID StreamID
	// Topic is the topic as stored (Message.Topic) and TopicKey its TopicKey;
	// both are "" for direct messages.
	Topic    string
	TopicKey string
	SenderID UserID
	// Recipients are the users who could see the message: the participants of a
	// direct message; nil for channel messages (the Service knows the channel).
	Recipients []UserID
}

// MessageStore persists messages with their reactions, edit history and
// submessages, and the recipients of direct conversations.
type MessageStore interface {
	// Message returns the message with everything attached, or ErrNotFound.
	Message(ctx context.Context, id MessageID) (*Message, error)
	// Messages returns the messages matching q, with everything attached.
	Messages(ctx context.Context, q MessageQuery) ([]Message, error)
	// MessageIDs returns the ids of the messages Messages returns for q, in
	// the same order, reading nothing else of them (no content, reactions,
	// edit history or submessages): what a rule asking whether such
	// messages exist needs.
	MessageIDs(ctx context.Context, q MessageQuery) ([]MessageID, error)
	// CreateMessage inserts m with its reactions, edit history and submessages;
	// it fills in m.ID when zero (always above every id ever used) and sets
	// m.TopicKey. Submessages belong to m (their MessageID is m.ID) and get an
	// id when theirs is zero. A duplicate id gives ErrConflict. Stores do not
	// maintain Stream.FirstMessageID.
	CreateMessage(ctx context.Context, m *Message) error
	// CreateMessages inserts every message of ms, in order, exactly as
	// CreateMessage inserts one (ids filled in when zero, above every id
	// used before and in ms, TopicKey set, reactions, edit history and
	// submessages written), in as few statements as the store can: the
	// path of bulk imports. A duplicate id, in the store or within ms,
	// gives ErrConflict. After an error it is unspecified which of ms were
	// written, so the caller fails its transaction (see Store.Update). An
	// empty ms writes nothing.
	CreateMessages(ctx context.Context, ms []*Message) error
	// DeleteMessages deletes up to limit messages matching f, newest (highest id)
	// first, together with their reactions, edit history and submessages, and
	// returns what it deleted, highest id first. limit must be positive.
	DeleteMessages(ctx context.Context, f MessageFilter, limit int) ([]DeletedMessage, error)
	// EditMessage stores the changes of an edit of m: its Content,
	// RenderedContent, IsMeMessage, DefaultFlags, Topic (TopicKey is set from
	// it), StreamID, RecipientID, LastEditedAt and LastMovedAt overwrite the
	// stored ones, and entry is added as the message's most recent
	// edit-history entry (m.EditHistory itself is not read). Everything else
	// (sender, reactions, submessages, flag rows) is left alone. An unknown
	// m.ID gives ErrNotFound.
	EditMessage(ctx context.Context, m *Message, entry EditHistoryEntry) error
	// SetRenderedContent overwrites the RenderedContent of message id and
	// nothing else (no edit-history entry, no edit time): a change of its
	// rendering alone, such as an image preview's thumbnail becoming
	// ready. An unknown id gives ErrNotFound.
	SetRenderedContent(ctx context.Context, id MessageID, html string) error
	// MoveMessages moves up to limit (> 0) messages selected by mv, lowest id
	// first, and returns their ids, ascending: each gets ToStream,
	// ToRecipient, ToTopic (and its TopicKey), LastMovedAt = MovedAt and
	// Entry as its most recent edit-history entry; reactions and
	// submessages stay with it. When ToStream differs from StreamID the
	// flag rows follow the receivers: every active subscriber of ToStream
	// gets a row for each moved message, keeping the flags they had on it
	// (an existing row is kept; a user who received the message without a
	// row gets its DefaultFlags) or, when they had not received it,
	// FlagRead; the rows of users without an active subscription to
	// ToStream are removed. Within one channel flag rows are untouched.
	MoveMessages(ctx context.Context, mv MessageMove, limit int) ([]MessageID, error)
	// OldestMessageID returns the smallest message id in the channel, or 0 when
	// it has none.
	OldestMessageID(ctx context.Context, stream StreamID) (MessageID, error)
	// DirectRecipient returns the recipient id of the direct conversation among
	// exactly these users (order and duplicates do not matter), creating it if
	// it does not exist yet. Recipient ids are shared with channels. In a View,
	// an existing conversation is returned and one that does not exist gives an
	// error wrapping ErrNotFound (nothing is created), so readers can treat it
	// as an empty conversation.
	DirectRecipient(ctx context.Context, realm RealmID, members []UserID) (RecipientID, error)
	// DirectRecipients returns the recipient ids of every direct conversation the
	// user takes part in, sorted.
	DirectRecipients(ctx context.Context, user UserID) ([]RecipientID, error)
}

// ScheduledFilter selects scheduled messages and reminders. Zero fields do not
// filter. Results are ordered by DeliverAt, then id.
type ScheduledFilter struct {
	RealmID  RealmID
	SenderID UserID
	Kind     ScheduledKind
	// Delivered filters on the Delivered flag when non-nil.
	Delivered *bool
	// Failed filters on the Failed flag when non-nil.
	Failed *bool
	// DueBy keeps rows whose DeliverAt is not after it, when non-zero.
	DueBy time.Time
	Limit int
}

// ScheduledMessageStore persists scheduled messages and reminders.
type ScheduledMessageStore interface {
	// ScheduledMessage returns the row with the id (either kind), or ErrNotFound.
	ScheduledMessage(ctx context.Context, id ScheduledMessageID) (*ScheduledMessage, error)
	// ScheduledMessages returns the rows matching f.
	ScheduledMessages(ctx context.Context, f ScheduledFilter) ([]ScheduledMessage, error)
	// CreateScheduledMessage inserts m and fills in m.ID when zero; ids are
	// shared by both kinds and never reused. A duplicate id gives ErrConflict.
	CreateScheduledMessage(ctx context.Context, m *ScheduledMessage) error
	// UpdateScheduledMessage overwrites the row m.ID, or returns ErrNotFound.
	UpdateScheduledMessage(ctx context.Context, m *ScheduledMessage) error
	// DeleteScheduledMessage deletes the row, or returns ErrNotFound.
	DeleteScheduledMessage(ctx context.Context, id ScheduledMessageID) error
}

// LinkifierStore persists linkifiers.
type LinkifierStore interface {
	// Linkifier returns the linkifier with the id, or ErrNotFound.
	Linkifier(ctx context.Context, id LinkifierID) (*Linkifier, error)
	// Linkifiers returns the realm's linkifiers ordered by Order, then id.
	Linkifiers(ctx context.Context, realm RealmID) ([]Linkifier, error)
	// CreateLinkifier inserts l and fills in l.ID when zero. A pattern already
	// used in the realm, or a duplicate id, gives ErrConflict.
	CreateLinkifier(ctx context.Context, l *Linkifier) error
	// UpdateLinkifier overwrites the stored linkifier l.ID, or returns ErrNotFound.
	// A pattern used by another linkifier of the realm gives ErrConflict.
	UpdateLinkifier(ctx context.Context, l *Linkifier) error
	// DeleteLinkifier deletes the linkifier, or returns ErrNotFound.
	DeleteLinkifier(ctx context.Context, id LinkifierID) error
	// LinkifiersVersion returns the version of the realm's linkifier list: 0
	// until the realm's linkifiers are first written, then raised in the same
	// transaction by every CreateLinkifier, UpdateLinkifier and
	// DeleteLinkifier of a linkifier of the realm (an update that moves a
	// linkifier to another realm raises both). It never decreases, and a
	// rolled-back transaction leaves it as it was, so two equal versions of a
	// realm mean the same linkifiers, in the same order: callers check that
	// the list is unchanged with this one read instead of reading the list.
	// An unknown realm has version 0; the only errors are the store's own.
	LinkifiersVersion(ctx context.Context, realm RealmID) (int64, error)
}

// DraftStore persists drafts.
type DraftStore interface {
	// CreateDraft inserts d and fills in d.ID when zero; a duplicate id gives
	// ErrConflict.
	CreateDraft(ctx context.Context, d *Draft) error
	// Drafts returns the user's drafts ordered by id.
	Drafts(ctx context.Context, user UserID) ([]Draft, error)
	// DeleteDrafts deletes all of the user's drafts and returns how many.
	DeleteDrafts(ctx context.Context, user UserID) (int, error)
	// DeleteDraftsOf deletes all drafts of every user in users with one
	// set-based operation and returns how many drafts it deleted. Unknown ids
	// and duplicates are fine; an empty list deletes nothing.
	DeleteDraftsOf(ctx context.Context, users []UserID) (int, error)
}

// EmailChangeStore persists pending e-mail changes.
type EmailChangeStore interface {
	// CreateEmailChange inserts c; a duplicate key gives ErrConflict.
	CreateEmailChange(ctx context.Context, c *EmailChange) error
	// EmailChange returns the pending change with the key, or ErrNotFound.
	EmailChange(ctx context.Context, key string) (*EmailChange, error)
	// DeleteEmailChanges deletes every pending change of the user.
	DeleteEmailChanges(ctx context.Context, user UserID) error
}
