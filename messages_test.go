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
	"github.com/chatcore/chatcore/internal/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// messagingOrg is the organisation of the message tests: a realm with a
// member, an admin, a guest, a second member, an outgoing-webhook bot of the
// member, three channels (public, private with shared history, private with
// protected history), an archived channel, and a second realm.
type messagingOrg struct {
	realm                               *chatcore.Realm
	admin, member, other, guest, bot    *chatcore.User
	public, private, protected, archive *chatcore.Stream
	otherRealm                          *chatcore.Realm
	stranger                            *chatcore.User
	strangerStream                      *chatcore.Stream
}

// newMessaging builds a World over a memory store and stores messagingOrg
// in it.
func newMessaging(tb testing.TB) (*chattest.World, *messagingOrg) {
	tb.Helper()
	w := chattest.New(tb)
	org := &messagingOrg{realm: w.AddRealm(tb, "zulip")}
	org.admin = w.AddUser(tb, org.realm, "Iago", chatcore.RoleAdministrator)
	org.member = w.AddUser(tb, org.realm, "King Hamlet", chatcore.RoleMember)
	org.other = w.AddUser(tb, org.realm, "Othello", chatcore.RoleMember)
	org.guest = w.AddUser(tb, org.realm, "Polonius", chatcore.RoleGuest)
	org.bot = w.AddUser(tb, org.realm, "Helper Bot", chatcore.RoleMember, func(u *chatcore.User) {
		u.IsBot, u.BotType, u.BotOwnerID = true, chatcore.BotTypeOutgoingWebhook, org.member.ID
	})
	org.public = w.AddChannel(tb, chattest.Channel{Realm: org.realm, Name: "Verona",
		Subscribers: []*chatcore.User{org.admin, org.member, org.other}})
	org.private = w.AddChannel(tb, chattest.Channel{Realm: org.realm, Name: "secret", InviteOnly: true,
		Subscribers: []*chatcore.User{org.member}})
	org.protected = w.AddChannel(tb, chattest.Channel{Realm: org.realm, Name: "vault", InviteOnly: true, Protected: true,
		Subscribers: []*chatcore.User{org.member}})
	org.archive = w.AddChannel(tb, chattest.Channel{Realm: org.realm, Name: "old", Archived: true})
	org.otherRealm = w.AddRealm(tb, "lear")
	org.stranger = w.AddUser(tb, org.otherRealm, "King Lear", chatcore.RoleAdministrator)
	org.strangerStream = w.AddChannel(tb, chattest.Channel{Realm: org.otherRealm, Name: "Denmark"})
	return w, org
}

// sendDM sends a direct message through the Service and fails the test on
// error.
func sendDM(tb testing.TB, w *chattest.World, from *chatcore.User, content string, to ...*chatcore.User) chatcore.MessageID {
	tb.Helper()
	ids := make([]string, 0, len(to))
	for _, u := range to {
		ids = append(ids, fmt.Sprint(u.ID))
	}
	id, err := w.Svc.SendMessage(context.Background(), from.ID, chatcore.SendMessageRequest{
		Type: "private", To: new("[" + strings.Join(ids, ",") + "]"), Content: content})
	if err != nil {
		tb.Fatalf("dm: %v", err)
	}
	return id
}

// jsonKeys returns the sorted top-level keys of v encoded as JSON.
func jsonKeys(tb testing.TB, v any) ([]string, map[string]json.RawMessage) {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, m
}

func TestSendChannelMessageView(t *testing.T) {
	is := is.New(t)
	w, org := newMessaging(t)
	ctx := context.Background()
	id := w.Send(t, org.member, org.public, "greetings", "hello **world**")

	view, raw, err := messages.One(ctx, w.Svc, org.other.ID, id)
	is.NoErr(err)                                                                                               // a subscriber reads it
	is.Equal(raw, "hello **world**")                                                                            // raw Markdown
	is.Equal(view.Content, "<p>hello <strong>world</strong></p>")                                               // rendered content
	is.Equal(view.ContentType, "text/html")                                                                     // apply_markdown
	is.Equal(view.RenderedContent, view.Content)                                                                // rendered_content is the HTML
	is.Equal(view.DisplayRecipient, "Verona")                                                                   // channel name
	is.Equal(view.StreamID, org.public.ID)                                                                      // stream_id of a channel message
	is.Equal(view.RecipientID, org.public.RecipientID)                                                          // the channel's recipient
	is.Equal(view.Subject, "greetings")                                                                         // topic
	is.Equal(view.SenderID, org.member.ID)                                                                      // sender
	is.Equal(view.SenderEmail, org.member.Email)                                                                // e-mail visible to everyone
	is.Equal(view.SenderFullName, "King Hamlet")                                                                // sender name
	is.Equal(view.SenderRealmStr, "zulip")                                                                      // realm string id
	is.Equal(view.Timestamp, chattest.Epoch.Unix())                                                             // sent at the clock's time
	is.Equal(view.Client, "API")                                                                                // default client
	is.Equal(view.Type, chatcore.MessageTypeStream)                                                             // type
	is.True(view.AvatarURL != nil && strings.HasPrefix(*view.AvatarURL, "https://secure.gravatar.com/avatar/")) // gravatar

	keys, fields := jsonKeys(t, view)
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
	w, org := newMessaging(t)
	ctx := context.Background()
	id := sendDM(t, w, org.other, "psst", org.member)

	view, _, err := messages.One(ctx, w.Svc, org.member.ID, id)
	is.NoErr(err) // the recipient reads it
	keys, fields := jsonKeys(t, view)
	is.True(!slices.Contains(keys, "stream_id"))     // no stream_id for direct messages
	is.True(!slices.Contains(keys, "edit_history"))  // never edited
	is.Equal(view.Type, chatcore.MessageTypePrivate) // type private
	is.Equal(view.Subject, "")                       // no topic
	var recips []map[string]any
	is.NoErr(json.Unmarshal(fields["display_recipient"], &recips)) // a list
	is.Equal(len(recips), 2)                                       // sender and recipient
	is.Equal(recips[0]["id"], float64(org.member.ID))              // sorted by id
	is.Equal(recips[1]["id"], float64(org.other.ID))               // sender included
	is.Equal(recips[1]["email"], org.other.Email)                  // e-mail
	is.Equal(recips[1]["full_name"], "Othello")                    // name
	is.Equal(recips[1]["is_mirror_dummy"], false)                  // never a mirror dummy

	again := sendDM(t, w, org.member, "and back", org.other)
	v2, _, err := messages.One(ctx, w.Svc, org.other.ID, again)
	is.NoErr(err)                              // the reply is readable
	is.Equal(v2.RecipientID, view.RecipientID) // one conversation, one recipient id
}

func TestMessageViewEditedFields(t *testing.T) {
	is := is.New(t)
	w, org := newMessaging(t)
	ctx := context.Background()
	topic := "old topic"
	newTopic := "new topic"
	m := &chatcore.Message{
		RealmID: org.realm.ID, SenderID: org.member.ID, Type: chatcore.MessageTypeStream,
		RecipientID: org.public.RecipientID, StreamID: org.public.ID, Topic: newTopic,
		Content: "v2", RenderedContent: "<p>v2</p>", Client: "website", SentAt: chattest.Epoch,
		LastEditedAt: chattest.Epoch.Add(time.Minute), LastMovedAt: chattest.Epoch.Add(2 * time.Minute),
		EditHistory: []chatcore.EditHistoryEntry{
			{UserID: org.member.ID, Timestamp: chattest.Epoch.Add(2 * time.Minute), PrevTopic: &topic, Topic: &newTopic},
			{UserID: org.member.ID, Timestamp: chattest.Epoch.Add(time.Minute), PrevContent: "v1", PrevRenderedContent: "<p>v1</p>"},
		},
		Reactions: []chatcore.Reaction{{UserID: org.other.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
	}
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateMessage(ctx, m) })

	view, _, err := messages.One(ctx, w.Svc, org.member.ID, m.ID)
	is.NoErr(err)                                                               // readable
	is.Equal(view.LastEditTimestamp, chattest.Epoch.Add(time.Minute).Unix())    // last edit
	is.Equal(view.LastMovedTimestamp, chattest.Epoch.Add(2*time.Minute).Unix()) // last move
	is.Equal(len(view.EditHistory), 2)                                          // both entries
	is.Equal(len(view.Reactions), 1)                                            // the reaction
	b, err := json.Marshal(view.EditHistory)
	is.NoErr(err) // encodes
	is.Equal(string(b), fmt.Sprintf(`[{"user_id":%d,"timestamp":%d,"prev_topic":"old topic","topic":"new topic"},`+
		`{"user_id":%d,"timestamp":%d,"prev_content":"v1","prev_rendered_content":"\u003cp\u003ev1\u003c/p\u003e"}]`,
		org.member.ID, chattest.Epoch.Add(2*time.Minute).Unix(), org.member.ID, chattest.Epoch.Add(time.Minute).Unix())) // only what changed
}
