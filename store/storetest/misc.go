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

var linkifierTests = []test{
	{"CRUD", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a := &chatcore.Linkifier{ID: 4001, RealmID: w.realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://t/{id}", Order: 2}
		b := &chatcore.Linkifier{RealmID: w.realm, Pattern: "PR(?P<id>[0-9]+)", URLTemplate: "https://p/{id}", Order: 1}
		c := &chatcore.Linkifier{RealmID: w.realm, Pattern: "X(?P<id>[0-9]+)", URLTemplate: "https://x/{id}", Order: 2}
		o := &chatcore.Linkifier{RealmID: w.other, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://o/{id}"}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, l := range []*chatcore.Linkifier{a, b, c, o} {
				is.NoErr(tx.CreateLinkifier(ctx, l)) // linkifier created; the same pattern in another realm is fine
			}
		})
		is.Equal(a.ID, chatcore.LinkifierID(4001)) // explicit id kept
		is.True(b.ID > 4001 && c.ID > b.ID)        // next ids above every id used
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			got, err := tx.Linkifier(ctx, a.ID)
			is.NoErr(err)      // linkifier found
			is.Equal(*got, *a) // every field round-trips
			ls, err := tx.Linkifiers(ctx, w.realm)
			is.NoErr(err)                                  // linkifiers listed
			is.Equal(ls, []chatcore.Linkifier{*b, *a, *c}) // the realm's linkifiers by Order, then id
		})
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			u := *a
			u.Pattern, u.URLTemplate, u.Order = "#(?P<n>[0-9]+)", "https://t/{n}", 0
			is.NoErr(tx.UpdateLinkifier(ctx, &u))   // linkifier updated
			is.NoErr(tx.DeleteLinkifier(ctx, c.ID)) // linkifier deleted
		})
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			ls, err := tx.Linkifiers(ctx, w.realm)
			is.NoErr(err)                             // linkifiers listed
			is.Equal(len(ls), 2)                      // one was deleted
			is.Equal(ls[0].ID, a.ID)                  // the updated order applies
			is.Equal(ls[0].Pattern, "#(?P<n>[0-9]+)") // the new pattern is stored
			_, err = tx.Linkifier(ctx, c.ID)
			is.True(errors.Is(err, chatcore.ErrNotFound)) // a deleted linkifier is not found
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx chatcore.Tx) error { return tx.DeleteLinkifier(ctx, c.ID) })
		is.True(errors.Is(err, chatcore.ErrNotFound)) // deleting it twice
		err = st.Update(ctx, func(tx chatcore.Tx) error { return tx.UpdateLinkifier(ctx, c) })
		is.True(errors.Is(err, chatcore.ErrNotFound)) // updating a deleted linkifier
		err = st.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateLinkifier(ctx, &chatcore.Linkifier{RealmID: w.realm, Pattern: "PR(?P<id>[0-9]+)", URLTemplate: "https://q/{id}"})
		})
		is.True(errors.Is(err, chatcore.ErrConflict)) // a pattern already used in the realm
		err = st.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateLinkifier(ctx, &chatcore.Linkifier{ID: b.ID, RealmID: w.realm, Pattern: "new", URLTemplate: "https://q"})
		})
		is.True(errors.Is(err, chatcore.ErrConflict)) // a duplicate id
		err = st.Update(ctx, func(tx chatcore.Tx) error {
			u := *b
			u.Pattern = "#(?P<n>[0-9]+)"
			return tx.UpdateLinkifier(ctx, &u)
		})
		is.True(errors.Is(err, chatcore.ErrConflict)) // updating onto another linkifier's pattern
		err = st.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateLinkifier(ctx, &chatcore.Linkifier{RealmID: w.realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://t/{id}"})
		})
		is.NoErr(err) // the pattern freed by the update can be used again
	}},
}

var draftTests = []test{
	{"CreateListDelete", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		d1 := &chatcore.Draft{ID: 5001, UserID: w.alice, Type: chatcore.MessageTypeStream, StreamID: w.general.ID, Topic: "x", Content: "one", LastEdit: epoch}
		d2 := &chatcore.Draft{UserID: w.alice, Type: chatcore.MessageTypePrivate, To: []chatcore.UserID{w.bob}, Content: "two", LastEdit: epoch.Add(time.Second)}
		d3 := &chatcore.Draft{UserID: w.bob, Content: "three", LastEdit: epoch}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, d := range []*chatcore.Draft{d1, d2, d3} {
				is.NoErr(tx.CreateDraft(ctx, d)) // draft created
			}
		})
		is.Equal(d1.ID, chatcore.DraftID(5001)) // explicit id kept
		is.True(d2.ID > 5001)                   // next id above every id used
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			ds, err := tx.Drafts(ctx, w.alice)
			is.NoErr(err)                                                                                                    // drafts listed
			is.Equal(len(ds), 2)                                                                                             // only alice's drafts
			is.Equal([]chatcore.Draft{normDraft(ds[0]), normDraft(ds[1])}, []chatcore.Draft{normDraft(*d1), normDraft(*d2)}) // ordered by id, every field stored
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx chatcore.Tx) error { return tx.CreateDraft(ctx, &chatcore.Draft{ID: d1.ID, UserID: w.bob}) })
		is.True(errors.Is(err, chatcore.ErrConflict)) // duplicate id
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			n, err := tx.DeleteDrafts(ctx, w.alice)
			is.NoErr(err)  // drafts deleted
			is.Equal(n, 2) // both of alice's
			n, err = tx.DeleteDrafts(ctx, w.carol)
			is.NoErr(err)  // deleting no drafts is fine
			is.Equal(n, 0) // carol had none
		})
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			ds, err := tx.Drafts(ctx, w.alice)
			is.NoErr(err)        // drafts listed
			is.Equal(len(ds), 0) // alice has none left
			ds, err = tx.Drafts(ctx, w.bob)
			is.NoErr(err)        // drafts listed
			is.Equal(len(ds), 1) // bob's draft is untouched
		})
	}},
	{"DeleteDraftsOf", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, u := range []chatcore.UserID{w.alice, w.alice, w.bob, w.carol, w.zed} {
				is.NoErr(tx.CreateDraft(ctx, &chatcore.Draft{UserID: u, Content: "c", LastEdit: epoch})) // draft created
			}
		})
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			n, err := tx.DeleteDraftsOf(ctx, nil)
			is.NoErr(err)  // an empty list is fine
			is.Equal(n, 0) // and deletes nothing
			n, err = tx.DeleteDraftsOf(ctx, []chatcore.UserID{w.alice, w.carol, w.alice, 999999})
			is.NoErr(err)  // duplicates and unknown ids are fine
			is.Equal(n, 3) // alice's two drafts and carol's one
		})
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, c := range []struct {
				user chatcore.UserID
				want int
			}{{w.alice, 0}, {w.carol, 0}, {w.bob, 1}, {w.zed, 1}} {
				ds, err := tx.Drafts(ctx, c.user)
				is.NoErr(err)             // drafts listed
				is.Equal(len(ds), c.want) // only the listed users lost their drafts
			}
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx chatcore.Tx) error {
			if _, err := tx.DeleteDraftsOf(ctx, []chatcore.UserID{w.bob, w.zed}); err != nil {
				return err
			}
			return errAbort
		})
		is.True(errors.Is(err, errAbort)) // the transaction failed
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			ds, err := tx.Drafts(ctx, w.bob)
			is.NoErr(err)        // drafts listed
			is.Equal(len(ds), 1) // a rolled-back DeleteDraftsOf deletes nothing
		})
	}},
}

var emailChangeTests = []test{
	{"CreateReadDelete", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a1 := &chatcore.EmailChange{Key: "k1", UserID: w.alice, RealmID: w.realm, OldEmail: "alice@x.test", NewEmail: "a1@x.test", CreatedAt: epoch}
		a2 := &chatcore.EmailChange{Key: "k2", UserID: w.alice, RealmID: w.realm, OldEmail: "alice@x.test", NewEmail: "a2@x.test", CreatedAt: epoch}
		b := &chatcore.EmailChange{Key: "k3", UserID: w.bob, RealmID: w.realm, OldEmail: "bob@x.test", NewEmail: "b@x.test", CreatedAt: epoch}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, c := range []*chatcore.EmailChange{a1, a2, b} {
				is.NoErr(tx.CreateEmailChange(ctx, c)) // pending change created
			}
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateEmailChange(ctx, &chatcore.EmailChange{Key: "k1", UserID: w.bob, RealmID: w.realm})
		})
		is.True(errors.Is(err, chatcore.ErrConflict)) // duplicate key
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			got, err := tx.EmailChange(ctx, "k2")
			is.NoErr(err)                                         // pending change found
			is.Equal(normEmailChange(*got), normEmailChange(*a2)) // every field round-trips
			_, err = tx.EmailChange(ctx, "nope")
			is.True(errors.Is(err, chatcore.ErrNotFound)) // unknown key
		})
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.DeleteEmailChanges(ctx, w.alice)) // alice's pending changes deleted
			is.NoErr(tx.DeleteEmailChanges(ctx, w.carol)) // deleting none is fine
		})
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, k := range []string{"k1", "k2"} {
				_, err := tx.EmailChange(ctx, k)
				is.True(errors.Is(err, chatcore.ErrNotFound)) // alice's changes are gone
			}
			_, err := tx.EmailChange(ctx, "k3")
			is.NoErr(err) // bob's change is untouched
		})
	}},
}
