// Package eventwire reads and rewrites the JSON of logged events as event
// queues receive them, without decoding whole events: the fields delivery
// looks at, the queue id put in front, a message's raw or rendered content,
// the empty topic renamed.
package eventwire

import (
	"encoding/json"
	"strconv"
	"sync"
)

// RawContentKey is the key under which a logged message event keeps the
// message's Markdown; queues never receive it.
const RawContentKey = "chatcore_raw_content"

// Head is what delivery reads of a logged event.
type Head struct {
	Type       string          `json:"type"`
	Op         string          `json:"op"`
	Message    json.RawMessage `json:"message"`
	Flags      []string        `json:"flags"`
	MessageIDs []int64         `json:"message_ids"`
	Topic      *string         `json:"topic"`
	// TopicName is the topic of a user_topic event.
	TopicName *string    `json:"topic_name"`
	StreamID  *int64     `json:"stream_id"`
	Raw       *string    `json:"chatcore_raw_content"` // RawContentKey
	Echo      *LocalEcho `json:"chatcore_local_echo"`  // LocalEchoKey
	// Modern is a presence event's modern presences (ModernPresenceKey).
	Modern json.RawMessage `json:"chatcore_modern_presence"`
}

// ModernPresenceKey is the key under which a logged presence event keeps
// its modern form, Zulip's "presences" object for clients with
// simplified_presence_events; it is never delivered.
const ModernPresenceKey = "chatcore_modern_presence"

// PresenceVariant returns a logged presence event as a queue receives it:
// {"type": "presence", "presences": modern} for clients with
// simplified_presence_events; otherwise the legacy event without its
// modern form, and without "email" for slim_presence clients, as Zulip's
// process_presence_event. Data that does not parse is returned as it is.
func PresenceVariant(data []byte, modern json.RawMessage, simplified, slim bool) []byte {
	if simplified && modern != nil {
		return append(append([]byte(`{"type":"presence","presences":`), modern...), '}')
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return data
	}
	delete(fields, ModernPresenceKey)
	if slim {
		delete(fields, "email")
	}
	if b, err := json.Marshal(fields); err == nil {
		return b
	}
	return data
}

// LocalEchoKey is the key under which a logged message event keeps its
// [LocalEcho]; it is never delivered.
const LocalEchoKey = "chatcore_local_echo"

// LocalEcho is what Zulip's local echo needs of a sent message: the event
// queue of the sender that sent it and the client's id of its unsent copy,
// delivered to that queue alone as local_message_id.
type LocalEcho struct {
	QueueID string `json:"queue_id"`
	LocalID string `json:"local_id"`
	UserID  int64  `json:"user_id"`
}

// For reports whether the echo belongs in the queue queueID of user.
func (l *LocalEcho) For(queueID string, user int64) bool {
	return l != nil && l.QueueID == queueID && l.UserID == user
}

// WithLocalMessageID returns the event data with "local_message_id" set to
// localID; data that does not parse is returned as it is.
func WithLocalMessageID(data []byte, localID string) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return data
	}
	fields["local_message_id"], _ = json.Marshal(localID)
	if b, err := json.Marshal(fields); err == nil {
		return b
	}
	return data
}

// MessageHead is what a queue's narrow reads of a message event's message.
type MessageHead struct {
	Type             string          `json:"type"`
	DisplayRecipient json.RawMessage `json:"display_recipient"`
	Subject          string          `json:"subject"`
	SenderEmail      string          `json:"sender_email"`
}

// Entry is a logged event as delivery reads it: its head, parsed once, and
// what is derived from it on first use (the message of a message event, the
// two content variants). An Entry is safe for concurrent use, so one Entry
// can serve every queue the event goes to.
type Entry struct {
	// Head is the event's head; OK reports whether the event parsed.
	Head Head
	OK   bool

	once    sync.Once
	msg     MessageHead
	msgOK   bool
	content [2][]byte
	built   [2]sync.Once
}

// Parse returns the Entry of a logged event's JSON.
func Parse(data []byte) *Entry {
	e := &Entry{}
	e.OK = json.Unmarshal(data, &e.Head) == nil
	return e
}

// Message returns the parsed message of a message event, and whether it
// parsed.
func (e *Entry) Message() (*MessageHead, bool) {
	e.once.Do(func() { e.msgOK = json.Unmarshal(e.Head.Message, &e.msg) == nil })
	return &e.msg, e.msgOK
}

// Variant returns the entry's JSON data (the event as logged) as a queue
// with applyMarkdown receives it, built on first use (see [MessageContent]);
// an event without raw content is data itself.
func (e *Entry) Variant(data []byte, applyMarkdown bool) []byte {
	i := 0
	if applyMarkdown {
		i = 1
	}
	e.built[i].Do(func() {
		e.content[i] = data
		if e.Head.Raw != nil || e.Head.Echo != nil {
			e.content[i] = MessageContent(data, e.Head.Raw, applyMarkdown)
		}
	})
	return e.content[i]
}

// EmptyTopic reports whether the entry names the empty topic: a channel
// message's subject, an event's topic or a user_topic event's topic_name.
func (e *Entry) EmptyTopic() bool {
	if e.Head.Topic != nil && *e.Head.Topic == "" || e.Head.Type == "user_topic" && e.Head.TopicName != nil && *e.Head.TopicName == "" {
		return true
	}
	if e.Head.Type != "message" {
		return false
	}
	m, ok := e.Message()
	return ok && m.Type == "stream" && m.Subject == ""
}

// WithID returns the JSON object data with "id" added in front.
func WithID(id int64, data []byte) []byte {
	b := make([]byte, 0, len(data)+24)
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, id, 10)
	if len(data) > 2 {
		b = append(b, ',')
	}
	return append(b, data[1:]...)
}

// MessageContent returns a logged message event without its [RawContentKey]
// and [LocalEchoKey], with the message's content replaced by raw
// (content_type "text/x-markdown") unless applyMarkdown or raw is nil. Data that does not parse is
// returned as it is.
func MessageContent(data []byte, raw *string, applyMarkdown bool) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return data
	}
	delete(fields, RawContentKey)
	delete(fields, LocalEchoKey)
	if !applyMarkdown && raw != nil {
		var msg map[string]json.RawMessage
		if json.Unmarshal(fields["message"], &msg) == nil {
			msg["content"], _ = json.Marshal(*raw)
			msg["content_type"] = json.RawMessage(`"text/x-markdown"`)
			fields["message"], _ = json.Marshal(msg)
		}
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return data
	}
	return out
}

// PerMessage returns one copy of the event data per id, each with
// "message_id" set to the id in place of "message_ids", or false when data
// does not parse.
func PerMessage(data []byte, ids []int64) ([][]byte, bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return nil, false
	}
	delete(fields, "message_ids")
	out := make([][]byte, len(ids))
	for i, id := range ids {
		fields["message_id"] = json.RawMessage(strconv.FormatInt(id, 10))
		out[i], _ = json.Marshal(fields)
	}
	return out, true
}

// RenameEmptyTopic returns the event data with its empty topic (its "topic",
// a user_topic event's "topic_name", or its channel message's "subject")
// given as name; data that does not parse is returned as it is.
func RenameEmptyTopic(data []byte, name string) []byte {
	var fields map[string]json.RawMessage
	if json.Unmarshal(data, &fields) != nil {
		return data
	}
	quoted, _ := json.Marshal(name)
	if string(fields["topic"]) == `""` {
		fields["topic"] = quoted
	}
	if string(fields["type"]) == `"user_topic"` && string(fields["topic_name"]) == `""` {
		fields["topic_name"] = quoted
	}
	if raw, ok := fields["message"]; ok {
		var msg map[string]json.RawMessage
		if json.Unmarshal(raw, &msg) == nil && string(msg["subject"]) == `""` && string(msg["type"]) == `"stream"` {
			msg["subject"] = quoted
			fields["message"], _ = json.Marshal(msg)
		}
	}
	if b, err := json.Marshal(fields); err == nil {
		return b
	}
	return data
}
