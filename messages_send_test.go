package chatcore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

func TestSendMessageContentRules(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	send := func(content string) (chatcore.MessageID, error) {
		return w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{
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
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
		})
	}
	t.Run("trailing whitespace and leading newlines are dropped", func(t *testing.T) {
		is := is.New(t)
		id, err := send("\n\nhello  \n")
		is.NoErr(err) // sent
		_, raw, err := messages.One(ctx, w.Svc, org.Member.ID, id, messages.OneRequest{})
		is.NoErr(err)          // readable
		is.Equal(raw, "hello") // stripped
	})
	t.Run("long content is truncated", func(t *testing.T) {
		is := is.New(t)
		id, err := send(strings.Repeat("é", 6000)) // 12000 bytes
		is.NoErr(err)                              // sent, not refused
		_, raw, err := messages.One(ctx, w.Svc, org.Member.ID, id, messages.OneRequest{})
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
		_, raw, err := messages.One(ctx, w.Svc, org.Member.ID, id, messages.OneRequest{})
		is.NoErr(err)       // readable
		is.Equal(raw, body) // untouched
	})
}

func TestSendMessageTopicRules(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	send := func(topic string) (chatcore.MessageID, error) {
		return w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{
			Type: "stream", To: new("Verona"), Topic: new(topic), Content: "x"})
	}
	topicOf := func(t *testing.T, id chatcore.MessageID) string {
		is := is.New(t)
		res, err := messages.Get(ctx, w.Svc, org.Member.ID, messages.Request{
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
		res, err := messages.Get(ctx, w.Svc, org.Member.ID, messages.Request{Anchor: new(fmt.Sprint(id))})
		is.NoErr(err)                                     // fetched
		is.Equal(res.Messages[0].Subject, "general chat") // shown by name without allow_empty_topic_name
	})
	t.Run("control character", func(t *testing.T) {
		_, err := send("abc\ndef")
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid character in topic, at position 4!")
	})
	t.Run("missing topic", func(t *testing.T) {
		_, err := w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{
			Type: "stream", To: new("Verona"), Content: "x"})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing topic")
	})
}

func TestSendMessageChannelRules(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	send := func(u *chatcore.User, typ, to string) (chatcore.MessageID, error) {
		return w.Svc.SendMessage(ctx, u.ID, chatcore.SendMessageRequest{
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
		{"unknown name", org.Member, "stream", "Nowhere", chatcore.CodeStreamDoesNotExist, "Channel 'Nowhere' does not exist"},
		{"unknown name is escaped", org.Member, "stream", "<b>", chatcore.CodeStreamDoesNotExist, "Channel '&lt;b&gt;' does not exist"},
		{"unknown id", org.Member, "stream", "999999", chatcore.CodeStreamDoesNotExist, "Channel with ID '999999' does not exist"},
		{"channel of another realm by id", org.Member, "stream", fmt.Sprint(org.StrangerStream.ID), chatcore.CodeStreamDoesNotExist,
			fmt.Sprintf("Channel with ID '%d' does not exist", org.StrangerStream.ID)},
		{"channel of another realm by name", org.Member, "stream", "Denmark", chatcore.CodeStreamDoesNotExist, "Channel 'Denmark' does not exist"},
		{"archived", org.Member, "stream", "old", chatcore.CodeBadRequest, "Not authorized to send to channel 'old'"},
		{"private without subscription", org.Other, "channel", "secret", chatcore.CodeBadRequest, "Not authorized to send to channel 'secret'"},
		{"admin without subscription", org.Admin, "stream", "secret", chatcore.CodeBadRequest, "Not authorized to send to channel 'secret'"},
		{"guest to a public channel without subscription", org.Guest, "stream", "Verona", chatcore.CodeBadRequest, "Not authorized to send to channel 'Verona'"},
		{"two channels", org.Member, "stream", `["Verona","secret"]`, chatcore.CodeBadRequest, "Expected exactly one channel"},
		{"bad indicator", org.Member, "stream", `{"a":1}`, chatcore.CodeBadRequest, "Invalid data type for channel"},
		{"bad type", org.Member, "broadcast", "Verona", chatcore.CodeBadRequest, "Invalid type: Value error, Not in the list of possible values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := send(tc.user, tc.typ, tc.to)
			chattest.WantError(t, err, tc.code, chatcore.KindInvalid, tc.msg)
		})
	}
	for _, tc := range []struct {
		name string
		user *chatcore.User
		typ  string
		to   string
	}{
		{"by name", org.Member, "stream", "Verona"},
		{"by name, case-insensitively", org.Member, "stream", "VERONA"},
		{"by id", org.Member, "channel", fmt.Sprint(org.Public.ID)},
		{"by JSON name", org.Member, "stream", `"Verona"`},
		{"by JSON list", org.Member, "stream", fmt.Sprintf("[%d]", org.Public.ID)},
		{"private with subscription", org.Member, "stream", "secret"},
		{"public without subscription", org.Bot, "stream", "Verona"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := send(tc.user, tc.typ, tc.to)
			is.NoErr(err) // allowed
		})
	}
	t.Run("subscribed guest", func(t *testing.T) {
		is := is.New(t)
		w.Subscribe(t, org.Public, org.Guest, 0)
		_, err := send(org.Guest, "stream", "Verona")
		is.NoErr(err) // a subscribed guest may post
	})
	t.Run("bot through its owner's subscription", func(t *testing.T) {
		is := is.New(t)
		_, err := send(org.Bot, "stream", "secret")
		is.NoErr(err) // the owner is subscribed
	})
	t.Run("missing to", func(t *testing.T) {
		_, err := w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{Type: "stream", Topic: new("t"), Content: "x"})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing channel")
	})
	t.Run("missing type", func(t *testing.T) {
		_, err := w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{To: new("Verona"), Content: "x"})
		chattest.WantError(t, err, chatcore.CodeRequestVariableMissing, chatcore.KindInvalid, "Missing 'type' argument")
	})
	t.Run("deactivated sender", func(t *testing.T) {
		u := w.AddUser(t, org.Realm, "Gone", chatcore.RoleMember)
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { u.IsActive = false; return tx.UpdateUser(ctx, u) })
		_, err := send(u, "stream", "Verona")
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
	})
}

func TestSendDirectMessageRules(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	send := func(typ, to string) (chatcore.MessageID, error) {
		return w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{Type: typ, To: new(to), Content: "x"})
	}
	gone := w.AddUser(t, org.Realm, "Gone", chatcore.RoleMember)
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		gone.IsActive = false
		return tx.UpdateUser(ctx, gone)
	})
	for _, tc := range []struct{ name, to, msg string }{
		{"unknown e-mail", `["nobody@zulip.example.com"]`, "Invalid email 'nobody@zulip.example.com'"},
		{"e-mail of another realm", org.Stranger.Email, fmt.Sprintf("Invalid email '%s'", org.Stranger.Email)},
		{"unknown id", "[999999]", "Invalid user ID 999999"},
		{"id of another realm", fmt.Sprintf("[%d]", org.Stranger.ID), fmt.Sprintf("Invalid user ID %d", org.Stranger.ID)},
		{"deactivated recipient", fmt.Sprintf("[%d]", gone.ID), fmt.Sprintf("'%s' is no longer using Zulip.", gone.Email)},
		{"mixed list", fmt.Sprintf(`[%d, "%s"]`, org.Other.ID, org.Other.Email), "Recipient lists may contain emails or user IDs, but not both."},
		{"empty list", "[]", "Message must have recipients"},
		{"not a list", `{"a":1}`, "Invalid data type for recipients"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := send("private", tc.to)
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
		})
	}
	t.Run("forms of to", func(t *testing.T) {
		is := is.New(t)
		a, err := send("direct", fmt.Sprintf("[%d]", org.Other.ID))
		is.NoErr(err) // JSON list of ids
		b, err := send("private", fmt.Sprintf(`["%s"]`, strings.ToUpper(org.Other.Email)))
		is.NoErr(err) // JSON list of e-mails, case-insensitive
		c, err := send("private", org.Other.Email)
		is.NoErr(err) // a bare e-mail
		va, _, _ := messages.One(ctx, w.Svc, org.Member.ID, a, messages.OneRequest{})
		vb, _, _ := messages.One(ctx, w.Svc, org.Member.ID, b, messages.OneRequest{})
		vc, _, _ := messages.One(ctx, w.Svc, org.Member.ID, c, messages.OneRequest{})
		is.Equal(va.RecipientID, vb.RecipientID) // one conversation
		is.Equal(va.RecipientID, vc.RecipientID) // one conversation
		g, err := send("private", org.Other.Email+", "+org.Admin.Email)
		is.NoErr(err) // comma-separated e-mails make a group
		vg, _, _ := messages.One(ctx, w.Svc, org.Member.ID, g, messages.OneRequest{})
		is.True(vg.RecipientID != va.RecipientID)                           // another conversation
		is.Equal(len(vg.DisplayRecipient.([]chatcore.DisplayRecipient)), 3) // three participants
		self, err := send("private", fmt.Sprintf("[%d]", org.Member.ID))
		is.NoErr(err) // a message to oneself
		vs, _, _ := messages.One(ctx, w.Svc, org.Member.ID, self, messages.OneRequest{})
		is.Equal(len(vs.DisplayRecipient.([]chatcore.DisplayRecipient)), 1) // just the sender
	})
}

func TestSendMessageEventsAndFirstMessageID(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	first := w.Send(t, org.Member, org.Private, "t", "one")
	w.Send(t, org.Member, org.Private, "t", "two")
	var st *chatcore.Stream
	is.NoErr(w.Base.View(ctx, func(tx chatcore.Tx) error {
		var err error
		st, err = tx.Stream(ctx, org.Private.ID)
		return err
	})) // read back
	is.Equal(st.FirstMessageID, first) // set by the first message, kept afterwards

	evs := w.Events.OfType("message")
	is.Equal(len(evs), 2)                                      // one event per message
	is.Equal(evs[0].UserIDs, []chatcore.UserID{org.Member.ID}) // the channel's subscribers
	view, ok := evs[0].Data["message"].(chatcore.MessageView)
	is.True(ok)              // carries the message view
	is.Equal(view.ID, first) // of the sent message

	_, err := w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{Type: "stream", To: new("nowhere"), Topic: new("t"), Content: "x"})
	is.True(err != nil)                          // refused
	is.Equal(len(w.Events.OfType("message")), 2) // no event for a failed send
}

// TestSendMessageAsAuthenticated checks, on every store, that a send that
// names the authenticated sender (SendMessageRequest.Authenticated) stores and
// publishes what a send without it does: the same rendering (a mention
// resolved in the sender's realm) and the same refusal of a deactivated
// sender, decided inside the write transaction.
func TestSendMessageAsAuthenticated(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ham := w.User(t, org.Ham.ID)
		req := chatcore.SendMessageRequest{Type: "stream", To: new("verona"), Topic: new("t"), Content: "hi @**ophelia**"}
		authenticated := req
		authenticated.Authenticated = ham
		with, err := w.Svc.SendMessage(t.Context(), ham.ID, authenticated)
		is.NoErr(err) // sent with the authenticated user
		without, err := w.Svc.SendMessage(t.Context(), ham.ID, req)
		is.NoErr(err) // and without
		views := map[chatcore.MessageID]chatcore.MessageView{}
		for _, ev := range w.Events.OfType("message") {
			v := ev.Data["message"].(chatcore.MessageView)
			views[v.ID] = v
		}
		is.Equal(len(views), 2) // both published
		a, b := views[with], views[without]
		is.Equal(a.Content, b.Content)                       // the same rendering
		is.True(strings.Contains(a.Content, "user-mention")) // the mention resolved

		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			u, err := tx.User(ctx, ham.ID)
			if err != nil {
				return err
			}
			u.IsActive = false
			return tx.UpdateUser(ctx, u)
		})
		_, err = w.Svc.SendMessage(t.Context(), ham.ID, authenticated)
		is.True(err != nil) // deactivated since authentication: refused by the write transaction
	})
}

// TestSendPrerenderFromLinkifierCache checks, on every store, that a send
// by an authenticated user whose content needs no store answer is
// pre-rendered without a transaction once the realm's linkifiers are known,
// and that a linkifier added since is still applied (the write transaction
// sees the newer version and renders again); content with a mention is
// pre-rendered in a View as before.
func TestSendPrerenderFromLinkifierCache(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		counter := &chattest.CountingStore{}
		w, org, _ := newVerona(t, func(tb testing.TB, opts ...chattest.Option) *chattest.World {
			return open(tb, append(opts, chattest.Wrap(func(s chatcore.Store) chatcore.Store { counter.Store = s; return counter }))...)
		})
		ham := w.User(t, org.Ham.ID)
		send := func(content string) chatcore.MessageView {
			t.Helper()
			id, err := w.Svc.SendMessage(t.Context(), ham.ID, chatcore.SendMessageRequest{Type: "stream", To: new("verona"), Topic: new("t"), Content: content, Authenticated: ham})
			is.NoErr(err) // sent
			for _, ev := range w.Events.OfType("message") {
				if v := ev.Data["message"].(chatcore.MessageView); v.ID == id {
					return v
				}
			}
			t.Fatal("no event for the sent message")
			return chatcore.MessageView{}
		}
		send("first: fills the cache")
		views := counter.Count().Views
		send("see ticket #12")
		is.Equal(counter.Count().Views, views) // pre-rendered without a View

		_, err := linkifiers.Add(t.Context(), w.Svc, org.Owner.ID, `#(?P<id>[0-9]+)`, "https://tickets.example.com/{id}")
		is.NoErr(err) // a linkifier added after the cache was filled
		v := send("see ticket #12")
		is.True(strings.Contains(v.Content, "https://tickets.example.com/12")) // still applied

		views = counter.Count().Views
		v = send("hi @**ophelia**")
		is.True(counter.Count().Views > views)               // a mention needs a View
		is.True(strings.Contains(v.Content, "user-mention")) // and is resolved
	})
}
