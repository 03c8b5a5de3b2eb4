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
	"github.com/chatcore/chatcore/internal/wire"
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
	is.Equal(keys, []string{"avatar_url", "client", "content", "content_type", "display_recipient", "id",
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

func TestSendMessageContentRules(t *testing.T) {
	e := newMxEnv(t)
	ctx := context.Background()
	send := func(content string) (chatcore.MessageID, error) {
		return e.svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{
			Type: "stream", To: new("Verona"), Topic: new("t"), Content: content})
	}
	for _, tc := range []struct{ name, content, msg string }{
		{"empty", "", "Message must not be empty"},
		{"whitespace only", " \n\t ", "Message must not be empty"},
		{"NUL byte", "a\x00b", "Message must not contain null bytes"},
		{"invalid UTF-8", "a\xffb", "Message must be valid UTF-8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := send(tc.content)
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
		})
	}
	t.Run("trailing whitespace and leading newlines are dropped", func(t *testing.T) {
		is := is.New(t)
		id, err := send("\n\nhello  \n")
		is.NoErr(err) // sent
		_, raw, err := e.svc.Message(ctx, e.member.ID, id)
		is.NoErr(err)          // readable
		is.Equal(raw, "hello") // stripped
	})
	t.Run("long content is truncated", func(t *testing.T) {
		is := is.New(t)
		id, err := send(strings.Repeat("é", 6000)) // 12000 bytes
		is.NoErr(err)                              // sent, not refused
		_, raw, err := e.svc.Message(ctx, e.member.ID, id)
		is.NoErr(err)                                            // readable
		is.True(len(raw) <= chatcore.MaxMessageLength)           // within the limit
		is.True(strings.HasSuffix(raw, "\n[message truncated]")) // Zulip's marker
		is.True(len(raw) >= chatcore.MaxMessageLength-1)         // cut at a character boundary, not shorter
		is.True(strings.HasPrefix(raw, "éé"))                    // the start is kept
	})
	t.Run("content of exactly the limit is kept", func(t *testing.T) {
		is := is.New(t)
		body := strings.Repeat("a", chatcore.MaxMessageLength)
		id, err := send(body)
		is.NoErr(err) // sent
		_, raw, err := e.svc.Message(ctx, e.member.ID, id)
		is.NoErr(err)       // readable
		is.Equal(raw, body) // untouched
	})
}

func TestSendMessageTopicRules(t *testing.T) {
	e := newMxEnv(t)
	ctx := context.Background()
	send := func(topic string) (chatcore.MessageID, error) {
		return e.svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{
			Type: "stream", To: new("Verona"), Topic: new(topic), Content: "x"})
	}
	topicOf := func(t *testing.T, id chatcore.MessageID) string {
		is := is.New(t)
		res, err := e.svc.Messages(ctx, e.member.ID, chatcore.MessagesRequest{
			Anchor: new(fmt.Sprint(id)), AllowEmptyTopicName: new(true)})
		is.NoErr(err)                  // fetched
		is.Equal(len(res.Messages), 1) // just the anchor
		return res.Messages[0].Subject
	}
	t.Run("long topic is truncated with ...", func(t *testing.T) {
		is := is.New(t)
		id, err := send(strings.Repeat("ü", 70))
		is.NoErr(err)                                           // sent
		is.Equal(topicOf(t, id), strings.Repeat("ü", 57)+"...") // 60 characters
	})
	t.Run("60 characters are kept", func(t *testing.T) {
		is := is.New(t)
		id, err := send(strings.Repeat("x", 60))
		is.NoErr(err)                                     // sent
		is.Equal(topicOf(t, id), strings.Repeat("x", 60)) // untouched
	})
	t.Run("surrounding whitespace is trimmed", func(t *testing.T) {
		is := is.New(t)
		id, err := send("  spaced  ")
		is.NoErr(err)                      // sent
		is.Equal(topicOf(t, id), "spaced") // trimmed
	})
	t.Run("display name of the empty topic", func(t *testing.T) {
		is := is.New(t)
		id, err := send("general chat")
		is.NoErr(err)                // sent
		is.Equal(topicOf(t, id), "") // the empty topic
		res, err := e.svc.Messages(ctx, e.member.ID, chatcore.MessagesRequest{Anchor: new(fmt.Sprint(id))})
		is.NoErr(err)                                     // fetched
		is.Equal(res.Messages[0].Subject, "general chat") // shown by name without allow_empty_topic_name
	})
	t.Run("control character", func(t *testing.T) {
		_, err := send("abc\ndef")
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid character in topic, at position 4!")
	})
	t.Run("missing topic", func(t *testing.T) {
		_, err := e.svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{
			Type: "stream", To: new("Verona"), Content: "x"})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing topic")
	})
}

func TestSendMessageChannelRules(t *testing.T) {
	e := newMxEnv(t)
	ctx := context.Background()
	send := func(u *chatcore.User, typ, to string) (chatcore.MessageID, error) {
		return e.svc.SendMessage(ctx, u.ID, chatcore.SendMessageRequest{
			Type: typ, To: new(to), Topic: new("t"), Content: "x"})
	}
	for _, tc := range []struct {
		name string
		user *chatcore.User
		typ  string
		to   string
		code chatcore.Code
		msg  string
	}{
		{"unknown name", e.member, "stream", "Nowhere", chatcore.CodeStreamDoesNotExist, "Channel 'Nowhere' does not exist"},
		{"unknown name is escaped", e.member, "stream", "<b>", chatcore.CodeStreamDoesNotExist, "Channel '&lt;b&gt;' does not exist"},
		{"unknown id", e.member, "stream", "999999", chatcore.CodeStreamDoesNotExist, "Channel with ID '999999' does not exist"},
		{"channel of another realm by id", e.member, "stream", fmt.Sprint(e.strangerStream.ID), chatcore.CodeStreamDoesNotExist,
			fmt.Sprintf("Channel with ID '%d' does not exist", e.strangerStream.ID)},
		{"channel of another realm by name", e.member, "stream", "Denmark", chatcore.CodeStreamDoesNotExist, "Channel 'Denmark' does not exist"},
		{"archived", e.member, "stream", "old", chatcore.CodeBadRequest, "Not authorized to send to channel 'old'"},
		{"private without subscription", e.other, "channel", "secret", chatcore.CodeBadRequest, "Not authorized to send to channel 'secret'"},
		{"admin without subscription", e.admin, "stream", "secret", chatcore.CodeBadRequest, "Not authorized to send to channel 'secret'"},
		{"guest to a public channel without subscription", e.guest, "stream", "Verona", chatcore.CodeBadRequest, "Not authorized to send to channel 'Verona'"},
		{"two channels", e.member, "stream", `["Verona","secret"]`, chatcore.CodeBadRequest, "Expected exactly one channel"},
		{"bad indicator", e.member, "stream", `{"a":1}`, chatcore.CodeBadRequest, "Invalid data type for channel"},
		{"bad type", e.member, "broadcast", "Verona", chatcore.CodeBadRequest, "Invalid type: Value error, Not in the list of possible values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := send(tc.user, tc.typ, tc.to)
			wantError(t, err, tc.code, chatcore.KindInvalid, tc.msg)
		})
	}
	for _, tc := range []struct {
		name string
		user *chatcore.User
		typ  string
		to   string
	}{
		{"by name", e.member, "stream", "Verona"},
		{"by name, case-insensitively", e.member, "stream", "VERONA"},
		{"by id", e.member, "channel", fmt.Sprint(e.public.ID)},
		{"by JSON name", e.member, "stream", `"Verona"`},
		{"by JSON list", e.member, "stream", fmt.Sprintf("[%d]", e.public.ID)},
		{"private with subscription", e.member, "stream", "secret"},
		{"public without subscription", e.bot, "stream", "Verona"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := send(tc.user, tc.typ, tc.to)
			is.NoErr(err) // allowed
		})
	}
	t.Run("subscribed guest", func(t *testing.T) {
		is := is.New(t)
		e.subscribe(t, e.public, e.guest, 0)
		_, err := send(e.guest, "stream", "Verona")
		is.NoErr(err) // a subscribed guest may post
	})
	t.Run("bot through its owner's subscription", func(t *testing.T) {
		is := is.New(t)
		_, err := send(e.bot, "stream", "secret")
		is.NoErr(err) // the owner is subscribed
	})
	t.Run("missing to", func(t *testing.T) {
		_, err := e.svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{Type: "stream", Topic: new("t"), Content: "x"})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing channel")
	})
	t.Run("missing type", func(t *testing.T) {
		_, err := e.svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{To: new("Verona"), Content: "x"})
		wantError(t, err, chatcore.CodeRequestVariableMissing, chatcore.KindInvalid, "Missing 'type' argument")
	})
	t.Run("deactivated sender", func(t *testing.T) {
		u := e.createUser(t, e.realm, "Gone", chatcore.RoleMember)
		e.write(t, func(tx chatcore.Tx) error { u.IsActive = false; return tx.UpdateUser(ctx, u) })
		_, err := send(u, "stream", "Verona")
		wantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
	})
}

func TestSendDirectMessageRules(t *testing.T) {
	e := newMxEnv(t)
	ctx := context.Background()
	send := func(typ, to string) (chatcore.MessageID, error) {
		return e.svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{Type: typ, To: new(to), Content: "x"})
	}
	gone := e.createUser(t, e.realm, "Gone", chatcore.RoleMember)
	e.write(t, func(tx chatcore.Tx) error { gone.IsActive = false; return tx.UpdateUser(ctx, gone) })
	for _, tc := range []struct{ name, to, msg string }{
		{"unknown e-mail", `["nobody@zulip.example.com"]`, "Invalid email 'nobody@zulip.example.com'"},
		{"e-mail of another realm", e.stranger.Email, fmt.Sprintf("Invalid email '%s'", e.stranger.Email)},
		{"unknown id", "[999999]", "Invalid user ID 999999"},
		{"id of another realm", fmt.Sprintf("[%d]", e.stranger.ID), fmt.Sprintf("Invalid user ID %d", e.stranger.ID)},
		{"deactivated recipient", fmt.Sprintf("[%d]", gone.ID), fmt.Sprintf("'%s' is no longer using Zulip.", gone.Email)},
		{"mixed list", fmt.Sprintf(`[%d, "%s"]`, e.other.ID, e.other.Email), "Recipient lists may contain emails or user IDs, but not both."},
		{"empty list", "[]", "Message must have recipients"},
		{"not a list", `{"a":1}`, "Invalid data type for recipients"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := send("private", tc.to)
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
		})
	}
	t.Run("forms of to", func(t *testing.T) {
		is := is.New(t)
		a, err := send("direct", fmt.Sprintf("[%d]", e.other.ID))
		is.NoErr(err) // JSON list of ids
		b, err := send("private", fmt.Sprintf(`["%s"]`, strings.ToUpper(e.other.Email)))
		is.NoErr(err) // JSON list of e-mails, case-insensitive
		c, err := send("private", e.other.Email)
		is.NoErr(err) // a bare e-mail
		va, _, _ := e.svc.Message(ctx, e.member.ID, a)
		vb, _, _ := e.svc.Message(ctx, e.member.ID, b)
		vc, _, _ := e.svc.Message(ctx, e.member.ID, c)
		is.Equal(va.RecipientID, vb.RecipientID) // one conversation
		is.Equal(va.RecipientID, vc.RecipientID) // one conversation
		g, err := send("private", e.other.Email+", "+e.admin.Email)
		is.NoErr(err) // comma-separated e-mails make a group
		vg, _, _ := e.svc.Message(ctx, e.member.ID, g)
		is.True(vg.RecipientID != va.RecipientID)                           // another conversation
		is.Equal(len(vg.DisplayRecipient.([]chatcore.DisplayRecipient)), 3) // three participants
		self, err := send("private", fmt.Sprintf("[%d]", e.member.ID))
		is.NoErr(err) // a message to oneself
		vs, _, _ := e.svc.Message(ctx, e.member.ID, self)
		is.Equal(len(vs.DisplayRecipient.([]chatcore.DisplayRecipient)), 1) // just the sender
	})
}

func TestSendMessageEventsAndFirstMessageID(t *testing.T) {
	is := is.New(t)
	e := newMxEnv(t)
	ctx := context.Background()
	first := e.send(t, e.member, e.private, "t", "one")
	e.send(t, e.member, e.private, "t", "two")
	var st *chatcore.Stream
	is.NoErr(e.mem.View(ctx, func(tx chatcore.Tx) error {
		var err error
		st, err = tx.Stream(ctx, e.private.ID)
		return err
	})) // read back
	is.Equal(st.FirstMessageID, first) // set by the first message, kept afterwards

	evs := e.events.ofType("message")
	is.Equal(len(evs), 2)                                    // one event per message
	is.Equal(evs[0].UserIDs, []chatcore.UserID{e.member.ID}) // the channel's subscribers
	view, ok := evs[0].Data["message"].(chatcore.MessageView)
	is.True(ok)              // carries the message view
	is.Equal(view.ID, first) // of the sent message

	_, err := e.svc.SendMessage(ctx, e.member.ID, chatcore.SendMessageRequest{Type: "stream", To: new("nowhere"), Topic: new("t"), Content: "x"})
	is.True(err != nil)                          // refused
	is.Equal(len(e.events.ofType("message")), 2) // no event for a failed send
}

func TestMessageVisibility(t *testing.T) {
	e := newMxEnv(t)
	ctx := context.Background()
	pub := e.send(t, e.member, e.public, "t", "public")
	priv := e.send(t, e.member, e.private, "t", "private")
	early := e.send(t, e.member, e.protected, "t", "before the others joined")
	late := e.send(t, e.member, e.protected, "t", "after")
	direct := e.dm(t, e.member, "direct", e.other)
	e.subscribe(t, e.private, e.other, 0)
	e.subscribe(t, e.protected, e.other, late)

	for _, tc := range []struct {
		name   string
		viewer *chatcore.User
		id     chatcore.MessageID
		ok     bool
	}{
		{"public channel, member", e.other, pub, true},
		{"public channel, unsubscribed member", e.admin, pub, true},
		{"public channel, unsubscribed guest", e.guest, pub, false},
		{"private channel, subscriber", e.other, priv, true},
		{"private channel, admin without subscription", e.admin, priv, false},
		{"protected history, before joining", e.other, early, false},
		{"protected history, after joining", e.other, late, true},
		{"protected history, sender", e.member, early, true},
		{"direct message, participant", e.other, direct, true},
		{"direct message, sender", e.member, direct, true},
		{"direct message, outsider", e.admin, direct, false},
		{"another realm", e.stranger, pub, false},
		{"unknown id", e.member, 999999, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, _, err := e.svc.Message(ctx, tc.viewer.ID, tc.id)
			if tc.ok {
				is.NoErr(err) // visible
				return
			}
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)")
		})
	}
	t.Run("guest after subscribing", func(t *testing.T) {
		is := is.New(t)
		e.subscribe(t, e.public, e.guest, 0)
		_, _, err := e.svc.Message(ctx, e.guest.ID, pub)
		is.NoErr(err) // a subscribed guest sees the channel
	})
	t.Run("unsubscribed from a private channel", func(t *testing.T) {
		e.write(t, func(tx chatcore.Tx) error {
			return tx.PutSubscription(ctx, chatcore.Subscription{StreamID: e.private.ID, UserID: e.other.ID, Active: false})
		})
		_, _, err := e.svc.Message(ctx, e.other.ID, priv)
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid message(s)")
	})
}

// mxIDs returns the ids of views.
func mxIDs(views []chatcore.MessageView) []chatcore.MessageID {
	out := make([]chatcore.MessageID, 0, len(views))
	for _, v := range views {
		out = append(out, v.ID)
	}
	return out
}

func TestMessagesAnchors(t *testing.T) {
	e := newMxEnv(t)
	ctx := context.Background()
	var ids []chatcore.MessageID
	for i := range 6 {
		ids = append(ids, e.send(t, e.member, e.public, "t", fmt.Sprint("m", i)))
	}
	narrow := []chatcore.NarrowTerm{{Operator: "channel", Operand: json.RawMessage(fmt.Sprint(e.public.ID))}}
	get := func(t *testing.T, anchor string, before, after int) chatcore.MessagesResult {
		is := is.New(t)
		res, err := e.svc.Messages(ctx, e.other.ID, chatcore.MessagesRequest{
			Anchor: new(anchor), NumBefore: new(before), NumAfter: new(after), Narrow: narrow})
		is.NoErr(err) // fetched
		return res
	}
	t.Run("newest", func(t *testing.T) {
		is := is.New(t)
		res := get(t, "newest", 3, 0)
		is.Equal(mxIDs(res.Messages), ids[3:])                      // the three newest, oldest first
		is.True(res.FoundNewest)                                    // anchored at the newest end
		is.True(!res.FoundOldest)                                   // more before
		is.True(!res.FoundAnchor)                                   // no message is the anchor
		is.Equal(res.Anchor, chatcore.MessageID(10000000000000000)) // Zulip's newest anchor
	})
	t.Run("newest, everything", func(t *testing.T) {
		is := is.New(t)
		res := get(t, "newest", 100, 0)
		is.Equal(mxIDs(res.Messages), ids) // all of them
		is.True(res.FoundOldest)           // fewer than asked for
		is.True(res.FoundNewest)           // newest end
	})
	t.Run("oldest", func(t *testing.T) {
		is := is.New(t)
		res := get(t, "oldest", 0, 2)
		is.Equal(mxIDs(res.Messages), ids[:2])      // the two oldest
		is.True(res.FoundOldest)                    // anchored at the oldest end
		is.True(!res.FoundNewest)                   // more after
		is.Equal(res.Anchor, chatcore.MessageID(0)) // oldest anchor
	})
	t.Run("message id", func(t *testing.T) {
		is := is.New(t)
		res := get(t, fmt.Sprint(ids[2]), 1, 1)
		is.Equal(mxIDs(res.Messages), ids[1:4]) // one before, the anchor, one after
		is.True(res.FoundAnchor)                // the anchor exists
		is.True(!res.FoundOldest)               // got as many as asked for before
		is.True(!res.FoundNewest)               // got as many as asked for after
		is.Equal(res.Anchor, ids[2])            // echoed
	})
	t.Run("message id near the ends", func(t *testing.T) {
		is := is.New(t)
		res := get(t, fmt.Sprint(ids[1]), 5, 10)
		is.Equal(mxIDs(res.Messages), ids) // everything
		is.True(res.FoundOldest)           // fewer before than asked
		is.True(res.FoundNewest)           // fewer after than asked
	})
	t.Run("anchor alone", func(t *testing.T) {
		is := is.New(t)
		res := get(t, fmt.Sprint(ids[4]), 0, 0)
		is.Equal(mxIDs(res.Messages), ids[4:5]) // just the anchor
		is.True(res.FoundAnchor)                // found
	})
	t.Run("anchor between messages", func(t *testing.T) {
		is := is.New(t)
		e.dm(t, e.member, "elsewhere", e.admin) // takes an id the channel narrow does not match
		res := get(t, "newest", 1, 0)
		is.Equal(mxIDs(res.Messages), ids[5:]) // the DM is not in the channel narrow
	})
	t.Run("without the anchor", func(t *testing.T) {
		is := is.New(t)
		res, err := e.svc.Messages(ctx, e.other.ID, chatcore.MessagesRequest{
			Anchor: new(fmt.Sprint(ids[2])), NumBefore: new(1), NumAfter: new(1), Narrow: narrow, IncludeAnchor: new(false)})
		is.NoErr(err)                                                       // fetched
		is.Equal(mxIDs(res.Messages), []chatcore.MessageID{ids[1], ids[3]}) // anchor left out
		is.True(!res.FoundAnchor)                                           // not fetched, so not found
	})
	t.Run("raw Markdown", func(t *testing.T) {
		is := is.New(t)
		res, err := e.svc.Messages(ctx, e.other.ID, chatcore.MessagesRequest{
			Anchor: new(fmt.Sprint(ids[0])), Narrow: narrow, ApplyMarkdown: new(false)})
		is.NoErr(err)                                            // fetched
		is.Equal(res.Messages[0].Content, "m0")                  // raw
		is.Equal(res.Messages[0].ContentType, "text/x-markdown") // Markdown type
		is.Equal(res.Messages[0].RenderedContent, "<p>m0</p>")   // rendered_content still HTML
	})
	for _, tc := range []struct {
		name string
		req  chatcore.MessagesRequest
		msg  string
	}{
		{"bad anchor", chatcore.MessagesRequest{Anchor: new("soon")}, "Invalid anchor"},
		{"negative num_before", chatcore.MessagesRequest{NumBefore: new(-1)}, "num_before is too small"},
		{"negative num_after", chatcore.MessagesRequest{NumAfter: new(-1)}, "num_after is too small"},
		{"too many", chatcore.MessagesRequest{NumBefore: new(1001)}, "Too many messages requested (maximum 1000)."},
		{"unknown operator", chatcore.MessagesRequest{Narrow: []chatcore.NarrowTerm{{Operator: "color", Operand: json.RawMessage(`"red"`)}}},
			"Invalid narrow operator: unknown operator color"},
		{"unknown channel", chatcore.MessagesRequest{Narrow: []chatcore.NarrowTerm{{Operator: "channel", Operand: json.RawMessage(`"Nowhere"`)}}},
			"Invalid narrow operator: unknown channel"},
		{"channel of another realm", chatcore.MessagesRequest{Narrow: []chatcore.NarrowTerm{{Operator: "stream", Operand: json.RawMessage(fmt.Sprint(e.strangerStream.ID))}}},
			"Invalid narrow operator: unknown channel"},
		{"user of another realm", chatcore.MessagesRequest{Narrow: []chatcore.NarrowTerm{{Operator: "dm", Operand: json.RawMessage(fmt.Sprintf("[%d]", e.stranger.ID))}}},
			fmt.Sprintf("Invalid narrow operator: unknown user ID %d", e.stranger.ID)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.Messages(ctx, e.other.ID, tc.req)
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
		})
	}
}

func TestMessagesNarrowsAndVisibility(t *testing.T) {
	e := newMxEnv(t)
	ctx := context.Background()
	alpha1 := e.send(t, e.member, e.public, "Straße", "a1")
	beta := e.send(t, e.member, e.public, "beta", "b")
	alpha2 := e.send(t, e.other, e.public, "STRASSE", "a2")
	secret := e.send(t, e.member, e.private, "Straße", "s")
	early := e.send(t, e.member, e.protected, "t", "early")
	d1 := e.dm(t, e.member, "d1", e.other)
	group := e.dm(t, e.member, "g", e.other, e.admin)
	d2 := e.dm(t, e.other, "d2", e.member)
	e.subscribe(t, e.protected, e.other, early+1)
	late := e.send(t, e.member, e.protected, "t", "late")

	fetch := func(t *testing.T, viewer *chatcore.User, narrow ...chatcore.NarrowTerm) []chatcore.MessageID {
		is := is.New(t)
		res, err := e.svc.Messages(ctx, viewer.ID, chatcore.MessagesRequest{
			Anchor: new("newest"), NumBefore: new(100), Narrow: narrow})
		is.NoErr(err) // fetched
		return mxIDs(res.Messages)
	}
	term := func(op, operand string) chatcore.NarrowTerm {
		return chatcore.NarrowTerm{Operator: op, Operand: json.RawMessage(operand)}
	}
	t.Run("channel and topic, case-insensitive", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.other, term("channel", `"verona"`), term("topic", `"strasse"`))
		is.Equal(got, []chatcore.MessageID{alpha1, alpha2}) // Unicode case folding
	})
	t.Run("topic across channels", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.member, term("topic", `"straße"`))
		is.Equal(got, []chatcore.MessageID{alpha1, alpha2, secret}) // every visible channel
		got = fetch(t, e.other, term("topic", `"straße"`))
		is.Equal(got, []chatcore.MessageID{alpha1, alpha2}) // not the private channel
	})
	t.Run("channel by id", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.other, term("stream", fmt.Sprint(e.public.ID)))
		is.Equal(got, []chatcore.MessageID{alpha1, beta, alpha2}) // the channel's messages
	})
	t.Run("private channel without access", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.other, term("channel", `"secret"`))
		is.Equal(len(got), 0) // nothing visible
	})
	t.Run("protected history", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.other, term("channel", `"vault"`))
		is.Equal(got, []chatcore.MessageID{late}) // only after joining
		got = fetch(t, e.member, term("channel", `"vault"`))
		is.Equal(got, []chatcore.MessageID{early, late}) // the original subscriber sees both
	})
	t.Run("one-to-one conversation", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.member, term("dm", fmt.Sprintf("[%d]", e.other.ID)))
		is.Equal(got, []chatcore.MessageID{d1, d2}) // both directions, not the group
		got = fetch(t, e.other, term("dm", fmt.Sprintf("[%d]", e.member.ID)))
		is.Equal(got, []chatcore.MessageID{d1, d2}) // the same conversation from the other side
	})
	t.Run("group conversation", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.admin, term("dm", fmt.Sprintf("[%d,%d]", e.other.ID, e.member.ID)))
		is.Equal(got, []chatcore.MessageID{group}) // the group only
	})
	t.Run("no conversation yet", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.guest, term("dm", fmt.Sprintf("[%d]", e.admin.ID)))
		is.Equal(len(got), 0) // empty
	})
	t.Run("sender", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.member, term("sender", fmt.Sprint(e.other.ID)))
		is.Equal(got, []chatcore.MessageID{alpha2, d2}) // only other's messages
		got = fetch(t, e.member, term("sender", fmt.Sprintf("%q", e.other.Email)), term("channel", `"Verona"`))
		is.Equal(got, []chatcore.MessageID{alpha2}) // combined with a channel
	})
	t.Run("is:dm", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.other, term("is", `"dm"`))
		is.Equal(got, []chatcore.MessageID{d1, group, d2}) // direct messages only
	})
	t.Run("no narrow", func(t *testing.T) {
		is := is.New(t)
		got := fetch(t, e.other)
		is.Equal(got, []chatcore.MessageID{alpha1, beta, alpha2, d1, group, d2, late}) // everything other may see
		got = fetch(t, e.guest)
		is.Equal(len(got), 0) // a guest with no subscriptions sees nothing
		got = fetch(t, e.stranger)
		is.Equal(len(got), 0) // another realm sees nothing
	})
	t.Run("hidden messages do not shorten the page", func(t *testing.T) {
		is := is.New(t)
		res, err := e.svc.Messages(ctx, e.other.ID, chatcore.MessagesRequest{Anchor: new("newest"), NumBefore: new(3)})
		is.NoErr(err)                                                        // fetched
		is.Equal(mxIDs(res.Messages), []chatcore.MessageID{group, d2, late}) // skips what other cannot see
	})
}

func BenchmarkMessagesNewest(b *testing.B) {
	e := newMxEnv(b)
	ctx := context.Background()
	for i := range 2000 {
		st := e.public
		if i%4 == 0 {
			st = e.private
		}
		e.send(b, e.member, st, fmt.Sprint("topic ", i%10), fmt.Sprint("message ", i))
	}
	req := chatcore.MessagesRequest{Anchor: new("newest"), NumBefore: new(100)}
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.svc.Messages(ctx, e.other.ID, req)
		if err != nil || len(res.Messages) != 100 {
			b.Fatal(err, len(res.Messages))
		}
	}
}

// TestDirectNarrowReadsWithoutWriting checks that GET /messages with a dm
// narrow reads without writing, also for a conversation that does not exist.
func TestDirectNarrowReadsWithoutWriting(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		req := chatcore.MessagesRequest{
			Anchor: new("newest"), NumBefore: new(10),
			NarrowJSON: json.RawMessage(fmt.Sprintf(`[{"operator":"dm","operand":[%d]}]`, e.ophelia.ID)),
		}
		before := e.store.updates.Load()
		res, err := e.svc.Messages(ctx, e.ham.ID, req)
		is.NoErr(err)                               // a conversation that does not exist yet is no error
		is.Equal(len(res.Messages), 0)              // it has no messages
		is.True(res.FoundOldest && res.FoundNewest) // and the whole (empty) history was seen
		is.Equal(e.store.updates.Load(), before)    // the read wrote nothing
		is.NoErr(e.base.View(ctx, func(tx chatcore.Tx) error {
			rs, err := tx.DirectRecipients(ctx, e.ophelia.ID)
			is.NoErr(err)        // conversations listed
			is.Equal(len(rs), 0) // no conversation was created
			return nil
		})) // the store is unchanged

		id, err := e.svc.SendMessage(ctx, e.ophelia.ID, chatcore.SendMessageRequest{
			Type: "direct", To: new(fmt.Sprintf("[%d]", e.ham.ID)), Content: "hi",
		})
		is.NoErr(err) // direct message sent
		before = e.store.updates.Load()
		res, err = e.svc.Messages(ctx, e.ham.ID, req)
		is.NoErr(err)                            // the existing conversation is read
		is.Equal(len(res.Messages), 1)           // with its message
		is.Equal(res.Messages[0].ID, id)         // the one sent
		is.Equal(e.store.updates.Load(), before) // still without a write
	})
}

// TestLegacyNarrowForm checks the legacy list-of-pairs narrow form, alone and
// mixed with the object form, and Zulip's errors for malformed narrows.
func TestLegacyNarrowForm(t *testing.T) {
	is := is.New(t)
	e := newVeronaEnv(t, memory.New())
	ctx := context.Background()
	x := e.post(t, e.ham, "x")
	e.post(t, e.ham, "y")
	fetch := func(narrow string) ([]chatcore.MessageID, error) {
		res, err := e.svc.Messages(ctx, e.ham.ID, chatcore.MessagesRequest{
			Anchor: new("newest"), NumBefore: new(10), NarrowJSON: json.RawMessage(narrow),
		})
		var ids []chatcore.MessageID
		for _, m := range res.Messages {
			ids = append(ids, m.ID)
		}
		return ids, err
	}
	legacy, err := fetch(`[["stream","Verona"],["topic","X"]]`)
	is.NoErr(err)                             // the legacy pair form is accepted
	is.Equal(legacy, []chatcore.MessageID{x}) // and narrows like the object form
	dict, err := fetch(`[{"operator":"stream","operand":"Verona"},{"operator":"topic","operand":"X"}]`)
	is.NoErr(err)          // the object form is accepted
	is.Equal(dict, legacy) // both forms give the same messages
	mixed, err := fetch(` [ ["topic", "x"], {"operator":"channel","operand":` + fmt.Sprint(e.general.ID) + `,"negated":false} ] `)
	is.NoErr(err)           // both forms may be mixed
	is.Equal(mixed, legacy) // to the same effect
	for _, none := range []string{``, `null`, `[]`} {
		all, err := fetch(none)
		is.NoErr(err)         // no narrow
		is.Equal(len(all), 2) // every message
	}
	combined, err := e.svc.Messages(ctx, e.ham.ID, chatcore.MessagesRequest{
		Anchor: new("newest"), NumBefore: new(10),
		Narrow:     []chatcore.NarrowTerm{{Operator: "topic", Operand: json.RawMessage(`"x"`)}},
		NarrowJSON: json.RawMessage(`[["stream","Verona"]]`),
	})
	is.NoErr(err)                        // Go terms and wire terms together
	is.Equal(len(combined.Messages), 1)  // all terms apply
	is.Equal(combined.Messages[0].ID, x) // the topic term from Narrow still filters

	for _, tc := range []struct {
		name, narrow, msg string
	}{
		{"not a list", `{"operator":"stream","operand":"Verona"}`, "narrow is not a list"},
		{"string", `"stream:Verona"`, "narrow is not a list"},
		{"invalid JSON", `[["stream"`, "narrow is not valid JSON"},
		{"short pair", `[["stream"]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"long pair", `[["stream","Verona","x"]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"numeric operand in a pair", `[["stream",5]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"null in a pair", `[["stream",null]]`, "Invalid narrow[0]: Value error, element is not a string pair"},
		{"second element", `[["stream","Verona"],[1,"x"]]`, "Invalid narrow[1]: Value error, element is not a string pair"},
		{"number element", `[5]`, "Invalid narrow[0]: Value error, dict or list required"},
		{"string element", `["stream"]`, "Invalid narrow[0]: Value error, dict or list required"},
		{"missing operand", `[{"operator":"stream"}]`, "Invalid narrow[0]: Value error, operand is missing"},
		{"null operand", `[{"operator":"stream","operand":null}]`, "Invalid narrow[0]: Value error, operand is missing"},
		{"missing operator", `[{"operand":"Verona"}]`, "Invalid narrow[0]: Value error, operator is missing"},
		{"operator not a string", `[{"operator":1,"operand":"Verona"}]`, `narrow[0]["operator"] is not a string`},
		{"negated not a boolean", `[{"operator":"stream","operand":"Verona","negated":"no"}]`, `narrow[0]["negated"] is not a boolean`},
		{"negated null", `[{"operator":"stream","operand":"Verona","negated":null}]`, `narrow[0]["negated"] is not a boolean`},
		{"unknown operator in a pair", `[["color","red"]]`, "Invalid narrow operator: unknown operator color"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := fetch(tc.narrow)
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
		})
	}
}

// TestLegacyNarrowOverTheWire checks that DecodeParams keeps the wire narrow
// as raw JSON.
func TestLegacyNarrowOverTheWire(t *testing.T) {
	// The wire parameter reaches the request through DecodeParams as raw JSON.
	is := is.New(t)
	var req chatcore.MessagesRequest
	ignored, err := wire.DecodeParams(map[string][]string{"narrow": {`[["stream","Verona"]]`}}, &req)
	is.NoErr(err)                                             // a list of pairs decodes
	is.Equal(len(ignored), 0)                                 // narrow is a known parameter
	is.Equal(string(req.NarrowJSON), `[["stream","Verona"]]`) // kept as raw JSON
	is.Equal(req.Narrow, nil)                                 // Narrow is for Go callers only
}
