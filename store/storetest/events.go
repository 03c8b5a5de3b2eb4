package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// ev is a log entry of realm 1 for users, with data naming it.
func ev(name string, users ...store.UserID) store.LoggedEvent {
	return store.LoggedEvent{RealmID: 1, UserIDs: users, Data: []byte(`{"type":"` + name + `"}`)}
}

// appendEvents appends the entries in one transaction and returns their ids.
func appendEvents(tb testing.TB, st store.Store, events ...store.LoggedEvent) []int64 {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		is.NoErr(tx.AppendEvents(ctx, events)) // events appended
	})
	ids := make([]int64, len(events))
	for i, e := range events {
		ids[i] = e.ID
	}
	return ids
}

// eventNames returns the data of the entries q selects, as strings.
func eventNames(tb testing.TB, st store.Store, q store.EventLogQuery) []string {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var out []string
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		es, err := tx.EventsFor(ctx, q)
		is.NoErr(err) // events read
		for _, e := range es {
			is.True(e.UserIDs == nil) // results leave the users out
			out = append(out, string(e.Data))
		}
		n, err := tx.CountEventsFor(ctx, q, 1000)
		is.NoErr(err) // events counted
		if q.Limit == 0 {
			is.Equal(n, len(es)) // the count matches the list
		}
	})
	return out
}

func data(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = `{"type":"` + n + `"}`
	}
	return out
}

var eventTests = []test{
	{"AppendAndRead", func(t *testing.T, st store.Store) {
		is := is.New(t)
		ids := appendEvents(t, st, ev("a", 1, 2), ev("b", 2), store.LoggedEvent{RealmID: 2, UserIDs: []store.UserID{1}, Data: []byte(`{"type":"x"}`)})
		is.True(ids[0] > 0 && ids[1] > ids[0] && ids[2] > ids[1]) // ids increase in append order
		more := appendEvents(t, st, ev("c", 1, 3))
		is.True(more[0] > ids[2])                                                                         // a later transaction gets higher ids
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1}), data("a", "c"))           // the user's entries of the realm, in order
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 2}), data("a", "b"))           // another user's
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 2, UserID: 1}), data("x"))                // never across realms
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1, After: ids[0]}), data("c")) // After is exclusive
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1, Limit: 1}), data("a"))      // Limit bounds the result
		is.Equal(len(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 9})), 0)                   // nothing for others
		view(t, st, func(ctx context.Context, tx store.Tx) {
			last, err := tx.LastEventID(ctx, 0)
			is.NoErr(err)           // last id read
			is.Equal(last, more[0]) // the highest id appended, of any realm
			last, err = tx.LastEventID(ctx, 1)
			is.NoErr(err)           // a realm's head read
			is.Equal(last, more[0]) // the realm's highest id
			last, err = tx.LastEventID(ctx, 2)
			is.NoErr(err)                              // another realm's head read
			is.True(last >= ids[2] && last <= more[0]) // at or above the realm's highest id, at most the log's
			last, err = tx.LastEventID(ctx, 3)
			is.NoErr(err)            // the head of a realm without entries read
			is.True(last <= more[0]) // at most the log's
			n, err := tx.CountEventsFor(ctx, store.EventLogQuery{RealmID: 1, UserID: 1}, 1)
			is.NoErr(err)  // counted
			is.Equal(n, 1) // counting stops at max
		})
	}},
	{"PublicGroups", func(t *testing.T, st store.Store) {
		is := is.New(t)
		// Message 7 went to users 1 and 2 (two flag groups) with a public
		// copy; message 8 to user 3 with a public copy.
		m7a, m7b, m7p := ev("m7-1", 1), ev("m7-2", 2), ev("m7-public")
		m7a.Group, m7b.Group, m7p.Group, m7p.Public = 7, 7, 7, true
		m8, m8p := ev("m8", 3), ev("m8-public")
		m8.Group, m8p.Group, m8p.Public = 8, 8, true
		m9p := ev("m9-public") // a message nobody received, only its public copy
		m9p.Group, m9p.Public = 9, true
		appendEvents(t, st, m7a, m7b, m7p, ev("other", 1), m8, m8p)
		appendEvents(t, st, m9p)
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1, Public: true}), data("m7-1", "other", "m8-public", "m9-public")) // own copy of 7, public copies of 8 and 9
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 2, Public: true}), data("m7-2", "m8-public", "m9-public"))
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 3, Public: true}), data("m7-public", "m8", "m9-public")) // public copy only where the group missed them
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 4, Public: true}), data("m7-public", "m8-public", "m9-public"))
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 4}), []string(nil))               // public copies need Public
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 2, UserID: 4, Public: true}), []string(nil)) // never across realms
	}},
	{"PublicAddressed", func(t *testing.T, st store.Store) {
		is := is.New(t)
		// Message 5 went to users 1 and 2 with flags and to user 3 without;
		// user 3's entry serves the public queues too.
		m5a, m5b := ev("m5-flagged", 1, 2), ev("m5-plain", 3)
		m5a.Group, m5b.Group, m5b.Public = 5, 5, true
		// Message 6's only entry is addressed and public.
		m6 := ev("m6", 1)
		m6.Group, m6.Public = 6, true
		appendEvents(t, st, m5a, m5b, m6)
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1, Public: true}), data("m5-flagged", "m6")) // once each, its own entry
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 2, Public: true}), data("m5-flagged", "m6")) // not m5's shared entry: its group has one for 2
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 3, Public: true}), data("m5-plain", "m6"))
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 4, Public: true}), data("m5-plain", "m6")) // the shared entries
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 4}), []string(nil))                        // they need Public
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 3}), data("m5-plain"))                     // addressed ones do not
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.CountEventsFor(ctx, store.EventLogQuery{RealmID: 1, UserID: 1, Public: true}, 10)
			is.NoErr(err)  // counted
			is.Equal(n, 2) // counted once each too
		})
	}},
	{"PruneGroupsWhole", func(t *testing.T, st store.Store) {
		is := is.New(t)
		// Message 3 went to user 1 with flags, to user 2 without, the entry
		// of user 2 serving the public queues too; then an entry for user 1.
		m3a, m3b := ev("m3-1", 1), ev("m3-2", 2)
		m3a.Group, m3b.Group, m3b.Public = 3, 3, true
		ids := appendEvents(t, st, ev("first", 1), m3a, m3b, ev("later", 1))
		prune := func(through int64, limit int) (n int) {
			update(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				n, err = tx.PruneEvents(ctx, through, limit)
				is.NoErr(err) // pruned
			})
			return n
		}
		// User 1's queue stands at its entry of message 3.
		is.Equal(prune(ids[1], 10), 1)                                                                                      // the entry before the group only: the group continues past its bound
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1, After: ids[1], Public: true}), data("later")) // the group's public entry still sees user 1's
		is.Equal(prune(ids[3], 1), 0)                                                                                       // a limit ending inside the group keeps it whole
		is.Equal(prune(ids[3], 3), 3)                                                                                       // one past it takes it whole
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1, Public: true}), []string(nil))
	}},
	{"Prune", func(t *testing.T, st store.Store) {
		is := is.New(t)
		ids := appendEvents(t, st, ev("a", 1), ev("b", 1), ev("c", 1), ev("d", 1))
		ctx := context.Background()
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.PruneEvents(ctx, ids[2], 2)
			is.NoErr(err)  // pruned
			is.Equal(n, 2) // at most limit, oldest first
		})
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1}), data("c", "d"))
		err := st.Update(ctx, func(tx store.Tx) error {
			if _, err := tx.PruneEvents(ctx, ids[3], 10); err != nil {
				return err
			}
			return errors.New("roll back")
		})
		is.True(err != nil)                                                                     // the transaction rolled back
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1}), data("c", "d")) // a rolled-back prune leaves the log
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.PruneEvents(ctx, ids[2], 10)
			is.NoErr(err)  // pruned
			is.Equal(n, 1) // only entries through the bound
			n, err = tx.PruneEvents(ctx, ids[2], 10)
			is.NoErr(err)  // pruned again
			is.Equal(n, 0) // nothing left to prune
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			p, err := tx.EventsPrunedThrough(ctx, 1)
			is.NoErr(err)       // read
			is.Equal(p, ids[2]) // the highest pruned id
			last, err := tx.LastEventID(ctx, 1)
			is.NoErr(err)          // read
			is.Equal(last, ids[3]) // pruning does not lower the last id
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.PruneEvents(ctx, ids[3], 10)
			is.NoErr(err) // the whole log pruned
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			last, err := tx.LastEventID(ctx, 1)
			is.NoErr(err)          // read
			is.Equal(last, ids[3]) // pruning the whole realm does not lower its head
		})
		next := appendEvents(t, st, ev("e", 1))
		is.True(next[0] > ids[3]) // ids are not reused after pruning everything
		// Another realm's entry, pruned: that realm's mark reaches it, and
		// the first realm's head stays at or above its own last entry.
		other := ev("x", 1)
		other.RealmID = 2
		x := appendEvents(t, st, other)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.PruneEvents(ctx, x[0], 10)
			is.NoErr(err)  // pruned
			is.Equal(n, 2) // e and x
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			p, err := tx.EventsPrunedThrough(ctx, 2)
			is.NoErr(err)     // read
			is.Equal(p, x[0]) // the realm's highest pruned id
			p, err = tx.EventsPrunedThrough(ctx, 1)
			is.NoErr(err)                      // read
			is.True(p >= next[0] && p <= x[0]) // at or above the realm's own, at most the log's
			last, err := tx.LastEventID(ctx, 2)
			is.NoErr(err)        // read
			is.Equal(last, x[0]) // the pruned realm's head stays
		})
	}},
	{"AppendRollsBack", func(t *testing.T, st store.Store) {
		is := is.New(t)
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			if err := tx.AppendEvents(ctx, []store.LoggedEvent{ev("lost", 1)}); err != nil {
				return err
			}
			return errors.New("roll back")
		})
		is.True(err != nil)                                                                    // rolled back
		is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: 1}), []string(nil)) // a rolled-back append leaves nothing
		err = st.View(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, []store.LoggedEvent{ev("x", 1)}) })
		is.True(err != nil) // appending in a View fails
	}},
	{"Queues", func(t *testing.T, st store.Store) {
		is := is.New(t)
		ctx := context.Background()
		mk := func(id string, user store.UserID, pos int64, poll time.Time) *store.EventQueue {
			return &store.EventQueue{ID: id, RealmID: 1, UserID: user, Params: []byte(`{"p":1}`), Public: user == 2,
				Lifespan: 10 * time.Minute, Position: pos, Acked: -1, Created: epoch, LastPoll: poll}
		}
		a, b, c := mk("a", 1, 5, epoch), mk("b", 2, 3, epoch.Add(time.Minute)), mk("c", 1, 9, epoch.Add(2*time.Minute))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, q := range []*store.EventQueue{a, b, c} {
				is.NoErr(tx.CreateEventQueue(ctx, q)) // queue created
			}
		})
		err := st.Update(ctx, func(tx store.Tx) error { return tx.CreateEventQueue(ctx, mk("a", 3, 0, epoch)) })
		is.True(errors.Is(err, store.ErrConflict)) // a queue id in use
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.EventQueue(ctx, "b")
			is.NoErr(err)      // queue found
			is.Equal(*got, *b) // every field round-trips
			_, err = tx.EventQueue(ctx, "zz")
			is.True(errors.Is(err, store.ErrNotFound)) // unknown queue
			oldest, ok, err := tx.OldestEventQueuePosition(ctx)
			is.NoErr(err)              // read
			is.True(ok)                // there are queues
			is.Equal(oldest, int64(3)) // the smallest position
		})
		ids := func(f store.EventQueueFilter) []string {
			var out []string
			view(t, st, func(ctx context.Context, tx store.Tx) {
				qs, err := tx.EventQueues(ctx, f)
				is.NoErr(err) // queues listed
				for _, q := range qs {
					out = append(out, q.ID)
				}
			})
			return out
		}
		is.Equal(ids(store.EventQueueFilter{}), []string{"a", "b", "c"})                             // every queue by id
		is.Equal(ids(store.EventQueueFilter{UserID: 1}), []string{"a", "c"})                         // by user
		is.Equal(ids(store.EventQueueFilter{RealmID: 2}), []string(nil))                             // by realm
		is.Equal(ids(store.EventQueueFilter{PositionBelow: 6}), []string{"a", "b"})                  // by position
		is.Equal(ids(store.EventQueueFilter{AfterID: "a", Limit: 1}), []string{"b"})                 // paging
		is.Equal(ids(store.EventQueueFilter{ExpiredAt: epoch.Add(10 * time.Minute)}), []string(nil)) // a queue at the end of its lifespan is not yet expired
		is.Equal(ids(store.EventQueueFilter{ExpiredAt: epoch.Add(10*time.Minute + time.Second/2)}), []string{"a"})
		is.Equal(ids(store.EventQueueFilter{ExpiredAt: epoch.Add(11*time.Minute + time.Second)}), []string{"a", "b"})
		is.Equal(ids(store.EventQueueFilter{OldestPollFirst: true}), []string{"a", "b", "c"})            // by last poll: a, b, c polled in that order
		is.Equal(ids(store.EventQueueFilter{UserID: 1, OldestPollFirst: true, Limit: 1}), []string{"a"}) // the user's queue idle longest
		count := func(f store.EventQueueFilter) int {
			var n int
			view(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				n, err = tx.CountEventQueues(ctx, f)
				is.NoErr(err) // queues counted
			})
			return n
		}
		is.Equal(count(store.EventQueueFilter{}), 3)                                                   // every queue
		is.Equal(count(store.EventQueueFilter{UserID: 1}), 2)                                          // by user
		is.Equal(count(store.EventQueueFilter{RealmID: 1, Limit: 2}), 2)                               // counting stops at the limit
		is.Equal(count(store.EventQueueFilter{RealmID: 2}), 0)                                         // by realm
		is.Equal(count(store.EventQueueFilter{ExpiredAt: epoch.Add(11*time.Minute + time.Second)}), 2) // expired ones
		update(t, st, func(ctx context.Context, tx store.Tx) {
			u := *a
			u.Position, u.Acked, u.LastPoll = 20, 77, epoch.Add(time.Hour)
			u.UserID, u.Params = 9, []byte("changed")
			is.NoErr(tx.UpdateEventQueue(ctx, &u)) // queue updated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.EventQueue(ctx, "a")
			is.NoErr(err) // found
			want := *a
			want.Position, want.Acked, want.LastPoll = 20, 77, epoch.Add(time.Hour)
			is.Equal(*got, want) // only position, acked and last poll change
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.DeleteEventQueues(ctx, []string{"a", "zz", "b"})
			is.NoErr(err)  // deleted
			is.Equal(n, 2) // the queues that existed
		})
		err = st.Update(ctx, func(tx store.Tx) error { return tx.UpdateEventQueue(ctx, a) })
		is.True(errors.Is(err, store.ErrNotFound)) // a deleted queue
		is.Equal(ids(store.EventQueueFilter{}), []string{"c"})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.DeleteEventQueues(ctx, []string{"c"})
			is.NoErr(err) // deleted
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, ok, err := tx.OldestEventQueuePosition(ctx)
			is.NoErr(err) // read
			is.True(!ok)  // no queue left
		})
	}},
	{"QueuePruneBound", func(t *testing.T, st store.Store) {
		is := is.New(t)
		other := ev("y", 1)
		other.RealmID = 2
		ids := appendEvents(t, st, ev("x", 1), other, ev("z", 1))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for i, realm := range []store.RealmID{1, 2} {
				is.NoErr(tx.CreateEventQueue(ctx, &store.EventQueue{ID: []string{"q1", "q2"}[i], RealmID: realm, UserID: 1,
					Params: []byte(`{}`), Lifespan: time.Minute, Position: ids[i], Acked: -1, Created: epoch, LastPoll: epoch})) // created
			}
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			bound, ok, err := tx.OldestEventQueuePosition(ctx)
			is.NoErr(err)                              // read
			is.True(ok)                                // there are queues
			is.True(bound >= ids[0] && bound < ids[2]) // at or above the smallest position, below the entry realm 1's queue still needs
		})
	}},
	{"ManyUsers", func(t *testing.T, st store.Store) {
		is := is.New(t)
		users := make([]store.UserID, 500)
		for i := range users {
			users[i] = store.UserID(i + 1)
		}
		appendEvents(t, st, ev("all", users...))
		for _, u := range []store.UserID{1, 250, 500} {
			is.Equal(eventNames(t, st, store.EventLogQuery{RealmID: 1, UserID: u}), data("all")) // every addressed user gets it
		}
	}},
}
