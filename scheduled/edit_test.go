package scheduled_test

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/matryer/is"
)

// editAt is a delivery time d after the start, for an edit request.
func editAt(d time.Duration) *time.Time { return new(chattest.Epoch.Add(d)) }

func TestEditScheduledMessage(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		w, c := newCast(t, open)
		denmark := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		sid := strconv.FormatInt(int64(denmark.ID), 10)
		schedule := func(tb testing.TB) chatcore.ScheduledMessageID {
			tb.Helper()
			id, err := scheduled.Create(tb.Context(), w.Svc, c.Member.ID, scheduleAt("stream", sid, new("castle"), "hello", time.Hour))
			is.New(tb).NoErr(err) // scheduling succeeds
			return id
		}

		t.Run("content, topic and time", func(t *testing.T) {
			is := is.New(t)
			id := schedule(t)
			w.Events.Reset()
			err := scheduled.Edit(t.Context(), w.Svc, c.Member.ID, id, scheduled.EditRequest{
				Content: new("**bold**  \n"), Topic: new("moat"), DeliverAt: editAt(2 * time.Hour),
			})
			is.NoErr(err) // the edit succeeds
			row := w.Scheduled(t, id)
			is.Equal(row.Content, "**bold**")                               // content normalised as sending does
			is.Equal(row.RenderedContent, "<p><strong>bold</strong></p>")   // and rendered again
			is.Equal(row.Topic, "moat")                                     // the new topic
			is.Equal(row.StreamID, denmark.ID)                              // the channel kept
			is.True(row.DeliverAt.Equal(chattest.Epoch.Add(2 * time.Hour))) // the new time
			evs := w.Events.OfType("scheduled_messages", "op", "update")
			is.Equal(len(evs), 1)                                    // one update event
			is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Member.ID}) // to the sender only
			v := evs[0].Data["scheduled_message"].(scheduled.View)
			is.Equal(v.Content, "**bold**")                                                // carrying the new state
			is.Equal(v.ScheduledDeliveryTimestamp, chattest.Epoch.Add(2*time.Hour).Unix()) // with the new time
		})

		t.Run("to a direct message and back", func(t *testing.T) {
			is := is.New(t)
			id := schedule(t)
			before := w.Scheduled(t, id).RenderedContent
			err := scheduled.Edit(t.Context(), w.Svc, c.Member.ID, id, scheduled.EditRequest{
				Type: new("direct"), To: json.RawMessage(idList(c.Moderator.ID, c.Owner.ID)),
			})
			is.NoErr(err) // the type changes
			row := w.Scheduled(t, id)
			is.Equal(row.Type, chatcore.MessageTypePrivate)                    // now a direct message
			is.Equal(row.DirectMembers, sortedIDs(c.Moderator.ID, c.Owner.ID)) // to the new recipients
			is.Equal(row.StreamID, chatcore.StreamID(0))                       // no channel left
			is.Equal(row.RenderedContent, before)                              // content untouched
			err = scheduled.Edit(t.Context(), w.Svc, c.Member.ID, id, scheduled.EditRequest{
				Type: new("channel"), To: json.RawMessage(sid), Topic: new("keep"),
			})
			is.NoErr(err) // and back to a channel
			row = w.Scheduled(t, id)
			is.Equal(row.Type, chatcore.MessageTypeStream) // a channel message again
			is.Equal(row.Topic, "keep")                    // with the new topic
			is.Equal(len(row.DirectMembers), 0)            // no recipients left
		})

		t.Run("topic of a direct message is ignored", func(t *testing.T) {
			is := is.New(t)
			id, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("direct", idList(c.Moderator.ID), nil, "psst", time.Hour))
			is.NoErr(err)
			is.NoErr(scheduled.Edit(t.Context(), w.Svc, c.Member.ID, id, scheduled.EditRequest{Topic: new("ignored")})) // accepted
			is.Equal(w.Scheduled(t, id).Topic, "")                                                                      // and ignored, as in Zulip
		})

		t.Run("a failed message edited into the future is retried", func(t *testing.T) {
			is := is.New(t)
			id := schedule(t)
			w.UpdateScheduled(t, id, func(m *chatcore.ScheduledMessage) { m.Failed, m.FailureMessage = true, "boom" })
			err := scheduled.Edit(t.Context(), w.Svc, c.Member.ID, id, scheduled.EditRequest{Content: new("again")})
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Scheduled delivery time must be in the future.")
			is.Equal(w.Scheduled(t, id).Failed, true)                                                                              // still failed without a new time
			is.NoErr(scheduled.Edit(t.Context(), w.Svc, c.Member.ID, id, scheduled.EditRequest{DeliverAt: editAt(3 * time.Hour)})) // a new time
			row := w.Scheduled(t, id)
			is.Equal(row.Failed, false)      // queued again
			is.Equal(row.FailureMessage, "") // the failure forgotten
			w.Clock.Advance(3*time.Hour + time.Second)
			_, err = scheduled.DeliverDue(t.Context(), w.Svc)
			is.NoErr(err)                                // delivery runs
			is.Equal(w.Scheduled(t, id).Delivered, true) // and sends it
		})
	})
}

func TestEditScheduledMessageErrors(t *testing.T) {
	w, c := newCast(t, chattest.New)
	denmark := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	secret := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Secret", InviteOnly: true, Subscribers: []*chatcore.User{c.Admin}})
	sid := strconv.FormatInt(int64(denmark.ID), 10)
	id, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", sid, new("castle"), "hello", time.Hour))
	is.New(t).NoErr(err)
	sent, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", sid, new("castle"), "sent", time.Hour))
	is.New(t).NoErr(err)
	w.UpdateScheduled(t, sent, func(m *chatcore.ScheduledMessage) { m.Delivered = true })
	theirs, err := scheduled.Create(t.Context(), w.Svc, c.Admin.ID, scheduleAt("stream", sid, new("castle"), "theirs", time.Hour))
	is.New(t).NoErr(err)

	type req = scheduled.EditRequest
	tests := []struct {
		name string
		id   chatcore.ScheduledMessageID
		req  req
		code chatcore.Code
		kind chatcore.Kind
		msg  string
	}{
		{"nothing", id, req{}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Nothing to change"},
		{"nothing, unknown id", 999999, req{}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Nothing to change"},
		{"bad to", id, req{To: json.RawMessage(`"x"`)}, chatcore.CodeBadRequest, chatcore.KindInvalid, "to is not an integer"},
		{"bad type", id, req{Type: new("pigeon"), To: json.RawMessage(sid)}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid type: Value error, Not in the list of possible values"},
		{"long to", id, req{To: json.RawMessage(jsonIDs(chatcore.MaxDirectRecipients + 1))}, chatcore.CodeBadRequest, chatcore.KindInvalid, "to is too long (limit: 1000 items)"},
		{"type without to", id, req{Type: new("direct")}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Recipient required when updating type of scheduled message."},
		{"channel without topic", id, req{Type: new("stream"), To: json.RawMessage(sid)}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Topic required when updating scheduled message type to channel."},
		{"past", id, req{DeliverAt: editAt(0)}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Scheduled delivery time must be in the future."},
		{"unknown id", 999999, req{Content: new("x")}, chatcore.CodeBadRequest, chatcore.KindNotFound, "Scheduled message does not exist"},
		{"someone else's", theirs, req{Content: new("x")}, chatcore.CodeBadRequest, chatcore.KindNotFound, "Scheduled message does not exist"},
		{"already sent", sent, req{Content: new("x")}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Scheduled message was already sent"},
		{"list for a channel", id, req{To: json.RawMessage("[1]")}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid data type for channel ID"},
		{"integer for a direct message", id, req{Type: new("private"), To: json.RawMessage(sid)}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid data type for recipients"},
		{"private channel", id, req{To: json.RawMessage(strconv.FormatInt(int64(secret.ID), 10))}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Not authorized to send to channel 'Secret'"},
		{"unknown channel", id, req{To: json.RawMessage("999999")}, chatcore.CodeStreamDoesNotExist, chatcore.KindInvalid, "Channel with ID '999999' does not exist"},
		{"unknown user", id, req{Type: new("direct"), To: json.RawMessage("[999999]")}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid user ID 999999"},
		{"empty content", id, req{Content: new(" \n ")}, chatcore.CodeBadRequest, chatcore.KindInvalid, "Message must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w.Events.Reset()
			err := scheduled.Edit(t.Context(), w.Svc, c.Member.ID, tt.id, tt.req)
			chattest.WantError(t, err, tt.code, tt.kind, tt.msg)
			is.New(t).Equal(len(w.Events.OfType("scheduled_messages")), 0) // no event
		})
	}
	is := is.New(t)
	row := w.Scheduled(t, id)
	is.Equal(row.Content, "hello") // nothing was changed
	is.Equal(row.Topic, "castle")  // by any refused edit
}

// jsonIDs is a JSON list of n distinct ids.
func jsonIDs(n int) string {
	ids := make([]chatcore.UserID, n)
	for i := range ids {
		ids[i] = chatcore.UserID(100000 + i)
	}
	return fmt.Sprint(idList(ids...))
}
