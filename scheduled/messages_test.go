package scheduled_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/wire"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/matryer/is"
)

// newCast builds a World with open and stores the chattest.Cast in it; opts
// go to the Service.
func newCast(tb testing.TB, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *chattest.Cast) {
	tb.Helper()
	w := open(tb, chattest.With(opts...))
	return w, w.SeedCast(tb)
}

// scheduleAt builds a scheduled-message request delivered d after the start.
func scheduleAt(typ, to string, topic *string, content string, d time.Duration) scheduled.CreateRequest {
	return scheduled.CreateRequest{Type: typ, To: json.RawMessage(to), Topic: topic, Content: content, DeliverAt: chattest.Epoch.Add(d)}
}

// idList formats user ids as the JSON list a client sends.
func idList(ids ...chatcore.UserID) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

func TestCreateScheduledMessage(t *testing.T) {
	w, c := newCast(t, chattest.New)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	sid := strconv.FormatInt(int64(st.ID), 10)

	t.Run("channel message", func(t *testing.T) {
		is := is.New(t)
		w.Events.Reset()
		id, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("stream", sid, new("castle"), "\nhello  \n", time.Hour))
		is.NoErr(err)   // scheduling succeeds
		is.True(id > 0) // an id is assigned
		list, err := scheduled.List(t.Context(), w.Svc, c.Member.ID)
		is.NoErr(err)          // listing succeeds
		is.Equal(len(list), 1) // the new message is listed
		v := list[0]
		is.Equal(v.ScheduledMessageID, id)                                           // its id
		is.Equal(v.Type, chatcore.MessageTypeStream)                                 // wire type "stream"
		is.Equal(v.To, any(st.ID))                                                   // to is the channel id
		is.Equal(*v.Topic, "castle")                                                 // topic
		is.Equal(v.Content, "hello")                                                 // content normalised as sending does
		is.True(strings.Contains(v.RenderedContent, "hello"))                        // rendered content
		is.Equal(v.ScheduledDeliveryTimestamp, chattest.Epoch.Add(time.Hour).Unix()) // UNIX seconds
		is.Equal(v.Failed, false)                                                    // not failed
		evs := w.Events.OfType("scheduled_messages", "op", "add")
		is.Equal(len(evs), 1)                                            // one add event
		is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Member.ID})         // to the sender only
		is.Equal(evs[0].Data["scheduled_messages"], []scheduled.View{v}) // carrying the scheduled message
		is.NoErr(scheduled.Delete(t.Context(), w.Svc, c.Member.ID, id))  // clean up
	})

	t.Run("channel type, empty topic", func(t *testing.T) {
		is := is.New(t)
		id, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("channel", channelTo(t, w, c.Realm, "Denmark"), new("general chat"), "hi", time.Hour))
		is.NoErr(err) // the "channel" type works
		row := w.Scheduled(t, id)
		is.Equal(row.StreamID, st.ID)                                   // the channel
		is.Equal(row.Topic, "")                                         // the display name means the empty topic
		is.Equal(row.Kind, chatcore.ScheduledSendLater)                 // a scheduled message, not a reminder
		is.NoErr(scheduled.Delete(t.Context(), w.Svc, c.Member.ID, id)) // clean up
	})

	dms := []struct {
		name string
		to   []chatcore.UserID
		want []chatcore.UserID
	}{
		{"one to one", []chatcore.UserID{c.Moderator.ID}, []chatcore.UserID{c.Moderator.ID}},
		{"group, sender listed", []chatcore.UserID{c.Owner.ID, c.Member.ID, c.Moderator.ID}, sortedIDs(c.Owner.ID, c.Moderator.ID)},
		{"to themself", []chatcore.UserID{c.Member.ID}, []chatcore.UserID{c.Member.ID}},
	}
	for _, tt := range dms {
		t.Run("direct "+tt.name, func(t *testing.T) {
			is := is.New(t)
			id, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduleAt("direct", idList(tt.to...), nil, "psst", time.Hour))
			is.NoErr(err) // scheduling succeeds
			list, err := scheduled.List(t.Context(), w.Svc, c.Member.ID)
			is.NoErr(err)                                       // listing succeeds
			is.Equal(list[0].Type, chatcore.MessageTypePrivate) // wire type "private"
			is.Equal(list[0].To, any(tt.want))                  // recipients without the sender
			raw, err := json.Marshal(list[0])
			is.NoErr(err)                                                   // marshals
			is.True(!strings.Contains(string(raw), `"topic"`))              // no topic for direct messages
			is.NoErr(scheduled.Delete(t.Context(), w.Svc, c.Member.ID, id)) // clean up
		})
	}

	t.Run("bots may schedule", func(t *testing.T) {
		is := is.New(t)
		id, err := scheduled.Create(t.Context(), w.Svc, c.Bot.ID, scheduleAt("private", idList(c.Member.ID), nil, "beep", time.Minute))
		is.NoErr(err)                                                // any role, bots too
		is.NoErr(scheduled.Delete(t.Context(), w.Svc, c.Bot.ID, id)) // and delete their own
	})
}

// sortedIDs returns the ids sorted.
func sortedIDs(ids ...chatcore.UserID) []chatcore.UserID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func TestCreateScheduledMessageErrors(t *testing.T) {
	w, c := newCast(t, chattest.New)
	w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	secret := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Secret", InviteOnly: true, Subscribers: []*chatcore.User{c.Admin}})
	old := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Old", Archived: true, Subscribers: []*chatcore.User{c.Member}})
	foreign := w.AddChannel(t, chattest.Channel{Name: "Elsinore", Realm: c.OtherRealm})
	gone := w.AddUser(t, c.Realm, "Gone", chatcore.RoleMember)
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		gone.IsActive = false
		return tx.UpdateUser(context.Background(), gone)
	})
	id := func(st *chatcore.Stream) string { return strconv.FormatInt(int64(st.ID), 10) }

	tests := []struct {
		name string
		req  scheduled.CreateRequest
		code chatcore.Code
		msg  string
	}{
		{"now is not the future", scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), "hi", 0), chatcore.CodeBadRequest, "Scheduled delivery time must be in the future."},
		{"past, checked first", scheduleAt("stream", "999999", new("t"), "", -time.Hour), chatcore.CodeBadRequest, "Scheduled delivery time must be in the future."},
		{"unknown channel id", scheduleAt("stream", "999999", new("t"), "hi", time.Hour), chatcore.CodeStreamDoesNotExist, "Channel with ID '999999' does not exist"},
		{"other realm's channel", scheduleAt("stream", id(foreign), new("t"), "hi", time.Hour), chatcore.CodeStreamDoesNotExist, fmt.Sprintf("Channel with ID '%d' does not exist", foreign.ID)},
		{"channel name refused", scheduleAt("stream", "Nowhere", new("t"), "hi", time.Hour), chatcore.CodeBadRequest, "to is not valid JSON"},
		{"private channel", scheduleAt("stream", id(secret), new("t"), "hi", time.Hour), chatcore.CodeBadRequest, "Not authorized to send to channel 'Secret'"},
		{"archived channel", scheduleAt("stream", id(old), new("t"), "hi", time.Hour), chatcore.CodeBadRequest, "Not authorized to send to channel 'Old'"},
		{"missing topic", scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), nil, "hi", time.Hour), chatcore.CodeBadRequest, "Missing topic"},
		{"empty content", scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), " \n ", time.Hour), chatcore.CodeBadRequest, "Message must not be empty"},
		{"unknown user", scheduleAt("direct", "[999999]", nil, "hi", time.Hour), chatcore.CodeBadRequest, "Invalid user ID 999999"},
		{"other realm's user", scheduleAt("direct", idList(c.Stranger.ID), nil, "hi", time.Hour), chatcore.CodeBadRequest, fmt.Sprintf("Invalid user ID %d", c.Stranger.ID)},
		{"deactivated user", scheduleAt("direct", idList(gone.ID), nil, "hi", time.Hour), chatcore.CodeBadRequest, fmt.Sprintf("'%s' is no longer using Zulip.", gone.Email)},
		{"bad type", scheduleAt("carrier pigeon", channelTo(t, w, c.Realm, "Denmark"), new("t"), "hi", time.Hour), chatcore.CodeBadRequest, "Invalid type: Value error, Not in the list of possible values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, tt.req)
			chattest.WantError(t, err, tt.code, chatcore.KindInvalid, tt.msg)
		})
	}
	is := is.New(t)
	list, err := scheduled.List(t.Context(), w.Svc, c.Member.ID)
	is.NoErr(err)                                           // listing succeeds
	is.Equal(len(list), 0)                                  // nothing was stored
	is.Equal(len(w.Events.OfType("scheduled_messages")), 0) // no events
}

func TestScheduledMessagesList(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newCast(t, open)
		st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
		schedule := func(u *chatcore.User, d time.Duration) chatcore.ScheduledMessageID {
			id, err := scheduled.Create(t.Context(), w.Svc, u.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), "at "+d.String(), d))
			is.NoErr(err) // scheduling succeeds
			return id
		}
		late := schedule(c.Member, 3*time.Hour)
		early := schedule(c.Member, time.Hour)
		middle := schedule(c.Member, 2*time.Hour)
		failed := schedule(c.Member, 4*time.Hour)
		delivered := schedule(c.Member, 90*time.Minute)
		schedule(c.Moderator, 30*time.Minute) // someone else's
		target := w.Post(t, st, "t", c.Member, "remind me")
		_, err := scheduled.CreateReminder(t.Context(), w.Svc, c.Member.ID, target, chattest.Epoch.Add(time.Minute), nil)
		is.NoErr(err) // a reminder, which is not a scheduled message
		w.UpdateScheduled(t, failed, func(m *chatcore.ScheduledMessage) { m.Failed = true })
		w.UpdateScheduled(t, delivered, func(m *chatcore.ScheduledMessage) { m.Delivered = true })

		list, err := scheduled.List(t.Context(), w.Svc, c.Member.ID)
		is.NoErr(err) // listing succeeds
		var ids []chatcore.ScheduledMessageID
		for _, v := range list {
			ids = append(ids, v.ScheduledMessageID)
		}
		is.Equal(ids, []chatcore.ScheduledMessageID{early, middle, late, failed}) // own, undelivered, by delivery time; no reminders
		is.True(list[3].Failed)                                                   // failed ones are listed with failed: true
	})
}

// deletable is one of the two kinds of scheduled rows a user can delete
// (scheduled messages and reminders), for the deletion checks they share.
type deletable struct {
	name    string                 // the kind's name in subtest names
	kind    chatcore.ScheduledKind // the kind of the stored rows
	create  func(t *testing.T, u *chatcore.User) chatcore.ScheduledMessageID
	del     func(ctx context.Context, actor chatcore.UserID, id chatcore.ScheduledMessageID) error
	count   func(ctx context.Context, actor chatcore.UserID) (int, error) // how many the actor lists
	event   string                                                        // the event type
	idKey   string                                                        // the id's key in the remove event
	missing string                                                        // Zulip's not-found message
}

// scheduledMessagesDeletable creates scheduled messages to the channel Denmark, an
// hour ahead.
func scheduledMessagesDeletable(w *chattest.World, c *chattest.Cast) deletable {
	return deletable{
		name: "scheduled message", kind: chatcore.ScheduledSendLater,
		create: func(t *testing.T, u *chatcore.User) chatcore.ScheduledMessageID {
			t.Helper()
			id, err := scheduled.Create(t.Context(), w.Svc, u.ID, scheduleAt("stream", channelTo(t, w, c.Realm, "Denmark"), new("t"), "hi", time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			return id
		},
		del: func(ctx context.Context, actor chatcore.UserID, id chatcore.ScheduledMessageID) error {
			return scheduled.Delete(ctx, w.Svc, actor, id)
		},
		count: func(ctx context.Context, actor chatcore.UserID) (int, error) {
			list, err := scheduled.List(ctx, w.Svc, actor)
			return len(list), err
		},
		event: "scheduled_messages", idKey: "scheduled_message_id", missing: "Scheduled message does not exist",
	}
}

// remindersDeletable creates reminders, an hour ahead, about a new message the
// member posts to st.
func remindersDeletable(w *chattest.World, c *chattest.Cast, st *chatcore.Stream) deletable {
	return deletable{
		name: "reminder", kind: chatcore.ScheduledReminder,
		create: func(t *testing.T, u *chatcore.User) chatcore.ScheduledMessageID {
			t.Helper()
			msg := w.Post(t, st, "t", c.Member, "about this")
			id, err := scheduled.CreateReminder(t.Context(), w.Svc, u.ID, msg, chattest.Epoch.Add(time.Hour), nil)
			if err != nil {
				t.Fatal(err)
			}
			return id
		},
		del: func(ctx context.Context, actor chatcore.UserID, id chatcore.ScheduledMessageID) error {
			return scheduled.DeleteReminder(ctx, w.Svc, actor, id)
		},
		count: func(ctx context.Context, actor chatcore.UserID) (int, error) {
			list, err := scheduled.Reminders(ctx, w.Svc, actor)
			return len(list), err
		},
		event: "reminders", idKey: "reminder_id", missing: "Reminder does not exist",
	}
}

// deleteChecks checks what deleting scheduled messages and reminders has
// in common: one's own goes, with one remove event to the owner; someone
// else's, another realm's, an unknown id and the id of the other kind of row
// are all not found.
func deleteChecks(t *testing.T, w *chattest.World, c *chattest.Cast, d, other deletable) {
	notFound := func(t *testing.T, err error) {
		t.Helper()
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindNotFound, d.missing)
	}
	t.Run("own", func(t *testing.T) {
		is := is.New(t)
		id := d.create(t, c.Member)
		w.Events.Reset()
		is.NoErr(d.del(t.Context(), c.Member.ID, id)) // deleting one's own works
		n, err := d.count(t.Context(), c.Member.ID)
		is.NoErr(err)  // listing succeeds
		is.Equal(n, 0) // it is gone
		evs := w.Events.OfType(d.event, "op", "remove")
		is.Equal(len(evs), 1)                                                               // one remove event
		is.Equal(evs[0].Data, map[string]any{"type": d.event, "op": "remove", d.idKey: id}) // Zulip's payload
		is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Member.ID})                            // to the owner only
		notFound(t, d.del(t.Context(), c.Member.ID, id))                                    // a second delete finds nothing
	})
	t.Run("someone else's", func(t *testing.T) {
		is := is.New(t)
		id := d.create(t, c.Member)
		notFound(t, d.del(t.Context(), c.Admin.ID, id))
		notFound(t, d.del(t.Context(), c.Stranger.ID, id)) // another realm's user
		is.Equal(w.Scheduled(t, id).SenderID, c.Member.ID) // still there
	})
	t.Run("unknown", func(t *testing.T) {
		notFound(t, d.del(t.Context(), c.Member.ID, 999999))
	})
	t.Run(other.name+" id", func(t *testing.T) {
		is := is.New(t)
		id := other.create(t, c.Member)
		notFound(t, d.del(t.Context(), c.Member.ID, id))
		is.Equal(w.Scheduled(t, id).Kind, other.kind) // the other row survives
	})
}

func TestDeleteScheduledMessage(t *testing.T) {
	w, c := newCast(t, chattest.New)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	messages := scheduledMessagesDeletable(w, c)
	deleteChecks(t, w, c, messages, remindersDeletable(w, c, st))
	t.Run("delivered but stored", func(t *testing.T) {
		is := is.New(t)
		id := messages.create(t, c.Member)
		w.UpdateScheduled(t, id, func(m *chatcore.ScheduledMessage) { m.Delivered = true })
		is.NoErr(scheduled.Delete(t.Context(), w.Svc, c.Member.ID, id)) // the lookup ignores delivered
	})
}

// channelTo returns the "to" of a scheduled message to the channel of realm
// realm with the name: its id as JSON.
func channelTo(tb testing.TB, w *chattest.World, realm *chatcore.Realm, name string) string {
	tb.Helper()
	st := chattest.Read(tb, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Stream, error) {
		return tx.StreamByName(ctx, realm.ID, name)
	})
	return strconv.FormatInt(int64(st.ID), 10)
}

// TestCreateScheduledMessageParams checks that the parameters are read as
// Zulip reads them: all required, to strictly an integer or a list of
// integers, and every parameter error reported before the delivery time is
// checked.
func TestCreateScheduledMessageParams(t *testing.T) {
	w, c := newCast(t, chattest.New)
	st := w.AddChannel(t, chattest.Channel{Realm: c.Realm, Name: "Denmark", Subscribers: []*chatcore.User{c.Member}})
	sid := strconv.FormatInt(int64(st.ID), 10)
	past := chattest.Epoch.Add(-time.Hour)

	t.Run("decoded from wire parameters", func(t *testing.T) {
		tests := []struct {
			name   string
			params url.Values
			code   chatcore.Code
			msg    string
		}{
			{"nothing", url.Values{}, chatcore.CodeRequestVariableMissing, "Missing 'content' argument"},
			{"no to", url.Values{"content": {"hi"}, "type": {"stream"}}, chatcore.CodeRequestVariableMissing, "Missing 'to' argument"},
			{"no type", url.Values{"content": {"hi"}, "to": {sid}}, chatcore.CodeRequestVariableMissing, "Missing 'type' argument"},
			{"channel name", url.Values{"content": {"hi"}, "to": {"Denmark"}, "type": {"stream"}}, chatcore.CodeBadRequest, "to is not valid JSON"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var req scheduled.CreateRequest
				_, err := wire.DecodeParams(tt.params, &req)
				e := chattest.WantError(t, err, tt.code, chatcore.KindInvalid, tt.msg)
				if tt.code == chatcore.CodeRequestVariableMissing {
					is := is.New(t)
					is.True(e.Data["var_name"] != nil) // var_name names the parameter
				}
			})
		}
		is := is.New(t)
		var req scheduled.CreateRequest
		ignored, err := wire.DecodeParams(url.Values{"content": {"hi"}, "to": {"[1, 2]"}, "type": {"direct"}, "topic": {"x"}}, &req)
		is.NoErr(err)                      // a complete request decodes
		is.Equal(len(ignored), 0)          // every parameter is read
		is.Equal(string(req.To), "[1, 2]") // to kept as its JSON text
		is.Equal(*req.Topic, "x")          // topic taken literally
		is.Equal(req.Type, "direct")       // type
		is.Equal(req.Content, "hi")        // content
	})

	tests := []struct {
		name string
		req  scheduled.CreateRequest
		code chatcore.Code
		msg  string
	}{
		// Parameter errors come before the delivery time check (past here).
		{"missing to", scheduled.CreateRequest{Type: "stream", Content: "hi", DeliverAt: past}, chatcore.CodeRequestVariableMissing, "Missing 'to' argument"},
		{"missing type", scheduled.CreateRequest{To: json.RawMessage(sid), Content: "hi", DeliverAt: past}, chatcore.CodeRequestVariableMissing, "Missing 'type' argument"},
		{"to not JSON", scheduled.CreateRequest{Type: "stream", To: json.RawMessage("Denmark"), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not valid JSON"},
		{"to a JSON string", scheduled.CreateRequest{Type: "stream", To: json.RawMessage(`"Denmark"`), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not an integer"},
		{"to a float", scheduled.CreateRequest{Type: "stream", To: json.RawMessage("1.5"), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not an integer"},
		{"to null", scheduled.CreateRequest{Type: "stream", To: json.RawMessage("null"), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not an integer"},
		{"to a list of e-mails", scheduled.CreateRequest{Type: "direct", To: json.RawMessage(`["a@b.test"]`), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "to is not an integer"},
		{"bad type", scheduled.CreateRequest{Type: "carrier pigeon", To: json.RawMessage(sid), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "Invalid type: Value error, Not in the list of possible values"},
		// Then the delivery time, then the shape of to for the type.
		{"past", scheduled.CreateRequest{Type: "stream", To: json.RawMessage("[1]"), Content: "hi", DeliverAt: past}, chatcore.CodeBadRequest, "Scheduled delivery time must be in the future."},
		{"channel message to a list", scheduled.CreateRequest{Type: "channel", To: json.RawMessage("[" + sid + "]"), Topic: new("t"), Content: "hi", DeliverAt: chattest.Epoch.Add(time.Hour)}, chatcore.CodeBadRequest, "Invalid data type for channel ID"},
		{"direct message to an integer", scheduled.CreateRequest{Type: "direct", To: json.RawMessage("12"), Content: "hi", DeliverAt: chattest.Epoch.Add(time.Hour)}, chatcore.CodeBadRequest, "Invalid data type for recipients"},
		{"channel id 0", scheduled.CreateRequest{Type: "stream", To: json.RawMessage("0"), Topic: new("t"), Content: "hi", DeliverAt: chattest.Epoch.Add(time.Hour)}, chatcore.CodeStreamDoesNotExist, "Channel with ID '0' does not exist"},
		{"no recipients", scheduled.CreateRequest{Type: "direct", To: json.RawMessage("[]"), Content: "hi", DeliverAt: chattest.Epoch.Add(time.Hour)}, chatcore.CodeBadRequest, "Message must have recipients"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, tt.req)
			chattest.WantError(t, err, tt.code, chatcore.KindInvalid, tt.msg)
		})
	}

	t.Run("ids accepted", func(t *testing.T) {
		is := is.New(t)
		id, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduled.CreateRequest{
			Type: "channel", To: json.RawMessage(" " + sid + " "), Topic: new("t"), Content: "hi", DeliverAt: chattest.Epoch.Add(time.Hour),
		})
		is.NoErr(err)                                // a channel id
		is.Equal(w.Scheduled(t, id).StreamID, st.ID) // to that channel
		dm, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, scheduled.CreateRequest{
			Type: "private", To: json.RawMessage(idList(c.Moderator.ID, c.Moderator.ID)), Content: "hi", DeliverAt: chattest.Epoch.Add(time.Hour),
		})
		is.NoErr(err)                                                                 // a list of user ids
		is.Equal(w.Scheduled(t, dm).DirectMembers, []chatcore.UserID{c.Moderator.ID}) // duplicates dropped
	})
}

// TestDeliveryTimeRange checks that delivery times outside years 1 to 9999,
// including those time.Unix wraps around (math.MaxInt64 seconds compares as
// a time in the past), are refused naming scheduled_delivery_timestamp, for
// scheduled messages and reminders alike.
func TestDeliveryTimeRange(t *testing.T) {
	w, c := newCast(t, chattest.New)
	to := idList(c.Admin.ID)
	for _, tt := range []struct {
		name string
		at   time.Time
		msg  string
	}{
		{"max int64 seconds", time.Unix(math.MaxInt64, 0), "scheduled_delivery_timestamp is too large"},
		{"year 10000", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "scheduled_delivery_timestamp is too large"},
		{"min int64 seconds", time.Unix(math.MinInt64, 0), "scheduled_delivery_timestamp is too small"},
		{"the zero time is the past", time.Time{}, "Scheduled delivery time must be in the future."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			req := scheduleAt("direct", to, nil, "hi", time.Hour)
			req.DeliverAt = tt.at
			_, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, req)
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
			_, err = scheduled.CreateReminder(t.Context(), w.Svc, c.Member.ID, 1, tt.at, nil)
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
	t.Run("year 9999 is accepted", func(t *testing.T) {
		is := is.New(t)
		req := scheduleAt("direct", to, nil, "hi", time.Hour)
		req.DeliverAt = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
		_, err := scheduled.Create(t.Context(), w.Svc, c.Member.ID, req)
		is.NoErr(err) // the last second of year 9999 is in range
	})
}
