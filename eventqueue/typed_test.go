package eventqueue_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/edits"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/reactions"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/typing"
	"github.com/matryer/is"
)

// TestDecodeTypedEvents produces events of every kind the operations here
// emit, decodes each with eventqueue.Decode and checks that its Go type
// holds every key of the event's JSON (decoding again with unknown fields
// refused), so a field added to an event fails here until its struct has it.
func TestDecodeTypedEvents(t *testing.T) {
	chattest.EachStore(t, testDecodeTypedEvents)
}

func testDecodeTypedEvents(t *testing.T, open chattest.Open) {
	is := is.New(t)
	ctx := context.Background()
	e := newEventsWorld(t, open)
	c, svc := e.c, e.w.Svc
	q := register(t, e.w, c.Member, eventqueue.QueueOptions{})

	id := e.w.Send(t, c.Owner, e.general, "lunch", "**noon**")
	e.w.DM(t, c.Owner, "hi", c.Member)
	is.NoErr(reactions.Add(ctx, svc, c.Owner.ID, id, reactions.AddRequest{EmojiName: "smile"}))
	_, err := messages.UpdateFlags(ctx, svc, c.Member.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "starred"})
	is.NoErr(err)
	is.NoErr(typing.Send(ctx, svc, c.Owner.ID, typing.Request{Type: "direct", Op: "start", To: []chatcore.UserID{c.Member.ID}}))
	is.NoErr(edits.Update(ctx, svc, c.Owner.ID, id, edits.Request{Content: new("**one**")}))
	is.NoErr(edits.Update(ctx, svc, c.Owner.ID, id, edits.Request{Topic: new("dinner"), PropagateMode: new("change_all")}))
	is.NoErr(accounts.UpdateSettings(ctx, svc, c.Member.ID, accounts.SettingsUpdate{EnterSends: new(true)}))
	_, err = linkifiers.Add(ctx, svc, c.Admin.ID, "#(?P<id>[0-9]+)", "https://t.example/{id}")
	is.NoErr(err)
	_, err = scheduled.Create(ctx, svc, c.Member.ID, scheduled.CreateRequest{
		Type: "stream", To: json.RawMessage(idText(e.general.ID)), Topic: new("later"), Content: "soon",
		DeliverAt: e.w.Clock.Current().Add(time.Hour),
	})
	is.NoErr(err)
	_, err = scheduled.CreateReminder(ctx, svc, c.Member.ID, id, e.w.Clock.Current().Add(time.Hour), new("note"))
	is.NoErr(err)
	_, err = channels.DeleteTopic(ctx, svc, c.Admin.ID, e.general.ID, "dinner")
	is.NoErr(err)
	is.NoErr(accounts.DeactivateUser(ctx, svc, c.Admin.ID, c.Moderator.ID, accounts.DeactivateUserRequest{}))
	is.NoErr(eventqueue.AnnounceRestart(ctx, svc))

	res, err := q.Hub.GetEvents(ctx, c.Member.ID, eventqueue.EventsRequest{QueueID: q.ID, LastEventID: new(int64(-1))})
	is.NoErr(err)
	seen := map[string]bool{}
	for _, qe := range res.Events {
		ev, err := eventqueue.Decode(qe)
		is.NoErr(err)
		if _, unknown := ev.(*eventqueue.UnknownEvent); unknown {
			t.Errorf("event type %q has no Go type: %s", qe.Type, qe.JSON)
			continue
		}
		is.Equal(ev.EventID(), qe.ID)
		is.Equal(ev.EventType(), qe.Type)
		// Every key of the JSON has a field.
		strict := reflect.New(reflect.TypeOf(ev).Elem()).Interface()
		dec := json.NewDecoder(bytes.NewReader(qe.JSON))
		dec.DisallowUnknownFields()
		if err := dec.Decode(strict); err != nil {
			t.Errorf("%s: %v in %s", qe.Type, err, qe.JSON)
		}
		seen[qe.Type] = true
	}
	for _, want := range []string{"message", "reaction", "update_message_flags", "typing", "update_message", "user_settings",
		"realm_linkifiers", "realm_filters", "scheduled_messages", "reminders", "delete_message", "stream", "realm_user", "restart"} {
		if !seen[want] {
			t.Errorf("no %q event was produced: the test no longer covers it", want)
		}
	}
	for _, ev := range res.Events {
		if ev.Type != "message" {
			continue
		}
		typed, _ := eventqueue.Decode(ev)
		m := typed.(*eventqueue.MessageEvent)
		is.Equal(m.Message.SenderID, c.Owner.ID) // typed fields filled
		break
	}

	unknown, err := eventqueue.Decode(eventqueue.QueueEvent{ID: 7, Type: "future_thing", JSON: json.RawMessage(`{"id":7,"type":"future_thing"}`)})
	is.NoErr(err)
	u, ok := unknown.(*eventqueue.UnknownEvent)
	is.True(ok) // an unknown type stays raw
	is.Equal(string(u.JSON), `{"id":7,"type":"future_thing"}`)
}
