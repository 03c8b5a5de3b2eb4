package chatcore

import (
	"context"
	"errors"
	"time"
)

// RegisterRequest selects the initial state of Zulip's POST /register that
// package eventqueue's Register returns (with an event queue when asked).
type RegisterRequest struct {
	// Sections are the state sections wanted, under Zulip's event type names
	// (the client's fetch_event_types, else its event_types); nil means every
	// section. Names chatcore does not serve are accepted and give nothing, as
	// in Zulip.
	Sections []string
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

// RegisterState is the initial state of POST /register that package
// eventqueue's Register reads in one snapshot, each area filling its
// sections. A section the request did not ask for is nil; a list section
// asked for is non-nil, possibly empty.
type RegisterState struct {
	// UserID is the actor's id (section realm_user).
	UserID *UserID
	// Realm describes the actor's realm (section realm).
	Realm *RegisterRealm
	// Settings are the actor's own settings (section user_settings).
	Settings *Settings
	// Linkifiers are the realm's linkifiers in processing order (section
	// realm_linkifiers).
	Linkifiers []LinkifierView
	// ScheduledMessages are the actor's pending scheduled messages (section
	// scheduled_messages).
	ScheduledMessages []ScheduledMessageView
	// Reminders are the actor's pending reminders (section reminders).
	Reminders []Reminder
	// Unread is the actor's unread state (unread_msgs), given when both the
	// message and update_message_flags sections are wanted, as in Zulip.
	Unread *UnreadMsgs
	// MaxMessageID is the largest message id the actor can read, 0 when none
	// (section message).
	MaxMessageID *MessageID
	// StarredMessages are the ids of the actor's starred messages, ascending
	// (section starred_messages).
	StarredMessages []MessageID
	// QueueID is the registered event queue's id ("" without a queue), and
	// LastEventID -1, the last_event_id of a new queue.
	QueueID     string
	LastEventID int64
	// Users is the realm_user section.
	Users *RegisterUsers
	// Groups are the realm's user groups by id (section realm_user_groups).
	Groups []GroupView
	// Subscriptions is the subscription section.
	Subscriptions *SubscriptionState
	// MutedTopics (section muted_topics, unless user_topic is asked for too)
	// and UserTopics (section user_topic) are empty: chatcore has no topic
	// visibility settings.
	MutedTopics []any
	UserTopics  []any
	// RealmEmoji is non-nil and empty when section realm_emoji is wanted
	// (no custom emoji); CustomProfileFields likewise for
	// custom_profile_fields.
	RealmEmoji          map[string]any
	CustomProfileFields []any
	// Presence is the realm's presence (section presence: presences,
	// presence_last_update_id, server_timestamp).
	Presence *PresenceAnswer
}

// RegisterRealm is the realm section of [RegisterState].
type RegisterRealm struct {
	// Name is the organisation's name.
	Name string
	// EmptyTopicDisplayName is how the realm shows the empty topic:
	// Zulip's "general chat" unless the realm names it otherwise.
	EmptyTopicDisplayName string
	// MaxReminderNoteLength is [MaxReminderNoteLength].
	MaxReminderNoteLength int
	// DateCreated is when the realm was created (zero when unknown).
	DateCreated time.Time
	// The realm's own settings of the same names.
	NameChangesDisabled  bool
	EmailChangesDisabled bool
	RequireUniqueNames   bool
	// Messages is the realm's message editing, moving and deleting policy
	// (realm_allow_message_editing, realm_message_edit_history_visibility_policy
	// and the realm_*_limit_seconds settings).
	Messages MessagePolicy
}

// ServerSettings is what GET /server_settings tells a client about the
// organisation before it logs in.
type ServerSettings struct {
	// RealmName is the organisation's name; "" when there is no realm.
	RealmName string
}

// ServerSettings returns the server settings of the realm with string id
// realm, or of the realm with the lowest id when realm is "". No such realm
// (an empty store, an unknown string id) gives the zero ServerSettings and no
// error: the answer needs no organisation. It needs no authentication.
// Errors are internal (store, context). Safe for concurrent use.
func (s *Service) ServerSettings(ctx context.Context, realm string) (ServerSettings, error) {
	var out ServerSettings
	err := s.View(ctx, func(tx Tx) error {
		if realm != "" {
			r, err := tx.RealmByStringID(ctx, realm)
			if errors.Is(err, ErrNotFound) {
				return nil
			}
			if err != nil {
				return err
			}
			out.RealmName = r.Name
			return nil
		}
		realms, err := tx.Realms(ctx)
		if err != nil {
			return err
		}
		if len(realms) > 0 {
			out.RealmName = realms[0].Name
		}
		return nil
	})
	return out, err
}
