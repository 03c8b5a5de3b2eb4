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
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// mxEnv is a realm with a member, an admin, a guest, a second member, a bot,
// three channels (public, private with shared history, private with protected
// history) and a second realm, over the memory store.
type mxEnv struct {
	mem    *memory.Store
	svc    *chatcore.Service
	events *recordingSink
	now    time.Time

	realm                               *chatcore.Realm
	admin, member, other, guest, bot    *chatcore.User
	public, private, protected, archive *chatcore.Stream
	otherRealm                          *chatcore.Realm
	stranger                            *chatcore.User
	strangerStream                      *chatcore.Stream
}

func newMxEnv(tb testing.TB) *mxEnv {
	tb.Helper()
	e := &mxEnv{mem: memory.New(), events: &recordingSink{}, now: seedTime}
	e.svc = chatcore.New(e.mem,
		chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return e.now })),
		chatcore.WithEventSink(e.events))
	e.realm = e.createRealm(tb, "zulip")
	e.admin = e.createUser(tb, e.realm, "Iago", chatcore.RoleAdministrator)
	e.member = e.createUser(tb, e.realm, "King Hamlet", chatcore.RoleMember)
	e.other = e.createUser(tb, e.realm, "Othello", chatcore.RoleMember)
	e.guest = e.createUser(tb, e.realm, "Polonius", chatcore.RoleGuest)
	e.bot = e.createUser(tb, e.realm, "Helper Bot", chatcore.RoleMember)
	e.write(tb, func(tx chatcore.Tx) error {
		e.bot.IsBot, e.bot.BotType, e.bot.BotOwnerID = true, chatcore.BotTypeOutgoingWebhook, e.member.ID
		return tx.UpdateUser(context.Background(), e.bot)
	})
	e.public = e.createStream(tb, e.realm, "Verona", false, true)
	e.private = e.createStream(tb, e.realm, "secret", true, true)
	e.protected = e.createStream(tb, e.realm, "vault", true, false)
	e.archive = e.createStream(tb, e.realm, "old", false, true)
	e.write(tb, func(tx chatcore.Tx) error {
		e.archive.IsArchived = true
		return tx.UpdateStream(context.Background(), e.archive)
	})
	for _, u := range []*chatcore.User{e.admin, e.member, e.other} {
		e.subscribe(tb, e.public, u, 0)
	}
	e.subscribe(tb, e.private, e.member, 0)
	e.subscribe(tb, e.protected, e.member, 0)
	e.otherRealm = e.createRealm(tb, "lear")
	e.stranger = e.createUser(tb, e.otherRealm, "King Lear", chatcore.RoleAdministrator)
	e.strangerStream = e.createStream(tb, e.otherRealm, "Denmark", false, true)
	return e
}

func (e *mxEnv) write(tb testing.TB, fn func(tx chatcore.Tx) error) {
	tb.Helper()
	writeStore(tb, e.mem, fn)
}

func (e *mxEnv) createRealm(tb testing.TB, stringID string) *chatcore.Realm {
	tb.Helper()
	return seedRealm(tb, e.mem, stringID, "")
}

func (e *mxEnv) createUser(tb testing.TB, realm *chatcore.Realm, name string, role chatcore.Role) *chatcore.User {
	tb.Helper()
	return seedUser(tb, e.mem, realm, name, role)
}

func (e *mxEnv) createStream(tb testing.TB, realm *chatcore.Realm, name string, inviteOnly, sharedHistory bool) *chatcore.Stream {
	tb.Helper()
	st := &chatcore.Stream{RealmID: realm.ID, Name: name, InviteOnly: inviteOnly,
		HistoryPublicToSubscribers: sharedHistory, DateCreated: seedTime}
	e.write(tb, func(tx chatcore.Tx) error { return tx.CreateStream(context.Background(), st) })
	return st
}

func (e *mxEnv) subscribe(tb testing.TB, st *chatcore.Stream, u *chatcore.User, firstVisible chatcore.MessageID) {
	tb.Helper()
	seedSubscription(tb, e.mem, st, u, firstVisible)
}

// send sends a channel message and fails the test on error.
func (e *mxEnv) send(tb testing.TB, from *chatcore.User, st *chatcore.Stream, topic, content string) chatcore.MessageID {
	tb.Helper()
	id, err := e.svc.SendMessage(context.Background(), from.ID, chatcore.SendMessageRequest{
		Type: "stream", To: new(st.Name), Topic: new(topic), Content: content})
	if err != nil {
		tb.Fatalf("send to %s: %v", st.Name, err)
	}
	return id
}

// dm sends a direct message and fails the test on error.
func (e *mxEnv) dm(tb testing.TB, from *chatcore.User, content string, to ...*chatcore.User) chatcore.MessageID {
	tb.Helper()
	ids := make([]string, 0, len(to))
	for _, u := range to {
		ids = append(ids, fmt.Sprint(u.ID))
	}
	id, err := e.svc.SendMessage(context.Background(), from.ID, chatcore.SendMessageRequest{
		Type: "private", To: new("[" + strings.Join(ids, ",") + "]"), Content: content})
	if err != nil {
		tb.Fatalf("dm: %v", err)
	}
	return id
}

// mxJSONKeys returns the sorted top-level keys of v encoded as JSON.
func mxJSONKeys(tb testing.TB, v any) ([]string, map[string]json.RawMessage) {
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
	e := newMxEnv(t)
	ctx := context.Background()
	id := e.send(t, e.member, e.public, "greetings", "hello **world**")

	view, raw, err := e.svc.Message(ctx, e.other.ID, id)
	is.NoErr(err)                                                                                               // a subscriber reads it
	is.Equal(raw, "hello **world**")                                                                            // raw Markdown
	is.Equal(view.Content, "<p>hello <strong>world</strong></p>")                                               // rendered content
	is.Equal(view.ContentType, "text/html")                                                                     // apply_markdown
	is.Equal(view.RenderedContent, view.Content)                                                                // rendered_content is the HTML
	is.Equal(view.DisplayRecipient, "Verona")                                                                   // channel name
	is.Equal(view.StreamID, e.public.ID)                                                                        // stream_id of a channel message
	is.Equal(view.RecipientID, e.public.RecipientID)                                                            // the channel's recipient
	is.Equal(view.Subject, "greetings")                                                                         // topic
	is.Equal(view.SenderID, e.member.ID)                                                                        // sender
	is.Equal(view.SenderEmail, e.member.Email)                                                                  // e-mail visible to everyone
	is.Equal(view.SenderFullName, "King Hamlet")                                                                // sender name
	is.Equal(view.SenderRealmStr, "zulip")                                                                      // realm string id
	is.Equal(view.Timestamp, seedTime.Unix())                                                                   // sent at the clock's time
	is.Equal(view.Client, "API")                                                                                // default client
	is.Equal(view.Type, chatcore.MessageTypeStream)                                                             // type
	is.True(view.AvatarURL != nil && strings.HasPrefix(*view.AvatarURL, "https://secure.gravatar.com/avatar/")) // gravatar

	keys, fields := mxJSONKeys(t, view)
	is.Equal(keys, []string{"avatar_url", "client", "content", "content_type", "display_recipient", "flags", "id",
		"is_me_message", "reactions", "recipient_id", "rendered_content", "sender_email", "sender_full_name",
		"sender_id", "sender_realm_str", "stream_id", "subject", "submessages", "timestamp", "topic_links",
		"type"}) // never edited: no edit_history, last_edit_timestamp or last_moved_timestamp
	is.Equal(string(fields["reactions"]), "[]")   // empty list, not null
	is.Equal(string(fields["submessages"]), "[]") // empty list, not null
	is.Equal(string(fields["topic_links"]), "[]") // empty list, not null
}

func TestSendDirectMessageView(t *testing.T) {
	is := is.New(t)
	e := newMxEnv(t)
	ctx := context.Background()
	id := e.dm(t, e.other, "psst", e.member)

	view, _, err := e.svc.Message(ctx, e.member.ID, id)
	is.NoErr(err) // the recipient reads it
	keys, fields := mxJSONKeys(t, view)
	is.True(!slices.Contains(keys, "stream_id"))     // no stream_id for direct messages
	is.True(!slices.Contains(keys, "edit_history"))  // never edited
	is.Equal(view.Type, chatcore.MessageTypePrivate) // type private
	is.Equal(view.Subject, "")                       // no topic
	var recips []map[string]any
	is.NoErr(json.Unmarshal(fields["display_recipient"], &recips)) // a list
	is.Equal(len(recips), 2)                                       // sender and recipient
	is.Equal(recips[0]["id"], float64(e.member.ID))                // sorted by id
	is.Equal(recips[1]["id"], float64(e.other.ID))                 // sender included
	is.Equal(recips[1]["email"], e.other.Email)                    // e-mail
	is.Equal(recips[1]["full_name"], "Othello")                    // name
	is.Equal(recips[1]["is_mirror_dummy"], false)                  // never a mirror dummy

	again := e.dm(t, e.member, "and back", e.other)
	v2, _, err := e.svc.Message(ctx, e.other.ID, again)
	is.NoErr(err)                              // the reply is readable
	is.Equal(v2.RecipientID, view.RecipientID) // one conversation, one recipient id
}

func TestMessageViewEditedFields(t *testing.T) {
	is := is.New(t)
	e := newMxEnv(t)
	ctx := context.Background()
	topic := "old topic"
	newTopic := "new topic"
	m := &chatcore.Message{
		RealmID: e.realm.ID, SenderID: e.member.ID, Type: chatcore.MessageTypeStream,
		RecipientID: e.public.RecipientID, StreamID: e.public.ID, Topic: newTopic,
		Content: "v2", RenderedContent: "<p>v2</p>", Client: "website", SentAt: seedTime,
		LastEditedAt: seedTime.Add(time.Minute), LastMovedAt: seedTime.Add(2 * time.Minute),
		EditHistory: []chatcore.EditHistoryEntry{
			{UserID: e.member.ID, Timestamp: seedTime.Add(2 * time.Minute), PrevTopic: &topic, Topic: &newTopic},
			{UserID: e.member.ID, Timestamp: seedTime.Add(time.Minute), PrevContent: "v1", PrevRenderedContent: "<p>v1</p>"},
		},
		Reactions: []chatcore.Reaction{{UserID: e.other.ID, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}},
	}
	e.write(t, func(tx chatcore.Tx) error { return tx.CreateMessage(ctx, m) })

	view, _, err := e.svc.Message(ctx, e.member.ID, m.ID)
	is.NoErr(err)                                                         // readable
	is.Equal(view.LastEditTimestamp, seedTime.Add(time.Minute).Unix())    // last edit
	is.Equal(view.LastMovedTimestamp, seedTime.Add(2*time.Minute).Unix()) // last move
	is.Equal(len(view.EditHistory), 2)                                    // both entries
	is.Equal(len(view.Reactions), 1)                                      // the reaction
	b, err := json.Marshal(view.EditHistory)
	is.NoErr(err) // encodes
	is.Equal(string(b), fmt.Sprintf(`[{"user_id":%d,"timestamp":%d,"prev_topic":"old topic","topic":"new topic"},`+
		`{"user_id":%d,"timestamp":%d,"prev_content":"v1","prev_rendered_content":"\u003cp\u003ev1\u003c/p\u003e"}]`,
		e.member.ID, seedTime.Add(2*time.Minute).Unix(), e.member.ID, seedTime.Add(time.Minute).Unix())) // only what changed
}
