package outgoing_test

import (
	"encoding/json"
	"testing"

	"github.com/chatcore/chatcore/outgoing"
	"github.com/matryer/is"
)

func TestMessageDisplayRecipient(t *testing.T) {
	tests := []struct {
		name    string
		message string
		want    any
		wantErr bool
	}{
		{"channel", `{"display_recipient": "general"}`, "general", false},
		{"direct message", `{"display_recipient": [{"id": 12, "email": "mark@acme.test", "full_name": "Mark", "is_mirror_dummy": false}]}`,
			[]outgoing.DisplayRecipient{{ID: 12, Email: "mark@acme.test", FullName: "Mark"}}, false},
		{"absent", `{"id": 5}`, nil, false},
		{"null", `{"display_recipient": null}`, nil, false},
		{"other value kept as decoded", `{"display_recipient": {"id": 1}}`, map[string]any{"id": float64(1)}, false},
		{"array of non-participants", `{"display_recipient": [1, 2]}`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			var p outgoing.Payload
			err := json.Unmarshal([]byte(`{"token": "t", "message": `+tt.message+`}`), &p)
			if tt.wantErr {
				is.True(err != nil) // refused
				return
			}
			is.NoErr(err)                                 // decodes
			is.Equal(p.Token, "t")                        // the fields beside the message decode too
			is.Equal(p.Message.DisplayRecipient, tt.want) // typed display_recipient
		})
	}
}

func TestMessageDecodesEveryField(t *testing.T) {
	is := is.New(t)
	body := `{"avatar_url": null, "client": "website", "content": "hi", "content_type": "text/x-markdown",
		"display_recipient": "general", "edit_history": [{"user_id": 12, "timestamp": 3, "prev_topic": "a", "topic": "b"}],
		"id": 5, "is_me_message": true, "last_edit_timestamp": 3, "last_moved_timestamp": 4,
		"reactions": [{"user_id": 12, "emoji_name": "smile", "emoji_code": "1f604", "reaction_type": "unicode_emoji"}],
		"recipient_id": 7, "sender_email": "mark@acme.test", "sender_full_name": "Mark", "sender_id": 12,
		"sender_realm_str": "acme", "stream_id": 61, "subject": "lunch",
		"submessages": [{"id": 1, "message_id": 5, "sender_id": 12, "msg_type": "widget", "content": "{}"}],
		"timestamp": 2, "topic_links": [{"text": "#1", "url": "https://x.test/1"}], "type": "stream",
		"rendered_content": "<p>hi</p>"}`
	var m outgoing.Message
	is.NoErr(json.Unmarshal([]byte(body), &m)) // decodes
	a, b := "a", "b"
	want := outgoing.Message{
		Client: "website", Content: "hi", ContentType: "text/x-markdown", DisplayRecipient: "general",
		EditHistory: []outgoing.EditHistory{{UserID: 12, Timestamp: 3, PrevTopic: &a, Topic: &b}},
		ID:          5, IsMeMessage: true, LastEditTimestamp: 3, LastMovedTimestamp: 4,
		Reactions:   []outgoing.Reaction{{UserID: 12, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
		RecipientID: 7, SenderEmail: "mark@acme.test", SenderFullName: "Mark", SenderID: 12,
		SenderRealmStr: "acme", StreamID: 61, Subject: "lunch",
		Submessages: []outgoing.Submessage{{ID: 1, MessageID: 5, SenderID: 12, MsgType: "widget", Content: "{}"}},
		Timestamp:   2, TopicLinks: []outgoing.TopicLink{{Text: "#1", URL: "https://x.test/1"}}, Type: "stream",
		RenderedContent: "<p>hi</p>",
	}
	is.Equal(m, want) // every field read from its wire name

	out, err := json.Marshal(m)
	is.NoErr(err) // encodes
	var again, orig map[string]any
	is.NoErr(json.Unmarshal(out, &again))         // JSON
	is.NoErr(json.Unmarshal([]byte(body), &orig)) // JSON
	is.Equal(again, orig)                         // encoding gives back the same wire object
}

func TestResponseEncoding(t *testing.T) {
	tests := []struct {
		name string
		res  outgoing.Response
		want string
	}{
		{"reply", outgoing.Response{Content: "pong"}, `{"content":"pong"}`},
		{"no reply", outgoing.Response{ResponseNotRequired: true}, `{"response_not_required":true}`},
		{"zero", outgoing.Response{}, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			b, err := json.Marshal(tt.res)
			is.NoErr(err)                // encodes
			is.Equal(string(b), tt.want) // only the keys that say something
		})
	}
}
