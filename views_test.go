package chatcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

func TestSendChannelMessageView(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	id := w.Send(t, org.Member, org.Public, "greetings", "hello **world**")

	view, raw, err := messages.One(ctx, w.Svc, org.Other.ID, id, messages.OneRequest{})
	is.NoErr(err)                                                                                               // a subscriber reads it
	is.Equal(raw, "hello **world**")                                                                            // raw Markdown
	is.Equal(view.Content, "<p>hello <strong>world</strong></p>")                                               // rendered content
	is.Equal(view.ContentType, "text/html")                                                                     // apply_markdown
	is.Equal(view.RenderedContent, view.Content)                                                                // rendered_content is the HTML
	is.Equal(view.DisplayRecipient, "Verona")                                                                   // channel name
	is.Equal(view.StreamID, org.Public.ID)                                                                      // stream_id of a channel message
	is.Equal(view.RecipientID, org.Public.RecipientID)                                                          // the channel's recipient
	is.Equal(view.Subject, "greetings")                                                                         // topic
	is.Equal(view.SenderID, org.Member.ID)                                                                      // sender
	is.Equal(view.SenderEmail, org.Member.Email)                                                                // e-mail visible to everyone
	is.Equal(view.SenderFullName, "King Hamlet")                                                                // sender name
	is.Equal(view.SenderRealmStr, "zulip")                                                                      // realm string id
	is.Equal(view.Timestamp, chattest.Epoch.Unix())                                                             // sent at the clock's time
	is.Equal(view.Client, "API")                                                                                // default client
	is.Equal(view.Type, chatcore.MessageTypeStream)                                                             // type
	is.True(view.AvatarURL != nil && strings.HasPrefix(*view.AvatarURL, "https://secure.gravatar.com/avatar/")) // gravatar

	keys, fields := chattest.JSONKeys(t, view)
	is.Equal(keys, []string{"avatar_url", "client", "content", "content_type", "display_recipient", "flags", "id",
		"is_me_message", "reactions", "recipient_id", "sender_email", "sender_full_name",
		"sender_id", "sender_realm_str", "stream_id", "subject", "submessages", "timestamp", "topic_links",
		"type"}) // never edited: no edit_history, last_edit_timestamp or last_moved_timestamp
	is.Equal(string(fields["reactions"]), "[]")   // empty list, not null
	is.Equal(string(fields["submessages"]), "[]") // empty list, not null
	is.Equal(string(fields["topic_links"]), "[]") // empty list, not null
}

func TestSendDirectMessageView(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	id := w.SendDM(t, org.Other, "psst", org.Member)

	view, _, err := messages.One(ctx, w.Svc, org.Member.ID, id, messages.OneRequest{})
	is.NoErr(err) // the recipient reads it
	keys, fields := chattest.JSONKeys(t, view)
	is.True(!slices.Contains(keys, "stream_id"))     // no stream_id for direct messages
	is.True(!slices.Contains(keys, "edit_history"))  // never edited
	is.Equal(view.Type, chatcore.MessageTypePrivate) // type private
	is.Equal(view.Subject, "")                       // no topic
	var recips []map[string]any
	is.NoErr(json.Unmarshal(fields["display_recipient"], &recips)) // a list
	is.Equal(len(recips), 2)                                       // sender and recipient
	is.Equal(recips[0]["id"], float64(org.Member.ID))              // sorted by id
	is.Equal(recips[1]["id"], float64(org.Other.ID))               // sender included
	is.Equal(recips[1]["email"], org.Other.Email)                  // e-mail
	is.Equal(recips[1]["full_name"], "Othello")                    // name
	is.Equal(recips[1]["is_mirror_dummy"], false)                  // never a mirror dummy

	again := w.SendDM(t, org.Member, "and back", org.Other)
	v2, _, err := messages.One(ctx, w.Svc, org.Other.ID, again, messages.OneRequest{})
	is.NoErr(err)                              // the reply is readable
	is.Equal(v2.RecipientID, view.RecipientID) // one conversation, one recipient id
}

func TestMessageViewEditedFields(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	topic := "old topic"
	newTopic := "new topic"
	m := &chatcore.Message{
		RealmID: org.Realm.ID, SenderID: org.Member.ID, Type: chatcore.MessageTypeStream,
		RecipientID: org.Public.RecipientID, StreamID: org.Public.ID, Topic: newTopic,
		Content: "v2", RenderedContent: "<p>v2</p>", Client: "website", SentAt: chattest.Epoch,
		LastEditedAt: chattest.Epoch.Add(time.Minute), LastMovedAt: chattest.Epoch.Add(2 * time.Minute),
		EditHistory: []chatcore.EditHistoryEntry{
			{UserID: org.Member.ID, Timestamp: chattest.Epoch.Add(2 * time.Minute), PrevTopic: &topic, Topic: &newTopic},
			{UserID: org.Member.ID, Timestamp: chattest.Epoch.Add(time.Minute), PrevContent: "v1", PrevRenderedContent: "<p>v1</p>"},
		},
		Reactions: []chatcore.Reaction{{UserID: org.Other.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
	}
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateMessage(ctx, m) })

	view, _, err := messages.One(ctx, w.Svc, org.Member.ID, m.ID, messages.OneRequest{})
	is.NoErr(err)                                                               // readable
	is.Equal(view.LastEditTimestamp, chattest.Epoch.Add(time.Minute).Unix())    // last edit
	is.Equal(view.LastMovedTimestamp, chattest.Epoch.Add(2*time.Minute).Unix()) // last move
	is.Equal(len(view.EditHistory), 2)                                          // both entries
	is.Equal(len(view.Reactions), 1)                                            // the reaction
	b, err := json.Marshal(view.EditHistory)
	is.NoErr(err) // encodes
	is.Equal(string(b), fmt.Sprintf(`[{"user_id":%d,"timestamp":%d,"prev_topic":"old topic","topic":"new topic"},`+
		`{"user_id":%d,"timestamp":%d,"prev_content":"v1","prev_rendered_content":"\u003cp\u003ev1\u003c/p\u003e"}]`,
		org.Member.ID, chattest.Epoch.Add(2*time.Minute).Unix(), org.Member.ID, chattest.Epoch.Add(time.Minute).Unix())) // only what changed
}
