package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// scheduledIDs lists the ids of ScheduledMessages(f).
func scheduledIDs(tb testing.TB, st chatcore.Store, f chatcore.ScheduledFilter) []chatcore.ScheduledMessageID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var ids []chatcore.ScheduledMessageID
	view(tb, st, func(ctx context.Context, tx chatcore.Tx) {
		rows, err := tx.ScheduledMessages(ctx, f)
		is.NoErr(err) // scheduled messages listed
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
	})
	return ids
}

var scheduledTests = []test{
	{"CRUD", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		m := &chatcore.ScheduledMessage{
			RealmID: w.realm, SenderID: w.alice, Kind: chatcore.ScheduledSendLater, Type: chatcore.MessageTypePrivate,
			DirectMembers: []chatcore.UserID{w.bob, w.carol}, Content: "later", RenderedContent: "<p>later</p>",
			DeliverAt: epoch.Add(time.Hour),
		}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.CreateScheduledMessage(ctx, m)) // scheduled message created
		})
		is.True(m.ID > 0) // id filled in
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			got, err := tx.ScheduledMessage(ctx, m.ID)
			is.NoErr(err)                                    // scheduled message found
			is.Equal(normScheduled(*got), normScheduled(*m)) // every field round-trips
		})
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			c := *m
			c.Delivered, c.Failed, c.FailureMessage, c.DeliveredMessageID = true, true, "boom", 42
			c.Type, c.StreamID, c.Topic, c.DirectMembers = chatcore.MessageTypeStream, w.general.ID, "t", nil
			is.NoErr(tx.UpdateScheduledMessage(ctx, &c)) // scheduled message updated
			got, err := tx.ScheduledMessage(ctx, m.ID)
			is.NoErr(err)                                   // scheduled message found
			is.Equal(normScheduled(*got), normScheduled(c)) // the update is visible in the same transaction
		})
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.DeleteScheduledMessage(ctx, m.ID)) // scheduled message deleted
		})
		ctx := context.Background()
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			_, err := tx.ScheduledMessage(ctx, m.ID)
			is.True(errors.Is(err, chatcore.ErrNotFound)) // a deleted row is not found
		})
		err := st.Update(ctx, func(tx chatcore.Tx) error { return tx.DeleteScheduledMessage(ctx, m.ID) })
		is.True(errors.Is(err, chatcore.ErrNotFound)) // deleting it twice
		err = st.Update(ctx, func(tx chatcore.Tx) error { return tx.UpdateScheduledMessage(ctx, m) })
		is.True(errors.Is(err, chatcore.ErrNotFound)) // updating a deleted row
	}},
	{"SharedIDSpace", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		later := &chatcore.ScheduledMessage{ID: 2001, RealmID: w.realm, SenderID: w.alice, Kind: chatcore.ScheduledSendLater, DeliverAt: epoch}
		rem := &chatcore.ScheduledMessage{ID: 3001, RealmID: w.realm, SenderID: w.alice, Kind: chatcore.ScheduledReminder, ReminderTargetMessageID: 9, ReminderNote: "n", DirectMembers: []chatcore.UserID{w.alice}, DeliverAt: epoch}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.CreateScheduledMessage(ctx, later)) // scheduled message with explicit id created
			is.NoErr(tx.CreateScheduledMessage(ctx, rem))   // reminder with explicit id created
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateScheduledMessage(ctx, &chatcore.ScheduledMessage{ID: 2001, RealmID: w.realm, Kind: chatcore.ScheduledReminder, DeliverAt: epoch})
		})
		is.True(errors.Is(err, chatcore.ErrConflict)) // a reminder cannot take a scheduled message's id
		next := &chatcore.ScheduledMessage{RealmID: w.realm, SenderID: w.alice, Kind: chatcore.ScheduledSendLater, DeliverAt: epoch}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.CreateScheduledMessage(ctx, next))    // zero id accepted
			is.NoErr(tx.DeleteScheduledMessage(ctx, next.ID)) // and deleted again
		})
		is.True(next.ID > 3001) // next id above every id of either kind
		again := &chatcore.ScheduledMessage{RealmID: w.realm, SenderID: w.alice, Kind: chatcore.ScheduledReminder, DeliverAt: epoch}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.CreateScheduledMessage(ctx, again)) // zero id accepted
		})
		is.True(again.ID > next.ID) // ids are never reused
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			got, err := tx.ScheduledMessage(ctx, 3001)
			is.NoErr(err)                                      // a reminder is found by id
			is.Equal(normScheduled(*got), normScheduled(*rem)) // with its reminder fields
		})
	}},
	{"Filter", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		rows := []*chatcore.ScheduledMessage{
			{ID: 10, RealmID: w.realm, SenderID: w.alice, Kind: chatcore.ScheduledSendLater, DeliverAt: epoch.Add(3 * time.Hour)},
			{ID: 11, RealmID: w.realm, SenderID: w.bob, Kind: chatcore.ScheduledReminder, DeliverAt: epoch.Add(time.Hour)},
			{ID: 12, RealmID: w.realm, SenderID: w.alice, Kind: chatcore.ScheduledReminder, DeliverAt: epoch.Add(time.Hour), Failed: true},
			{ID: 13, RealmID: w.realm, SenderID: w.alice, Kind: chatcore.ScheduledSendLater, DeliverAt: epoch, Delivered: true},
			{ID: 14, RealmID: w.other, SenderID: w.zed, Kind: chatcore.ScheduledSendLater, DeliverAt: epoch.Add(2 * time.Hour)},
		}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, r := range rows {
				is.NoErr(tx.CreateScheduledMessage(ctx, r)) // row created
			}
		})
		for _, tc := range []struct {
			name string
			f    chatcore.ScheduledFilter
			want []chatcore.ScheduledMessageID
		}{
			{"everything", chatcore.ScheduledFilter{}, []chatcore.ScheduledMessageID{13, 11, 12, 14, 10}},
			{"realm", chatcore.ScheduledFilter{RealmID: w.realm}, []chatcore.ScheduledMessageID{13, 11, 12, 10}},
			{"sender", chatcore.ScheduledFilter{RealmID: w.realm, SenderID: w.alice}, []chatcore.ScheduledMessageID{13, 12, 10}},
			{"kind", chatcore.ScheduledFilter{RealmID: w.realm, Kind: chatcore.ScheduledReminder}, []chatcore.ScheduledMessageID{11, 12}},
			{"undelivered", chatcore.ScheduledFilter{Delivered: ptr(false)}, []chatcore.ScheduledMessageID{11, 12, 14, 10}},
			{"delivered", chatcore.ScheduledFilter{Delivered: ptr(true)}, []chatcore.ScheduledMessageID{13}},
			{"due by, inclusive", chatcore.ScheduledFilter{DueBy: epoch.Add(time.Hour)}, []chatcore.ScheduledMessageID{13, 11, 12}},
			{"failed", chatcore.ScheduledFilter{Failed: ptr(true)}, []chatcore.ScheduledMessageID{12}},
			{"due, undelivered, not failed", chatcore.ScheduledFilter{DueBy: epoch.Add(2 * time.Hour), Delivered: ptr(false), Failed: ptr(false)}, []chatcore.ScheduledMessageID{11, 14}},
			{"due and undelivered, limited", chatcore.ScheduledFilter{DueBy: epoch.Add(2 * time.Hour), Delivered: ptr(false), Limit: 2}, []chatcore.ScheduledMessageID{11, 12}},
			{"limit", chatcore.ScheduledFilter{Limit: 1}, []chatcore.ScheduledMessageID{13}},
			{"none", chatcore.ScheduledFilter{SenderID: w.carol}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				is.Equal(scheduledIDs(t, st, tc.f), list(tc.want...)) // matching rows by delivery time, then id
			})
		}
	}},
}
