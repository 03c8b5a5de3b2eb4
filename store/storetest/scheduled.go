package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// scheduledIDs lists the ids of ScheduledMessages(f).
func scheduledIDs(tb testing.TB, st store.Store, f store.ScheduledFilter) []store.ScheduledMessageID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var ids []store.ScheduledMessageID
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		rows, err := tx.ScheduledMessages(ctx, f)
		is.NoErr(err) // scheduled messages listed
		for _, r := range rows {
			ids = append(ids, r.ID)
		}
	})
	return ids
}

var scheduledTests = []test{
	{"CRUD", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		m := &store.ScheduledMessage{
			RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledSendLater, Type: store.MessageTypePrivate,
			DirectMembers: []store.UserID{w.bob, w.carol}, Content: "later", RenderedContent: "<p>later</p>",
			DeliverAt: epoch.Add(time.Hour),
		}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateScheduledMessage(ctx, m)) // scheduled message created
		})
		is.True(m.ID > 0) // id filled in
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.ScheduledMessage(ctx, m.ID)
			is.NoErr(err)                                    // scheduled message found
			is.Equal(normScheduled(*got), normScheduled(*m)) // every field round-trips
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			c := *m
			c.Delivered, c.Failed, c.FailureMessage, c.DeliveredMessageID = true, true, "boom", 42
			c.Type, c.StreamID, c.Topic, c.DirectMembers = store.MessageTypeStream, w.general.ID, "t", nil
			is.NoErr(tx.UpdateScheduledMessage(ctx, &c)) // scheduled message updated
			got, err := tx.ScheduledMessage(ctx, m.ID)
			is.NoErr(err)                                   // scheduled message found
			is.Equal(normScheduled(*got), normScheduled(c)) // the update is visible in the same transaction
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.DeleteScheduledMessage(ctx, m.ID)) // scheduled message deleted
		})
		ctx := context.Background()
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.ScheduledMessage(ctx, m.ID)
			is.True(errors.Is(err, store.ErrNotFound)) // a deleted row is not found
		})
		err := st.Update(ctx, func(tx store.Tx) error { return tx.DeleteScheduledMessage(ctx, m.ID) })
		is.True(errors.Is(err, store.ErrNotFound)) // deleting it twice
		err = st.Update(ctx, func(tx store.Tx) error { return tx.UpdateScheduledMessage(ctx, m) })
		is.True(errors.Is(err, store.ErrNotFound)) // updating a deleted row
	}},
	{"SharedIDSpace", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		later := &store.ScheduledMessage{ID: 2001, RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledSendLater, DeliverAt: epoch}
		rem := &store.ScheduledMessage{ID: 3001, RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledReminder, ReminderTargetMessageID: 9, ReminderNote: "n", DirectMembers: []store.UserID{w.alice}, DeliverAt: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateScheduledMessage(ctx, later)) // scheduled message with explicit id created
			is.NoErr(tx.CreateScheduledMessage(ctx, rem))   // reminder with explicit id created
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateScheduledMessage(ctx, &store.ScheduledMessage{ID: 2001, RealmID: w.realm, Kind: store.ScheduledReminder, DeliverAt: epoch})
		})
		is.True(errors.Is(err, store.ErrConflict)) // a reminder cannot take a scheduled message's id
		next := &store.ScheduledMessage{RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledSendLater, DeliverAt: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateScheduledMessage(ctx, next))    // zero id accepted
			is.NoErr(tx.DeleteScheduledMessage(ctx, next.ID)) // and deleted again
		})
		is.True(next.ID > 3001) // next id above every id of either kind
		again := &store.ScheduledMessage{RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledReminder, DeliverAt: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateScheduledMessage(ctx, again)) // zero id accepted
		})
		is.True(again.ID > next.ID) // ids are never reused
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.ScheduledMessage(ctx, 3001)
			is.NoErr(err)                                      // a reminder is found by id
			is.Equal(normScheduled(*got), normScheduled(*rem)) // with its reminder fields
		})
	}},
	{"Filter", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		rows := []*store.ScheduledMessage{
			{ID: 10, RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledSendLater, DeliverAt: epoch.Add(3 * time.Hour)},
			{ID: 11, RealmID: w.realm, SenderID: w.bob, Kind: store.ScheduledReminder, DeliverAt: epoch.Add(time.Hour)},
			{ID: 12, RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledReminder, DeliverAt: epoch.Add(time.Hour), Failed: true},
			{ID: 13, RealmID: w.realm, SenderID: w.alice, Kind: store.ScheduledSendLater, DeliverAt: epoch, Delivered: true},
			{ID: 14, RealmID: w.other, SenderID: w.zed, Kind: store.ScheduledSendLater, DeliverAt: epoch.Add(2 * time.Hour)},
		}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, r := range rows {
				is.NoErr(tx.CreateScheduledMessage(ctx, r)) // row created
			}
		})
		for _, tc := range []struct {
			name string
			f    store.ScheduledFilter
			want []store.ScheduledMessageID
		}{
			{"everything", store.ScheduledFilter{}, []store.ScheduledMessageID{13, 11, 12, 14, 10}},
			{"realm", store.ScheduledFilter{RealmID: w.realm}, []store.ScheduledMessageID{13, 11, 12, 10}},
			{"sender", store.ScheduledFilter{RealmID: w.realm, SenderID: w.alice}, []store.ScheduledMessageID{13, 12, 10}},
			{"kind", store.ScheduledFilter{RealmID: w.realm, Kind: store.ScheduledReminder}, []store.ScheduledMessageID{11, 12}},
			{"undelivered", store.ScheduledFilter{Delivered: ptr(false)}, []store.ScheduledMessageID{11, 12, 14, 10}},
			{"delivered", store.ScheduledFilter{Delivered: ptr(true)}, []store.ScheduledMessageID{13}},
			{"due by, inclusive", store.ScheduledFilter{DueBy: epoch.Add(time.Hour)}, []store.ScheduledMessageID{13, 11, 12}},
			{"failed", store.ScheduledFilter{Failed: ptr(true)}, []store.ScheduledMessageID{12}},
			{"due, undelivered, not failed", store.ScheduledFilter{DueBy: epoch.Add(2 * time.Hour), Delivered: ptr(false), Failed: ptr(false)}, []store.ScheduledMessageID{11, 14}},
			{"due and undelivered, limited", store.ScheduledFilter{DueBy: epoch.Add(2 * time.Hour), Delivered: ptr(false), Limit: 2}, []store.ScheduledMessageID{11, 12}},
			{"limit", store.ScheduledFilter{Limit: 1}, []store.ScheduledMessageID{13}},
			{"none", store.ScheduledFilter{SenderID: w.carol}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				is.Equal(scheduledIDs(t, st, tc.f), list(tc.want...)) // matching rows by delivery time, then id
			})
		}
	}},
}
