package webhooks

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/outgoing"
	"github.com/matryer/is"
)

// TestOutgoingTypesMatchViews checks that each wire type of package outgoing
// has the fields of the view it is converted from, with the same JSON tags:
// a field added to chatcore.MessageView fails here until the payload carries it too.
func TestOutgoingTypesMatchViews(t *testing.T) {
	tests := []struct {
		name     string
		view, to any
	}{
		{"message", chatcore.MessageView{}, outgoing.Message{}},
		{"display recipient", chatcore.DisplayRecipient{}, outgoing.DisplayRecipient{}},
		{"edit history", chatcore.EditHistoryView{}, outgoing.EditHistory{}},
		{"reaction", chatcore.Reaction{}, outgoing.Reaction{}},
		{"submessage", chatcore.Submessage{}, outgoing.Submessage{}},
		{"topic link", chatcore.TopicLink{}, outgoing.TopicLink{}},
	}
	fields := func(v any) []string {
		var out []string
		for f := range reflect.TypeOf(v).Fields() {
			tag := f.Tag.Get("json")
			if _, ok := v.(chatcore.MessageView); ok && f.Name == "RenderedContent" {
				tag = "rendered_content" // only the payload encodes it
			}
			out = append(out, f.Name+" "+tag)
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(fields(tt.to), fields(tt.view)) // same fields, same JSON names and options
		})
	}
}

// TestOutgoingMessageEncodesAsView checks that the payload's message encodes
// byte for byte as the view it comes from, every field set or left empty.
func TestOutgoingMessageEncodesAsView(t *testing.T) {
	avatar, prev, topic, content := "https://x.test/a.png", "old", "new", "v1"
	tests := []struct {
		name string
		view chatcore.MessageView
	}{
		{"empty", chatcore.MessageView{}},
		{"empty direct recipients", chatcore.MessageView{DisplayRecipient: []chatcore.DisplayRecipient(nil)}},
		{"channel message, every field set", chatcore.MessageView{
			AvatarURL: &avatar, Client: "website", Content: "hi", ContentType: "text/x-markdown",
			DisplayRecipient: "general",
			EditHistory: []chatcore.EditHistoryView{
				{UserID: 12, Timestamp: 3, PrevContent: &content, PrevRenderedContent: &content},
				{UserID: 13, Timestamp: 2, PrevStream: 60, Stream: 61, PrevTopic: &prev, Topic: &topic},
			},
			ID: 5, IsMeMessage: true, LastEditTimestamp: 3, LastMovedTimestamp: 2,
			Reactions:   []chatcore.Reaction{{UserID: 12, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
			RecipientID: 7, SenderEmail: "mark@acme.test", SenderFullName: "Mark", SenderID: 12,
			SenderRealmStr: "acme", StreamID: 61, Subject: "lunch",
			Submessages: []chatcore.Submessage{{ID: 1, MessageID: 5, SenderID: 12, MsgType: "widget", Content: "{}"}},
			Timestamp:   1767225600, TopicLinks: []chatcore.TopicLink{{Text: "#1", URL: "https://x.test/1"}},
			Type: chatcore.MessageTypeStream, RenderedContent: "<p>hi</p>",
		}},
		{"direct message, empty lists", chatcore.MessageView{
			DisplayRecipient: []chatcore.DisplayRecipient{{ID: 12, Email: "mark@acme.test", FullName: "Mark", IsMirrorDummy: true}},
			Reactions:        []chatcore.Reaction{}, Submessages: []chatcore.Submessage{}, TopicLinks: []chatcore.TopicLink{},
			EditHistory: []chatcore.EditHistoryView{}, Type: chatcore.MessageTypePrivate,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			// The payload's message is the view plus rendered_content, which
			// Zulip's message-list object lacks.
			want, err := json.Marshal(struct {
				chatcore.MessageView
				RenderedContent string `json:"rendered_content"`
			}{tt.view, tt.view.RenderedContent})
			is.NoErr(err) // the view encodes
			got, err := json.Marshal(outgoingMessage(tt.view))
			is.NoErr(err)                       // the payload message encodes
			is.Equal(string(got), string(want)) // the same JSON
		})
	}
}
