package chatcore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
)

// opsSchedule builds a scheduled-message request delivered d after the start.
func opsSchedule(typ, to string, topic *string, content string, d time.Duration) chatcore.CreateScheduledMessageRequest {
	return chatcore.CreateScheduledMessageRequest{Type: typ, To: json.RawMessage(to), Topic: topic, Content: content, DeliverAt: seedTime.Add(d)}
}

// opsIDList formats user ids as the JSON list a client sends.
func opsIDList(ids ...chatcore.UserID) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

func TestCreateScheduledMessage(t *testing.T) {
	e := newOpsEnv(t)
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	sid := strconv.FormatInt(int64(st.ID), 10)

	t.Run("channel message", func(t *testing.T) {
		is := is.New(t)
		e.events.reset()
		id, err := e.svc.CreateScheduledMessage(t.Context(), e.member.ID, opsSchedule("stream", sid, new("castle"), "\nhello  \n", time.Hour))
		is.NoErr(err)   // scheduling succeeds
		is.True(id > 0) // an id is assigned
		list, err := e.svc.ScheduledMessages(t.Context(), e.member.ID)
		is.NoErr(err)          // listing succeeds
		is.Equal(len(list), 1) // the new message is listed
		v := list[0]
		is.Equal(v.ScheduledMessageID, id)                                     // its id
		is.Equal(v.Type, chatcore.MessageTypeStream)                           // wire type "stream"
		is.Equal(v.To, any(st.ID))                                             // to is the channel id
		is.Equal(*v.Topic, "castle")                                           // topic
		is.Equal(v.Content, "hello")                                           // content normalised as sending does
		is.True(strings.Contains(v.RenderedContent, "hello"))                  // rendered content
		is.Equal(v.ScheduledDeliveryTimestamp, seedTime.Add(time.Hour).Unix()) // UNIX seconds
		is.Equal(v.Failed, false)                                              // not failed
		evs := e.events.ofType("scheduled_messages", "op", "add")
		is.Equal(len(evs), 1)                                                           // one add event
		is.Equal(evs[0].UserIDs, []chatcore.UserID{e.member.ID})                        // to the sender only
		is.Equal(evs[0].Data["scheduled_messages"], []chatcore.ScheduledMessageView{v}) // carrying the scheduled message
		is.NoErr(e.svc.DeleteScheduledMessage(t.Context(), e.member.ID, id))            // clean up
	})

	t.Run("channel type, empty topic", func(t *testing.T) {
		is := is.New(t)
		id, err := e.svc.CreateScheduledMessage(t.Context(), e.member.ID, opsSchedule("channel", opsChannelTo(t, e, "Denmark"), new("general chat"), "hi", time.Hour))
		is.NoErr(err) // the "channel" type works
		row := e.scheduledRow(t, id)
		is.Equal(row.StreamID, st.ID)                                        // the channel
		is.Equal(row.Topic, "")                                              // the display name means the empty topic
		is.Equal(row.Kind, chatcore.ScheduledSendLater)                      // a scheduled message, not a reminder
		is.NoErr(e.svc.DeleteScheduledMessage(t.Context(), e.member.ID, id)) // clean up
	})

	dms := []struct {
		name string
		to   []chatcore.UserID
		want []chatcore.UserID
	}{
		{"one to one", []chatcore.UserID{e.mod.ID}, []chatcore.UserID{e.mod.ID}},
		{"group, sender listed", []chatcore.UserID{e.owner.ID, e.member.ID, e.mod.ID}, opsSorted(e.owner.ID, e.mod.ID)},
		{"to themself", []chatcore.UserID{e.member.ID}, []chatcore.UserID{e.member.ID}},
	}
	for _, tt := range dms {
		t.Run("direct "+tt.name, func(t *testing.T) {
			is := is.New(t)
			id, err := e.svc.CreateScheduledMessage(t.Context(), e.member.ID, opsSchedule("direct", opsIDList(tt.to...), nil, "psst", time.Hour))
			is.NoErr(err) // scheduling succeeds
			list, err := e.svc.ScheduledMessages(t.Context(), e.member.ID)
			is.NoErr(err)                                       // listing succeeds
			is.Equal(list[0].Type, chatcore.MessageTypePrivate) // wire type "private"
			is.Equal(list[0].To, any(tt.want))                  // recipients without the sender
			raw, err := json.Marshal(list[0])
			is.NoErr(err)                                                        // marshals
			is.True(!strings.Contains(string(raw), `"topic"`))                   // no topic for direct messages
			is.NoErr(e.svc.DeleteScheduledMessage(t.Context(), e.member.ID, id)) // clean up
		})
	}

	t.Run("bots may schedule", func(t *testing.T) {
		is := is.New(t)
		id, err := e.svc.CreateScheduledMessage(t.Context(), e.bot.ID, opsSchedule("private", opsIDList(e.member.ID), nil, "beep", time.Minute))
		is.NoErr(err)                                                     // any role, bots too
		is.NoErr(e.svc.DeleteScheduledMessage(t.Context(), e.bot.ID, id)) // and delete their own
	})
}

// opsSorted returns the ids sorted.
func opsSorted(ids ...chatcore.UserID) []chatcore.UserID {
	out := slices.Clone(ids)
	slices.Sort(out)
	return out
}

func TestCreateScheduledMessageErrors(t *testing.T) {
	e := newOpsEnv(t)
	e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	secret := e.createChannel(t, opsChannel{name: "Secret", inviteOnly: true, subscribers: []*chatcore.User{e.admin}})
	old := e.createChannel(t, opsChannel{name: "Old", archived: true, subscribers: []*chatcore.User{e.member}})
	foreign := e.createChannel(t, opsChannel{name: "Elsinore", realm: e.otherRealm})
	gone := e.createUser(t, e.realm, "Gone", chatcore.RoleMember)
	e.write(t, func(tx chatcore.Tx) error {
		gone.IsActive = false
		return tx.UpdateUser(context.Background(), gone)
	})
	id := func(st *chatcore.Stream) string { return strconv.FormatInt(int64(st.ID), 10) }

	tests := []struct {
		name string
		req  chatcore.CreateScheduledMessageRequest
		code chatcore.Code
		msg  string
	}{
		{"now is not the future", opsSchedule("stream", opsChannelTo(t, e, "Denmark"), new("t"), "hi", 0), chatcore.CodeBadRequest, "Scheduled delivery time must be in the future."},
		{"past, checked first", opsSchedule("stream", "999999", new("t"), "", -time.Hour), chatcore.CodeBadRequest, "Scheduled delivery time must be in the future."},
		{"unknown channel id", opsSchedule("stream", "999999", new("t"), "hi", time.Hour), chatcore.CodeStreamDoesNotExist, "Channel with ID '999999' does not exist"},
		{"other realm's channel", opsSchedule("stream", id(foreign), new("t"), "hi", time.Hour), chatcore.CodeStreamDoesNotExist, fmt.Sprintf("Channel with ID '%d' does not exist", foreign.ID)},
		{"channel name refused", opsSchedule("stream", "Nowhere", new("t"), "hi", time.Hour), chatcore.CodeBadRequest, "to is not valid JSON"},
		{"private channel", opsSchedule("stream", id(secret), new("t"), "hi", time.Hour), chatcore.CodeBadRequest, "Not authorized to send to channel 'Secret'"},
		{"archived channel", opsSchedule("stream", id(old), new("t"), "hi", time.Hour), chatcore.CodeBadRequest, "Not authorized to send to channel 'Old'"},
		{"missing topic", opsSchedule("stream", opsChannelTo(t, e, "Denmark"), nil, "hi", time.Hour), chatcore.CodeBadRequest, "Missing topic"},
		{"empty content", opsSchedule("stream", opsChannelTo(t, e, "Denmark"), new("t"), " \n ", time.Hour), chatcore.CodeBadRequest, "Message must not be empty"},
		{"unknown user", opsSchedule("direct", "[999999]", nil, "hi", time.Hour), chatcore.CodeBadRequest, "Invalid user ID 999999"},
		{"other realm's user", opsSchedule("direct", opsIDList(e.stranger.ID), nil, "hi", time.Hour), chatcore.CodeBadRequest, fmt.Sprintf("Invalid user ID %d", e.stranger.ID)},
		{"deactivated user", opsSchedule("direct", opsIDList(gone.ID), nil, "hi", time.Hour), chatcore.CodeBadRequest, fmt.Sprintf("'%s' is no longer using Zulip.", gone.Email)},
		{"bad type", opsSchedule("carrier pigeon", opsChannelTo(t, e, "Denmark"), new("t"), "hi", time.Hour), chatcore.CodeBadRequest, "Invalid type: Value error, Not in the list of possible values"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.svc.CreateScheduledMessage(t.Context(), e.member.ID, tt.req)
			wantError(t, err, tt.code, chatcore.KindInvalid, tt.msg)
		})
	}
	is := is.New(t)
	list, err := e.svc.ScheduledMessages(t.Context(), e.member.ID)
	is.NoErr(err)                                           // listing succeeds
	is.Equal(len(list), 0)                                  // nothing was stored
	is.Equal(len(e.events.ofType("scheduled_messages")), 0) // no events
}

func TestScheduledMessagesList(t *testing.T) {
	opsEachStore(t, func(t *testing.T, newOpsEnv opsEnvMaker) {
		is := is.New(t)
		e := newOpsEnv(t)
		st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
		schedule := func(u *chatcore.User, d time.Duration) chatcore.ScheduledMessageID {
			id, err := e.svc.CreateScheduledMessage(t.Context(), u.ID, opsSchedule("stream", opsChannelTo(t, e, "Denmark"), new("t"), "at "+d.String(), d))
			is.NoErr(err) // scheduling succeeds
			return id
		}
		late := schedule(e.member, 3*time.Hour)
		early := schedule(e.member, time.Hour)
		middle := schedule(e.member, 2*time.Hour)
		failed := schedule(e.member, 4*time.Hour)
		delivered := schedule(e.member, 90*time.Minute)
		schedule(e.mod, 30*time.Minute) // someone else's
		target := e.post(t, st, "t", e.member, "remind me")
		_, err := e.svc.CreateReminder(t.Context(), e.member.ID, target, seedTime.Add(time.Minute), nil)
		is.NoErr(err) // a reminder, which is not a scheduled message
		updateScheduled(t, e.base, failed, func(m *chatcore.ScheduledMessage) { m.Failed = true })
		updateScheduled(t, e.base, delivered, func(m *chatcore.ScheduledMessage) { m.Delivered = true })

		list, err := e.svc.ScheduledMessages(t.Context(), e.member.ID)
		is.NoErr(err) // listing succeeds
		var ids []chatcore.ScheduledMessageID
		for _, v := range list {
			ids = append(ids, v.ScheduledMessageID)
		}
		is.Equal(ids, []chatcore.ScheduledMessageID{early, middle, late, failed}) // own, undelivered, by delivery time; no reminders
		is.True(list[3].Failed)                                                   // failed ones are listed with failed: true
	})
}

// opsDeletable is one of the two kinds of scheduled rows a user can delete
// (scheduled messages and reminders), for the deletion checks they share.
type opsDeletable struct {
	name    string                 // the kind's name in subtest names
	kind    chatcore.ScheduledKind // the kind of the stored rows
	create  func(t *testing.T, u *chatcore.User) chatcore.ScheduledMessageID
	del     func(ctx context.Context, actor chatcore.UserID, id chatcore.ScheduledMessageID) error
	count   func(ctx context.Context, actor chatcore.UserID) (int, error) // how many the actor lists
	event   string                                                        // the event type
	idKey   string                                                        // the id's key in the remove event
	missing string                                                        // Zulip's not-found message
}

// opsScheduledMessages creates scheduled messages to the channel Denmark, an
// hour ahead.
func opsScheduledMessages(e *opsEnv) opsDeletable {
	return opsDeletable{
		name: "scheduled message", kind: chatcore.ScheduledSendLater,
		create: func(t *testing.T, u *chatcore.User) chatcore.ScheduledMessageID {
			t.Helper()
			id, err := e.svc.CreateScheduledMessage(t.Context(), u.ID, opsSchedule("stream", opsChannelTo(t, e, "Denmark"), new("t"), "hi", time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			return id
		},
		del: e.svc.DeleteScheduledMessage,
		count: func(ctx context.Context, actor chatcore.UserID) (int, error) {
			list, err := e.svc.ScheduledMessages(ctx, actor)
			return len(list), err
		},
		event: "scheduled_messages", idKey: "scheduled_message_id", missing: "Scheduled message does not exist",
	}
}

// opsReminders creates reminders, an hour ahead, about a new message the
// member posts to st.
func opsReminders(e *opsEnv, st *chatcore.Stream) opsDeletable {
	return opsDeletable{
		name: "reminder", kind: chatcore.ScheduledReminder,
		create: func(t *testing.T, u *chatcore.User) chatcore.ScheduledMessageID {
			t.Helper()
			msg := e.post(t, st, "t", e.member, "about this")
			id, err := e.svc.CreateReminder(t.Context(), u.ID, msg, seedTime.Add(time.Hour), nil)
			if err != nil {
				t.Fatal(err)
			}
			return id
		},
		del: e.svc.DeleteReminder,
		count: func(ctx context.Context, actor chatcore.UserID) (int, error) {
			list, err := e.svc.Reminders(ctx, actor)
			return len(list), err
		},
		event: "reminders", idKey: "reminder_id", missing: "Reminder does not exist",
	}
}

// opsDeleteChecks checks what deleting scheduled messages and reminders has
// in common: one's own goes, with one remove event to the owner; someone
// else's, another realm's, an unknown id and the id of the other kind of row
// are all not found.
func opsDeleteChecks(t *testing.T, e *opsEnv, d, other opsDeletable) {
	notFound := func(t *testing.T, err error) {
		t.Helper()
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindNotFound, d.missing)
	}
	t.Run("own", func(t *testing.T) {
		is := is.New(t)
		id := d.create(t, e.member)
		e.events.reset()
		is.NoErr(d.del(t.Context(), e.member.ID, id)) // deleting one's own works
		n, err := d.count(t.Context(), e.member.ID)
		is.NoErr(err)  // listing succeeds
		is.Equal(n, 0) // it is gone
		evs := e.events.ofType(d.event, "op", "remove")
		is.Equal(len(evs), 1)                                                               // one remove event
		is.Equal(evs[0].Data, map[string]any{"type": d.event, "op": "remove", d.idKey: id}) // Zulip's payload
		is.Equal(evs[0].UserIDs, []chatcore.UserID{e.member.ID})                            // to the owner only
		notFound(t, d.del(t.Context(), e.member.ID, id))                                    // a second delete finds nothing
	})
	t.Run("someone else's", func(t *testing.T) {
		is := is.New(t)
		id := d.create(t, e.member)
		notFound(t, d.del(t.Context(), e.admin.ID, id))
		notFound(t, d.del(t.Context(), e.stranger.ID, id))    // another realm's user
		is.Equal(e.scheduledRow(t, id).SenderID, e.member.ID) // still there
	})
	t.Run("unknown", func(t *testing.T) {
		notFound(t, d.del(t.Context(), e.member.ID, 999999))
	})
	t.Run(other.name+" id", func(t *testing.T) {
		is := is.New(t)
		id := other.create(t, e.member)
		notFound(t, d.del(t.Context(), e.member.ID, id))
		is.Equal(e.scheduledRow(t, id).Kind, other.kind) // the other row survives
	})
}

func TestDeleteScheduledMessage(t *testing.T) {
	e := newOpsEnv(t)
	st := e.createChannel(t, opsChannel{name: "Denmark", subscribers: []*chatcore.User{e.member}})
	scheduled := opsScheduledMessages(e)
	opsDeleteChecks(t, e, scheduled, opsReminders(e, st))
	t.Run("delivered but stored", func(t *testing.T) {
		is := is.New(t)
		id := scheduled.create(t, e.member)
		updateScheduled(t, e.base, id, func(m *chatcore.ScheduledMessage) { m.Delivered = true })
		is.NoErr(e.svc.DeleteScheduledMessage(t.Context(), e.member.ID, id)) // the lookup ignores delivered
	})
}
