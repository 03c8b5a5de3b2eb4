package eventqueue

import (
	"time"

	"github.com/chatcore/chatcore/people"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/drafts"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/presence"
	"github.com/chatcore/chatcore/scheduled"
)

// RegisterRequest selects the initial state of Zulip's POST /register that
// package eventqueue's Register returns (with an event queue when asked).
type RegisterRequest struct {
	// Sections are the state sections wanted, under Zulip's event type names
	// (the client's fetch_event_types, else its event_types); nil means every
	// section. Names chatcore does not serve are accepted and give nothing, as
	// in Zulip.
	Sections []string
	// Queue, when non-nil, registers an event queue with these options; its
	// AllPublicStreams is taken from the request's.
	Queue *QueueOptions
	// AllPublicStreams asks for the events of every public channel, which
	// Zulip refuses to guests.
	AllPublicStreams bool
	// IncludeSubscribers adds the subscribers of each channel to the
	// subscription section ("partial" counts as true: chatcore always sends
	// the whole list).
	IncludeSubscribers bool
	// SlimPresence and PresenceHistoryLimitDays shape the presence section
	// (see presence.Update).
	SlimPresence             bool
	PresenceHistoryLimitDays *int
	// EmptyTopicName is the client capability empty_topic_name: the empty
	// topic stays "" in unread_msgs instead of Zulip's fallback name
	// "general chat".
	EmptyTopicName bool
}

// State is the initial state of POST /register that [Register] reads in
// one snapshot, the area packages (channels, messages, presence) giving their
// sections. A section the request did not ask for is nil; a list section
// asked for is non-nil, possibly empty.
type State struct {
	// UserID is the actor's id (section realm_user).
	UserID *chatcore.UserID
	// Realm describes the actor's realm (section realm).
	Realm *RegisterRealm
	// Settings are the actor's own settings (section user_settings).
	Settings *chatcore.Settings
	// UserDefaults are the realm's defaults for new accounts by setting
	// name (section realm_user_settings_defaults).
	UserDefaults map[string]any
	// Linkifiers are the realm's linkifiers in processing order (section
	// realm_linkifiers).
	Linkifiers []linkifiers.View
	// ScheduledMessages are the actor's pending scheduled messages (section
	// scheduled_messages).
	ScheduledMessages []scheduled.View
	// Reminders are the actor's pending reminders (section reminders).
	Reminders []scheduled.Reminder
	// Unread is the actor's unread state (unread_msgs), given when both the
	// message and update_message_flags sections are wanted, as in Zulip.
	Unread *messages.Unread
	// MaxMessageID is the largest message id the actor can read, -1 when none
	// (section message).
	MaxMessageID *chatcore.MessageID
	// Drafts are the actor's drafts, the most recently edited first
	// (section drafts).
	Drafts []drafts.View
	// StarredMessages are the ids of the actor's starred messages, ascending
	// (section starred_messages).
	StarredMessages []chatcore.MessageID
	// QueueID is the registered event queue's id ("" without a queue), and
	// LastEventID -1, the last_event_id of a new queue.
	QueueID     string
	LastEventID int64
	// Users is the realm_user section.
	Users *RegisterUsers
	// Bots is the realm_bot section (realm_bots): see [people.BotsState];
	// nil when not asked for.
	Bots []people.BotView
	// Groups are the realm's user groups by id (section realm_user_groups).
	Groups []GroupView
	// DefaultStreams are the ids of the realm's default channels (section
	// default_streams, Zulip's realm_default_streams).
	DefaultStreams []chatcore.StreamID
	// Subscriptions is the subscription section.
	Subscriptions *channels.State
	// MutedTopics (section muted_topics, unless user_topic is asked for
	// too: Zulip's legacy [channel name, topic, timestamp] of muted topics)
	// and UserTopics (section user_topic) are the actor's topic policies.
	MutedTopics [][]any
	UserTopics  []chatcore.UserTopicView
	// Personal is the actor's muted users, the realm's user statuses and
	// the actor's alert words (sections muted_users, user_status and
	// alert_words), each nil when not asked for.
	Personal PersonalState
	// RealmEmoji is the realm's custom emoji keyed by id (section
	// realm_emoji, see realmemoji.State); CustomProfileFields is non-nil
	// and empty when custom_profile_fields is wanted.
	RealmEmoji          map[string]any
	CustomProfileFields []any
	// Presence is the realm's presence (section presence: presences,
	// presence_last_update_id, server_timestamp).
	Presence *presence.Answer
	// RecentConversations are the actor's direct conversations, the one
	// with the newest message first, at most [MaxRecentConversations]
	// (section recent_private_conversations).
	RecentConversations []RecentConversation
	// Streams are the channels the actor may see (section stream, see
	// [channels.RegisterState]).
	Streams []channels.View
}

// RegisterRealm is the realm section of [State].
type RegisterRealm struct {
	// Name is the organisation's name.
	Name string
	// Description is its description, Markdown as written
	// (realm_description), and DefaultLanguage its language
	// (realm_default_language).
	Description, DefaultLanguage string
	// EmptyTopicDisplayName is how the realm shows the empty topic:
	// Zulip's "general chat" unless the realm names it otherwise.
	EmptyTopicDisplayName string
	// MaxReminderNoteLength is [scheduled.MaxReminderNoteLength].
	MaxReminderNoteLength int
	// DateCreated is when the realm was created (zero when unknown).
	DateCreated time.Time
	// The realm's own settings of the same names.
	NameChangesDisabled  bool
	EmailChangesDisabled bool
	RequireUniqueNames   bool
	// EnableReadReceipts is Zulip's realm_enable_read_receipts (the
	// realm's ReadReceiptsDisabled, inverted).
	EnableReadReceipts bool
	// Messages is the realm's message editing, moving and deleting policy
	// (realm_allow_message_editing, realm_message_edit_history_visibility_policy
	// and the realm_*_limit_seconds settings).
	Messages chatcore.MessagePolicy
	// GroupSettings are the realm's group-based permission settings by name
	// (sent as realm_<name>).
	GroupSettings map[string]groups.Value
	// IconSource is the realm's icon_source ("U" uploaded, "G" the default)
	// and IconPath the path of its icon ([chatcore.RealmIconPath]).
	IconSource, IconPath string
}

// RegisterUsers is the realm_user section of POST /register: the realm's
// users as the actor sees them, and the actor's own account.
type RegisterUsers struct {
	// Active are the realm's active users and bots (realm_users), by id.
	Active []chatcore.UserView
	// NonActive are the deactivated ones (realm_non_active_users), by id.
	NonActive []chatcore.UserView
	// CrossRealmBots are the bots of every realm (cross_realm_bots); chatcore
	// has none: always empty.
	CrossRealmBots []chatcore.UserView
	// Me is the actor's own view (email, delivery_email, full_name, role
	// flags, avatar).
	Me chatcore.UserView
	// AvatarSource is the actor's avatar_source ("G", "U" or "D").
	AvatarSource string
	// AvatarURLMedium is the actor's avatar_url_medium.
	AvatarURLMedium string
	// What the realm's permission groups let the actor do, as Zulip's
	// can_create_public_streams, can_create_private_streams,
	// can_subscribe_other_users and can_invite_others_to_realm: the
	// actor is in can_create_public_channel_group,
	// can_create_private_channel_group, can_add_subscribers_group and
	// can_invite_users_group.
	CanCreatePublicChannels  bool
	CanCreatePrivateChannels bool
	CanSubscribeOthers       bool
	CanInviteOthers          bool
}

// GroupView is a user group as realm_user_groups shows it (see
// [groups.View]).
type GroupView = groups.View
