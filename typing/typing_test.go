package typing_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/typing"
	"github.com/matryer/is"
)

func TestTyping(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newTypingWorld(t, open)
		c, ctx, svc := e.c, context.Background(), e.w.Svc
		member := e.w.Register(t, c.Member, eventqueue.QueueOptions{})
		memberStream := e.w.Register(t, c.Member, eventqueue.QueueOptions{Capabilities: eventqueue.ClientCapabilities{StreamTypingNotifications: true, EmptyTopicName: true}})
		owner := e.w.Register(t, c.Owner, eventqueue.QueueOptions{Capabilities: eventqueue.ClientCapabilities{StreamTypingNotifications: true}})
		admin := e.w.Register(t, c.Admin, eventqueue.QueueOptions{Capabilities: eventqueue.ClientCapabilities{StreamTypingNotifications: true}})

		is.NoErr(typing.Send(ctx, svc, c.Owner.ID, typing.Request{Op: "start", To: []chatcore.UserID{c.Member.ID}})) // direct typing
		evs := member.Poll(t)
		is.Equal(chattest.EventTypes(evs), []string{"typing"}) // the recipient gets it
		is.Equal(evs[0]["op"], "start")
		is.Equal(evs[0]["message_type"], "direct")
		is.Equal(evs[0]["sender"], map[string]any{"user_id": float64(c.Owner.ID), "email": c.Owner.Email})
		is.Equal(len(evs[0]["recipients"].([]any)), 2)                   // the sender is among the recipients
		is.Equal(chattest.EventTypes(owner.Poll(t)), []string{"typing"}) // and gets it too
		is.Equal(len(admin.Poll(t)), 0)                                  // nobody else

		is.NoErr(typing.Send(ctx, svc, c.Owner.ID, typing.Request{Type: "stream", Op: "stop", StreamID: &e.general.ID, Topic: new("general chat")}))
		evs = memberStream.Poll(t)
		is.Equal(chattest.EventTypes(evs)[1], "typing") // channel typing with the capability (after the direct one)
		is.Equal(evs[1]["message_type"], "stream")
		is.Equal(evs[1]["topic"], "") // the realm's name for the empty topic is the empty topic (empty_topic_name)
		is.Equal(int64(evs[1]["stream_id"].(float64)), int64(e.general.ID))
		is.Equal(len(member.Poll(t)), 0) // no channel typing without stream_typing_notifications
		evs = admin.Poll(t)
		is.Equal(chattest.EventTypes(evs), []string{"typing"}) // every subscriber
		is.Equal(evs[0]["topic"], "general chat")              // without empty_topic_name, the realm's name for the empty topic

		// receives_typing_notifications off: nothing for that user.
		is.NoErr(accounts.UpdateSettings(ctx, svc, c.Admin.ID, accounts.SettingsUpdate{ReceivesTypingNotifications: new(false)}))
		admin.Poll(t)
		is.NoErr(typing.Send(ctx, svc, c.Owner.ID, typing.Request{Op: "start", To: []chatcore.UserID{c.Admin.ID}}))
		is.Equal(len(admin.Poll(t)), 0) // not for a user who does not receive typing notifications

		bad := []struct {
			who  *chatcore.User
			req  typing.Request
			code chatcore.Code
			msg  string
		}{
			{c.Owner, typing.Request{Op: "start", Type: "huddle"}, chatcore.CodeBadRequest, "Invalid type"},
			{c.Owner, typing.Request{Op: "begin", To: []chatcore.UserID{c.Member.ID}}, chatcore.CodeBadRequest, "Invalid op"},
			{c.Owner, typing.Request{Op: "start"}, chatcore.CodeBadRequest, "Missing 'to' argument"},
			{c.Owner, typing.Request{Op: "start", To: []chatcore.UserID{}}, chatcore.CodeBadRequest, "Empty 'to' list"},
			{c.Owner, typing.Request{Op: "start", To: []chatcore.UserID{c.Stranger.ID}}, chatcore.CodeBadRequest, "Invalid user ID " + strconv.FormatInt(int64(c.Stranger.ID), 10)},
			{c.Owner, typing.Request{Op: "start", Type: "channel", Topic: new("t")}, chatcore.CodeBadRequest, "Missing 'stream_id' argument"},
			{c.Owner, typing.Request{Op: "start", Type: "channel", StreamID: &e.general.ID}, chatcore.CodeBadRequest, "Missing topic"},
			{c.Owner, typing.Request{Op: "start", Type: "stream", StreamID: &e.elsewere.ID, Topic: new("t")}, chatcore.CodeBadRequest, "Invalid channel ID"},
			{c.Admin, typing.Request{Op: "start", Type: "stream", StreamID: &e.secret.ID, Topic: new("t")}, chatcore.CodeBadRequest, "Invalid channel ID"},
		}
		for _, b := range bad {
			chattest.WantError(t, typing.Send(ctx, svc, b.who.ID, b.req), b.code, chatcore.KindInvalid, b.msg)
		}
		is.NoErr(accounts.UpdateSettings(ctx, svc, c.Owner.ID, accounts.SettingsUpdate{SendPrivateTypingNotifications: new(false), SendStreamTypingNotifications: new(false)}))
		chattest.WantError(t, typing.Send(ctx, svc, c.Owner.ID, typing.Request{Op: "start", To: []chatcore.UserID{c.Member.ID}}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "User has disabled typing notifications for direct messages")
		chattest.WantError(t, typing.Send(ctx, svc, c.Owner.ID, typing.Request{Op: "start", Type: "stream", StreamID: &e.general.ID, Topic: new("t")}),
			chatcore.CodeBadRequest, chatcore.KindInvalid, "User has disabled typing notifications for channel messages")
	})
}

func TestEventsEmptyTopicName(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newTypingWorld(t, open)
		c := e.c
		legacy := e.w.Register(t, c.Member, eventqueue.QueueOptions{})
		modern := e.w.Register(t, c.Member, eventqueue.QueueOptions{Capabilities: eventqueue.ClientCapabilities{EmptyTopicName: true}})
		e.w.Send(t, c.Owner, e.general, "", "no topic")
		is.Equal(legacy.Poll(t)[0]["message"].(map[string]any)["subject"], "general chat") // the realm's display name without the capability
		is.Equal(modern.Poll(t)[0]["message"].(map[string]any)["subject"], "")             // the empty topic with it
	})
}

// typingWorld is a realm with a public and a private channel, and a channel
// of another realm.
type typingWorld struct {
	w                         *chattest.World
	c                         *chattest.Cast
	general, secret, elsewere *chatcore.Stream
}

func newTypingWorld(t *testing.T, open chattest.Open) *typingWorld {
	w := open(t)
	c := w.SeedCast(t)
	ch := w.SeedChannels(t, c)
	return &typingWorld{w: w, c: c, general: ch.General, secret: ch.Secret, elsewere: ch.Elsewhere}
}

func TestTypingRecipients(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w := open(t)
		c := w.SeedCast(t)
		ctx := context.Background()
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Guest.ID, accounts.SettingsUpdate{ReceivesTypingNotifications: new(false)})) // opts out
		got, err := typing.Recipients(ctx, w.Svc, []chatcore.UserID{c.Member.ID, c.Guest.ID, c.Deactivated.ID, 9999, c.Admin.ID, c.Member.ID})
		is.NoErr(err)                                             // readable
		is.Equal(got, []chatcore.UserID{c.Admin.ID, c.Member.ID}) // active, opted in, sorted, unique
		got, err = typing.Recipients(ctx, w.Svc, nil)
		is.NoErr(err)         // nothing to filter
		is.Equal(len(got), 0) // nobody
	})
}
