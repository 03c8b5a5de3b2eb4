// Package outgoing holds the wire types of outgoing webhooks (Zulip's generic
// interface): the [Payload] a chat server POSTs to a bot's service when a
// message triggers the bot, and the [Response] the service answers with.
//
// The package depends on the standard library only, so that a bot program
// (see package botkit) compiles without the server. The server
// (package chatcore) encodes [Payload] and reads [Response]; both follow the
// /zulip-outgoing-webhook operation of Zulip's OpenAPI description.
package outgoing

import (
	"encoding/json"
	"fmt"
)

// The triggers of an outgoing webhook, the values of [Payload].Trigger. Zulip
// sent "private_message" instead of "direct_message" before feature level 201.
const (
	TriggerMention       = "mention"
	TriggerDirectMessage = "direct_message"
)

// Payload is the JSON body POSTed to a bot's service when a message triggers
// the bot: a channel message mentioning it, or a direct message it takes part
// in.
type Payload struct {
	// BotEmail is the bot's e-mail.
	BotEmail string `json:"bot_email"`
	// BotFullName is the bot's full name.
	BotFullName string `json:"bot_full_name"`
	// Data is the triggering message's raw Markdown.
	Data string `json:"data"`
	// Trigger is TriggerMention or TriggerDirectMessage.
	Trigger string `json:"trigger"`
	// Token is the service's token; the receiver checks it to authenticate
	// the request.
	Token string `json:"token"`
	// Message is the triggering message as the bot sees it.
	Message Message `json:"message"`
}

// Message is the triggering message in Zulip's message-list format (the
// objects of GET /messages), with Content the raw Markdown (ContentType
// "text/x-markdown") and RenderedContent its HTML.
//
// DisplayRecipient is the channel name (a string) for a channel message and
// a []DisplayRecipient for a direct message; decoding with encoding/json gives
// those types. EditHistory, LastEditTimestamp and LastMovedTimestamp are
// absent unless the message was edited or moved; StreamID is absent for a
// direct message.
type Message struct {
	AvatarURL          *string       `json:"avatar_url"`
	Client             string        `json:"client"`
	Content            string        `json:"content"`
	ContentType        string        `json:"content_type"`
	DisplayRecipient   any           `json:"display_recipient"`
	EditHistory        []EditHistory `json:"edit_history,omitempty"`
	ID                 int64         `json:"id"`
	IsMeMessage        bool          `json:"is_me_message"`
	LastEditTimestamp  int64         `json:"last_edit_timestamp,omitzero"`
	LastMovedTimestamp int64         `json:"last_moved_timestamp,omitzero"`
	Reactions          []Reaction    `json:"reactions"`
	RecipientID        int64         `json:"recipient_id"`
	SenderEmail        string        `json:"sender_email"`
	SenderFullName     string        `json:"sender_full_name"`
	SenderID           int64         `json:"sender_id"`
	SenderRealmStr     string        `json:"sender_realm_str"`
	StreamID           int64         `json:"stream_id,omitzero"`
	// Subject is the topic ("" for a direct message).
	Subject     string       `json:"subject"`
	Submessages []Submessage `json:"submessages"`
	// Timestamp is the send time in Unix seconds.
	Timestamp  int64       `json:"timestamp"`
	TopicLinks []TopicLink `json:"topic_links"`
	// Type is "stream" or "private".
	Type            string `json:"type"`
	RenderedContent string `json:"rendered_content"`
	// Flags are the reading user's message flags, as GET /messages gives
	// them; outgoing-webhook payloads never carry them.
	Flags []string `json:"flags,omitzero"`
	// MatchContent and MatchSubject are a search's highlighted content and
	// topic, as GET /messages gives them with a search term; outgoing-webhook
	// payloads never carry them.
	MatchContent *string `json:"match_content,omitempty"`
	MatchSubject *string `json:"match_subject,omitempty"`
}

// UnmarshalJSON decodes a message, turning display_recipient into a string
// (channel) or a []DisplayRecipient (direct message). A display_recipient
// array whose elements are not participant objects is an error.
func (m *Message) UnmarshalJSON(b []byte) error {
	type plain Message
	v := struct {
		*plain
		// Shadows plain's field, which is decoded by hand below.
		DisplayRecipient json.RawMessage `json:"display_recipient"`
	}{plain: (*plain)(m)}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	dr := v.DisplayRecipient
	switch {
	case len(dr) == 0:
		return nil
	case dr[0] == '[':
		var users []DisplayRecipient
		if err := json.Unmarshal(dr, &users); err != nil {
			return fmt.Errorf("display_recipient: %w", err)
		}
		m.DisplayRecipient = users
	default:
		var x any
		if err := json.Unmarshal(dr, &x); err != nil {
			return fmt.Errorf("display_recipient: %w", err)
		}
		m.DisplayRecipient = x
	}
	return nil
}

// DisplayRecipient is one participant of a direct message in display_recipient.
type DisplayRecipient struct {
	ID            int64  `json:"id"`
	Email         string `json:"email"`
	FullName      string `json:"full_name"`
	IsMirrorDummy bool   `json:"is_mirror_dummy"`
}

// Reaction is one emoji reaction of a message.
type Reaction struct {
	UserID    int64  `json:"user_id"`
	EmojiName string `json:"emoji_name"`
	EmojiCode string `json:"emoji_code"`
	// ReactionType is "unicode_emoji", "realm_emoji" or "zulip_extra_emoji".
	ReactionType string `json:"reaction_type"`
}

// Submessage is a widget submessage (polls, todo lists) of a message.
type Submessage struct {
	ID        int64  `json:"id"`
	MessageID int64  `json:"message_id"`
	SenderID  int64  `json:"sender_id"`
	MsgType   string `json:"msg_type"`
	Content   string `json:"content"`
}

// EditHistory is one entry of edit_history, newest first. The prev/new fields
// are present only for what changed.
type EditHistory struct {
	UserID              int64   `json:"user_id"`
	Timestamp           int64   `json:"timestamp"`
	PrevContent         *string `json:"prev_content,omitempty"`
	PrevRenderedContent *string `json:"prev_rendered_content,omitempty"`
	PrevStream          int64   `json:"prev_stream,omitzero"`
	Stream              int64   `json:"stream,omitzero"`
	PrevTopic           *string `json:"prev_topic,omitempty"`
	Topic               *string `json:"topic,omitempty"`
}

// TopicLink is one link of topic_links: a linkifier match or a URL in the topic.
type TopicLink struct {
	Text string `json:"text"`
	URL  string `json:"url"`
}

// Response is the JSON answer of a bot's service with a 2xx status. Content is
// posted by the bot in the conversation of the triggering message;
// ResponseNotRequired, or Content that is empty or only white space, posts
// nothing.
//
// The server reads answers more loosely than this type writes them, as Zulip
// does: the deprecated key "response_string" is taken before "content", the
// JSON string "" also means "no reply", a value that is not a string is posted
// as Python's str() writes it ({"content": null} posts "None"), and an answer
// that is not a JSON object fails with a notice to the bot's owner.
type Response struct {
	Content             string `json:"content,omitempty"`
	ResponseNotRequired bool   `json:"response_not_required,omitempty"`
}
