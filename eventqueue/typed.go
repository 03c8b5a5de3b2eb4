package eventqueue

import (
	"encoding/json"

	"github.com/chatcore/chatcore"
)

// Event is a queue event decoded into its Go type by [Decode]: one of the
// *...Event types of this package (their types are [EventTypes]), or an
// [*UnknownEvent] for a type this version does not describe. Switch on the
// concrete type:
//
//	ev, err := eventqueue.Decode(qe)
//	switch ev := ev.(type) {
//	case *eventqueue.MessageEvent:
//		fmt.Println(ev.Message.SenderFullName, ev.Message.Content)
//	case *eventqueue.ReactionEvent:
//		fmt.Println(ev.Op, ev.EmojiName, "on", ev.MessageID)
//	}
//
// Fields follow Zulip's event documentation (GET /events); those that vary
// in shape with the event's op or the client's capabilities stay
// [json.RawMessage] for the caller to decode.
type Event interface {
	// EventID is the event's id in its queue.
	EventID() int64
	// EventType is the event's "type".
	EventType() string
}

// Header is the part every event has: its id and type.
type Header struct {
	ID   int64  `json:"id"`
	Type string `json:"type"`
}

// EventID implements [Event].
func (h Header) EventID() int64 { return h.ID }

// EventType implements [Event].
func (h Header) EventType() string { return h.Type }

// UserRef is a user as events name them.
type UserRef struct {
	UserID   chatcore.UserID `json:"user_id"`
	Email    string          `json:"email"`
	FullName string          `json:"full_name,omitempty"`
}

// MessageEvent is a "message" event: a new message the queue's user
// received (or sent), with its flags for that user.
type MessageEvent struct {
	Header
	Message chatcore.MessageView `json:"message"`
	Flags   []string             `json:"flags"`
	// LocalMessageID echoes the sender's local_id, on the sender's own
	// queue when its client gave one.
	LocalMessageID *string `json:"local_message_id,omitempty"`
}

// UpdateMessageEvent is an "update_message" event: a message edited or
// moved (the content fields with a content edit, the stream and topic
// fields with a move).
type UpdateMessageEvent struct {
	Header
	UserID              *chatcore.UserID     `json:"user_id"`
	EditTimestamp       int64                `json:"edit_timestamp"`
	MessageID           chatcore.MessageID   `json:"message_id"`
	MessageIDs          []chatcore.MessageID `json:"message_ids"`
	Flags               []string             `json:"flags"`
	RenderingOnly       bool                 `json:"rendering_only"`
	OrigContent         *string              `json:"orig_content,omitempty"`
	OrigRenderedContent *string              `json:"orig_rendered_content,omitempty"`
	Content             *string              `json:"content,omitempty"`
	RenderedContent     *string              `json:"rendered_content,omitempty"`
	IsMeMessage         *bool                `json:"is_me_message,omitempty"`
	StreamID            *chatcore.StreamID   `json:"stream_id,omitempty"`
	StreamName          *string              `json:"stream_name,omitempty"`
	NewStreamID         *chatcore.StreamID   `json:"new_stream_id,omitempty"`
	PropagateMode       *string              `json:"propagate_mode,omitempty"`
	OrigSubject         *string              `json:"orig_subject,omitempty"`
	Subject             *string              `json:"subject,omitempty"`
	TopicLinks          json.RawMessage      `json:"topic_links,omitempty"`
}

// DeleteMessageEvent is a "delete_message" event: with the client
// capability bulk_message_deletion, MessageIDs; without it, one event per
// message with MessageID.
type DeleteMessageEvent struct {
	Header
	MessageType string               `json:"message_type"`
	MessageIDs  []chatcore.MessageID `json:"message_ids,omitempty"`
	MessageID   chatcore.MessageID   `json:"message_id,omitempty"`
	StreamID    chatcore.StreamID    `json:"stream_id,omitempty"`
	Topic       string               `json:"topic,omitempty"`
}

// UpdateMessageFlagsEvent is an "update_message_flags" event: the user's
// flag Flag added or removed (Op) on Messages.
type UpdateMessageFlagsEvent struct {
	Header
	Op        string               `json:"op"`
	Operation string               `json:"operation"`
	Flag      string               `json:"flag"`
	Messages  []chatcore.MessageID `json:"messages"`
	All       bool                 `json:"all"`
	// MessageDetails describes each message marked unread (op "remove",
	// flag "read"), by message id.
	MessageDetails map[string]json.RawMessage `json:"message_details,omitempty"`
}

// ReactionEvent is a "reaction" event: Op "add" or "remove".
type ReactionEvent struct {
	Header
	Op           string             `json:"op"`
	UserID       chatcore.UserID    `json:"user_id"`
	User         UserRef            `json:"user"`
	MessageID    chatcore.MessageID `json:"message_id"`
	EmojiName    string             `json:"emoji_name"`
	EmojiCode    string             `json:"emoji_code"`
	ReactionType string             `json:"reaction_type"`
}

// TypingEvent is a "typing" event: Op "start" or "stop", in a channel's
// topic (MessageType "stream") or a direct conversation (Recipients).
type TypingEvent struct {
	Header
	Op          string            `json:"op"`
	Sender      UserRef           `json:"sender"`
	MessageType string            `json:"message_type"`
	StreamID    chatcore.StreamID `json:"stream_id,omitempty"`
	Topic       string            `json:"topic,omitempty"`
	Recipients  []UserRef         `json:"recipients,omitempty"`
}

// PresenceEvent is a "presence" event: a user's presence changed.
type PresenceEvent struct {
	Header
	Email           string                     `json:"email"`
	UserID          chatcore.UserID            `json:"user_id"`
	ServerTimestamp float64                    `json:"server_timestamp"`
	Presence        map[string]json.RawMessage `json:"presence"`
}

// SubscriptionEvent is a "subscription" event: Op "add" and "remove"
// (Subscriptions), "peer_add" and "peer_remove" (StreamIDs, UserIDs),
// "update" (StreamID, Property, Value).
type SubscriptionEvent struct {
	Header
	Op            string              `json:"op"`
	Subscriptions json.RawMessage     `json:"subscriptions,omitempty"`
	StreamIDs     []chatcore.StreamID `json:"stream_ids,omitempty"`
	UserIDs       []chatcore.UserID   `json:"user_ids,omitempty"`
	StreamID      chatcore.StreamID   `json:"stream_id,omitempty"`
	Property      string              `json:"property,omitempty"`
	Value         json.RawMessage     `json:"value,omitempty"`
}

// StreamEvent is a "stream" event: Op "create" and "delete" (Streams),
// "update" (StreamID, Name, Property, Value and the property's extras:
// RenderedDescription with "description"; InviteOnly, HistoryPublic and
// IsWebPublic with a change of the channel's access).
type StreamEvent struct {
	Header
	Op                  string            `json:"op"`
	Streams             json.RawMessage   `json:"streams,omitempty"`
	StreamIDs           []int64           `json:"stream_ids,omitempty"`
	StreamID            chatcore.StreamID `json:"stream_id,omitempty"`
	Name                string            `json:"name,omitempty"`
	Property            string            `json:"property,omitempty"`
	Value               json.RawMessage   `json:"value,omitempty"`
	RenderedDescription *string           `json:"rendered_description,omitempty"`
	HistoryPublic       *bool             `json:"history_public_to_subscribers,omitempty"`
	InviteOnly          *bool             `json:"invite_only,omitempty"`
	IsWebPublic         *bool             `json:"is_web_public,omitempty"`
}

// RealmUserEvent is a "realm_user" event: Op "add", "remove" or "update",
// Person holding the fields that changed (always user_id).
type RealmUserEvent struct {
	Header
	Op     string          `json:"op"`
	Person json.RawMessage `json:"person"`
}

// RealmBotEvent is a "realm_bot" event: Op "add", "remove", "update" or
// "delete", Bot holding the fields that changed (always user_id).
type RealmBotEvent struct {
	Header
	Op  string          `json:"op"`
	Bot json.RawMessage `json:"bot"`
}

// UserSettingsEvent is a "user_settings" event: the user's setting
// Property changed to Value (LanguageName with default_language).
type UserSettingsEvent struct {
	Header
	Op           string          `json:"op"`
	Property     string          `json:"property"`
	Value        json.RawMessage `json:"value"`
	LanguageName *string         `json:"language_name,omitempty"`
}

// RealmUserSettingsDefaultsEvent is a "realm_user_settings_defaults" event
// (Op "update"): the realm's default for new accounts of the setting
// Property changed to Value.
type RealmUserSettingsDefaultsEvent struct {
	Header
	Op       string          `json:"op"`
	Property string          `json:"property"`
	Value    json.RawMessage `json:"value"`
}

// Linkifier is one linkifier of a [RealmLinkifiersEvent].
type Linkifier struct {
	ID          chatcore.LinkifierID `json:"id"`
	Pattern     string               `json:"pattern"`
	URLTemplate string               `json:"url_template"`
}

// RealmLinkifiersEvent is a "realm_linkifiers" event: the realm's
// linkifiers, all of them, in processing order.
type RealmLinkifiersEvent struct {
	Header
	RealmLinkifiers []Linkifier `json:"realm_linkifiers"`
}

// RealmFiltersEvent is a "realm_filters" event, the legacy form of
// realm_linkifiers for clients that ask for it.
type RealmFiltersEvent struct {
	Header
	RealmFilters json.RawMessage `json:"realm_filters"`
}

// ScheduledMessagesEvent is a "scheduled_messages" event: Op "add"
// (ScheduledMessages), "update" (ScheduledMessage) or "remove"
// (ScheduledMessageID).
type ScheduledMessagesEvent struct {
	Header
	Op                 string                      `json:"op"`
	ScheduledMessages  json.RawMessage             `json:"scheduled_messages,omitempty"`
	ScheduledMessage   json.RawMessage             `json:"scheduled_message,omitempty"`
	ScheduledMessageID chatcore.ScheduledMessageID `json:"scheduled_message_id,omitempty"`
}

// RemindersEvent is a "reminders" event: Op "add" (Reminders) or "remove"
// (ReminderID).
type RemindersEvent struct {
	Header
	Op         string                      `json:"op"`
	Reminders  json.RawMessage             `json:"reminders,omitempty"`
	ReminderID chatcore.ScheduledMessageID `json:"reminder_id,omitempty"`
}

// RestartEvent is a "restart" event: the server restarted; a client may
// reload to pick up a new version.
type RestartEvent struct {
	Header
	ZulipVersion      string `json:"zulip_version"`
	ZulipMergeBase    string `json:"zulip_merge_base"`
	ZulipFeatureLevel int    `json:"zulip_feature_level"`
	ServerGeneration  int64  `json:"server_generation"`
	Immediate         bool   `json:"immediate"`
}

// HeartbeatEvent is a "heartbeat" event: a poll answered with no news.
type HeartbeatEvent struct {
	Header
}

// UnknownEvent is an event of a type this package does not describe; JSON
// is the whole event.
type UnknownEvent struct {
	Header
	JSON json.RawMessage
}

// eventTypes maps an event type to a new value of its Go type.
var eventTypes = map[string]func() Event{
	"message":                      func() Event { return &MessageEvent{} },
	"update_message":               func() Event { return &UpdateMessageEvent{} },
	"delete_message":               func() Event { return &DeleteMessageEvent{} },
	"update_message_flags":         func() Event { return &UpdateMessageFlagsEvent{} },
	"reaction":                     func() Event { return &ReactionEvent{} },
	"typing":                       func() Event { return &TypingEvent{} },
	"presence":                     func() Event { return &PresenceEvent{} },
	"subscription":                 func() Event { return &SubscriptionEvent{} },
	"stream":                       func() Event { return &StreamEvent{} },
	"realm_user":                   func() Event { return &RealmUserEvent{} },
	"realm_bot":                    func() Event { return &RealmBotEvent{} },
	"user_settings":                func() Event { return &UserSettingsEvent{} },
	"realm_user_settings_defaults": func() Event { return &RealmUserSettingsDefaultsEvent{} },
	"realm_linkifiers":             func() Event { return &RealmLinkifiersEvent{} },
	"realm_filters":                func() Event { return &RealmFiltersEvent{} },
	"scheduled_messages":           func() Event { return &ScheduledMessagesEvent{} },
	"reminders":                    func() Event { return &RemindersEvent{} },
	"restart":                      func() Event { return &RestartEvent{} },
	"heartbeat":                    func() Event { return &HeartbeatEvent{} },
	"realm":                        func() Event { return &RealmEvent{} },
	"realm_emoji":                  func() Event { return &RealmEmojiEvent{} },
	"default_streams":              func() Event { return &DefaultStreamsEvent{} },
	"user_group":                   func() Event { return &UserGroupEvent{} },
	"user_status":                  func() Event { return &UserStatusEvent{} },
	"user_topic":                   func() Event { return &UserTopicEvent{} },
	"muted_topics":                 func() Event { return &MutedTopicsEvent{} },
	"muted_users":                  func() Event { return &MutedUsersEvent{} },
	"alert_words":                  func() Event { return &AlertWordsEvent{} },
	"drafts":                       func() Event { return &DraftsEvent{} },
	"submessage":                   func() Event { return &SubmessageEvent{} },
	"attachment":                   func() Event { return &AttachmentEvent{} },
	"invites_changed":              func() Event { return &InvitesChangedEvent{} },
}

// EventTypes returns the event types [Decode] has a Go type for.
func EventTypes() []string {
	out := make([]string, 0, len(eventTypes))
	for t := range eventTypes {
		out = append(out, t)
	}
	return out
}

// Decode returns e as its typed event (see [Event]); a type without a Go
// type here is an [*UnknownEvent]. The error is the JSON decoder's.
func Decode(e QueueEvent) (Event, error) {
	mk, ok := eventTypes[e.Type]
	if !ok {
		return &UnknownEvent{Header: Header{ID: e.ID, Type: e.Type}, JSON: e.JSON}, nil
	}
	ev := mk()
	if err := json.Unmarshal(e.JSON, ev); err != nil {
		return nil, err
	}
	return ev, nil
}
