package chatcore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

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
