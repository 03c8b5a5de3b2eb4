package eventqueue

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
)

// Bounds on what one user, one realm and one queue may hold. Zulip sets none
// of these; its web app holds one queue per open tab and its mobile app one
// per device, so a real client stays far below them.
const (
	// DefaultMaxQueuesPerUser is how many event queues a user may hold by
	// default ([Options.MaxQueuesPerUser]). Registering one more deletes the
	// user's queue that has gone longest without a poll: the client that
	// registers is the one in use, and the client of the deleted queue (a
	// tab closed without deleting its queue, a phone gone offline) gets
	// BAD_EVENT_QUEUE_ID when it comes back and registers again, as Zulip's
	// apps do by themselves.
	DefaultMaxQueuesPerUser = 100
	// DefaultMaxQueuesPerRealm is how many event queues the users of one
	// realm may hold together by default ([Options.MaxQueuesPerRealm]).
	// Registering past it is refused with BAD_REQUEST "Too many event
	// queues in this organization (limit: N); try again later" until queues
	// are deleted or expire: another user's queue is never deleted to make
	// room.
	DefaultMaxQueuesPerRealm = 50000
	// MaxSenderOperandLength bounds the operand of a sender term of a queue
	// narrow, in bytes: the longest e-mail address (RFC 5321's 254).
	MaxSenderOperandLength = 254
	// MaxIsOperandLength bounds the operand of an is term of a queue narrow,
	// in characters; Zulip's longest is operand is "followed".
	MaxIsOperandLength = 32
	// MaxQueueParamsSize bounds what a queue stores of its options (event
	// types, narrow, flags), encoded, in bytes. A narrow of
	// [chatcore.MaxNarrowTerms] terms whose operands all keep within their
	// bounds fits unless its text needs heavy JSON escaping.
	MaxQueueParamsSize = 32 << 10
)

// tooManyRealmQueues is the refusal of a registration when the realm holds
// limit queues.
func tooManyRealmQueues(limit int) *chatcore.Error {
	return chatcore.BadRequestf("Too many event queues in this organization (limit: %d); try again later", limit)
}

// knownEventTypes are the event types Zulip defines and the state section
// names clients send in event_types (fetch_event_types defaults to it). A
// queue stores only these: a name outside them selects no event (Zulip
// accepts any name and never sends an event of an unknown type), so
// dropping it changes nothing the client sees.
var knownEventTypes = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range []string{
		"alert_words", "attachment", "channel_folder", "custom_profile_fields",
		"default_stream_groups", "default_streams", "delete_message", "device", "drafts",
		"giphy", "has_zoom_token", "heartbeat", "hotspots", "invites_changed", "message",
		"muted_topics", "muted_users", "navigation_view", "navigation_views", "onboarding_steps",
		"presence", "push_device", "reaction", "realm", "realm_bot", "realm_billing",
		"realm_domains", "realm_embedded_bots", "realm_emoji", "realm_export",
		"realm_export_consent", "realm_filters", "realm_incoming_webhook_bots",
		"realm_linkifiers", "realm_playgrounds", "realm_user", "realm_user_groups",
		"realm_user_settings_defaults", "recent_private_conversations", "reminders",
		"restart", "saved_snippets", "scheduled_messages", "starred_messages", "stop_words",
		"stream", "submessage", "subscription", "typing", "typing_edit_message",
		"update_display_settings", "update_global_notifications", "update_message",
		"update_message_flags", "user_group", "user_settings", "user_status", "user_topic",
		"video_calls", "web_reload_client",
	} {
		m[t] = true
	}
	return m
}()

// knownTypes returns types without the names no event has (see
// knownEventTypes) and without duplicates; nil stays nil (every type) and a
// list of unknown names only stays a list (heartbeats only).
func knownTypes(types []string) []string {
	if types == nil {
		return nil
	}
	out := make([]string, 0, len(types))
	for _, t := range types {
		if knownEventTypes[t] && !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// checkNarrow applies Zulip's rule for narrows of event queues and
// chatcore's bounds: at most [chatcore.MaxNarrowTerms] terms, each operand
// within its operator's bound (a channel name's, a topic's, an e-mail
// address's, [MaxIsOperandLength]), so nothing larger reaches the store.
func (o *QueueOptions) checkNarrow() error {
	if len(o.Narrow) > chatcore.MaxNarrowTerms {
		return chatcore.TooLongError("narrow", chatcore.MaxNarrowTerms)
	}
	for _, t := range o.Narrow {
		if len(t) != 2 {
			return chatcore.BadRequest("Invalid narrow")
		}
		var limit int
		switch t[0] {
		case "channel", "stream":
			limit = channels.MaxNameLength
		case "topic":
			limit = chatcore.MaxTopicLength
		case "sender":
			if len(t[1]) > MaxSenderOperandLength {
				return operandTooLong(t[0], MaxSenderOperandLength)
			}
			continue
		case "is":
			if t[1] == "followed" {
				return chatcore.BadRequestf("Operand %s not supported.", t[1])
			}
			limit = MaxIsOperandLength
		default:
			return chatcore.BadRequestf("Operator %s not supported.", boundedText(t[0]))
		}
		if utf8.RuneCountInString(t[1]) > limit {
			return operandTooLong(t[0], limit)
		}
	}
	return nil
}

// operandTooLong is the refusal of a narrow operand over its bound.
func operandTooLong(op string, limit int) *chatcore.Error {
	return chatcore.BadRequestf("Invalid narrow operand for %s: too long (limit: %d characters)", op, limit)
}

// boundedText cuts s for an error message: an operator may be as long as the
// request body.
func boundedText(s string) string {
	const most = 64
	if len(s) <= most {
		return s
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// encodeParams checks o and returns what the queue stores of it: the known
// event types only, a narrow within its bounds, at most [MaxQueueParamsSize]
// bytes in all.
func encodeParams(o *QueueOptions) ([]byte, error) {
	if err := o.checkNarrow(); err != nil {
		return nil, err
	}
	if len(o.EventTypes) > chatcore.MaxEventTypes {
		return nil, chatcore.TooLongError("event_types", chatcore.MaxEventTypes)
	}
	stored := *o
	stored.EventTypes = knownTypes(o.EventTypes)
	params, err := json.Marshal(&stored)
	if err != nil {
		return nil, err
	}
	if len(params) > MaxQueueParamsSize {
		return nil, chatcore.BadRequestf("Event queue options too large (limit: %d bytes)", MaxQueueParamsSize)
	}
	return params, nil
}
