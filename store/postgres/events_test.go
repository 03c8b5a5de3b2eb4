package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// TestAppendLocksPerRealm: a transaction that appended events to one realm
// and has not committed yet holds up the appends of that realm only. An
// append to another realm commits meanwhile, and a snapshot taken then sees
// a head for the first realm below the open transaction's entry, so a queue
// registered then still receives that entry.
func TestAppendLocksPerRealm(t *testing.T) {
	is := is.New(t)
	a, b := instances(t)
	ctx := context.Background()

	appended, release, done := make(chan int64), make(chan struct{}), make(chan error, 1)
	var once sync.Once // a retried attempt does not signal again
	var openLast atomic.Int64
	go func() {
		done <- a.Update(ctx, func(tx store.Tx) error {
			events := []store.LoggedEvent{{RealmID: 1, UserIDs: []store.UserID{1}, Data: []byte(`{"type":"open"}`)}}
			if err := tx.AppendEvents(ctx, events); err != nil {
				return err
			}
			// The append goes to the server with the next statement (or
			// the commit): send it now, so that it holds its lock.
			if _, err := tx.LastEventID(ctx, 1); err != nil {
				return err
			}
			openLast.Store(events[0].ID) // the committed attempt's id is the last one stored
			once.Do(func() { appended <- events[0].ID })
			<-release
			return nil
		})
	}()
	open := <-appended

	// Another realm: not held up (a wait would run into the deadline).
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	// (A user of the other realm: users belong to one realm. Two appends
	// that add the same audience, a set of users, do wait for each other.)
	others := []store.LoggedEvent{{RealmID: 2, UserIDs: []store.UserID{2}, Data: []byte(`{"type":"other"}`)}}
	err := b.Update(short, func(tx store.Tx) error { return tx.AppendEvents(short, others) })
	other := others[0].ID // filled in by the commit
	is.NoErr(err)         // the other realm's append committed while the first is open
	is.True(other > open) // ids still come from one sequence
	err = b.View(ctx, func(tx store.Tx) error {
		head, err := tx.LastEventID(ctx, 1)
		is.NoErr(err)
		is.True(head < open) // the open entry is above the realm's head: a queue registered now gets it
		head, err = tx.LastEventID(ctx, 2)
		is.NoErr(err)
		is.Equal(head, other) // the committed realm's head
		return nil
	})
	is.NoErr(err)

	// The same realm: held up until the first transaction ends.
	sameDone := make(chan int64, 1)
	go func() {
		var id int64
		err := b.Update(ctx, func(tx store.Tx) error {
			events := []store.LoggedEvent{{RealmID: 1, UserIDs: []store.UserID{1}, Data: []byte(`{"type":"same"}`)}}
			if err := tx.AppendEvents(ctx, events); err != nil {
				return err
			}
			_, err := tx.LastEventID(ctx, 1) // sends the append
			id = events[0].ID
			return err
		})
		if err != nil {
			t.Error(err)
		}
		sameDone <- id
	}()
	waiting := false
	for range 200 {
		var n int
		err := b.Pool().QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").Scan(&n)
		is.NoErr(err)
		if n > 0 {
			waiting = true
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	is.True(waiting) // the second append to the realm waits for the lock
	select {
	case <-sameDone:
		t.Fatal("the second append to the realm committed while the first was open")
	default:
	}
	close(release)
	is.NoErr(<-done) // the first transaction commits
	same := <-sameDone
	is.True(same > open) // the waiting append follows, after the first
	err = b.View(ctx, func(tx store.Tx) error {
		head, err := tx.LastEventID(ctx, 1)
		is.NoErr(err)
		// Both committed. The first transaction may have been retried
		// (PostgreSQL can fail it on commit as the pivot of the appends
		// around it), its entry then taking an id above the second's.
		is.Equal(head, max(same, openLast.Load()))
		return nil
	})
	is.NoErr(err)
}

// TestPruneRacesAppendOfAudience: a prune that deletes the last entry of an
// audience, and with it the audience, while another transaction appends an
// entry naming that audience (found before the prune committed) loses
// nothing: one of the two fails to serialise and runs again, and the new
// entry reaches its users. Appends of one audience share its rows.
func TestPruneRacesAppendOfAudience(t *testing.T) {
	is := is.New(t)
	a, b := instances(t)
	ctx := context.Background()
	users := []store.UserID{41, 42}
	first := []store.LoggedEvent{{RealmID: 4, UserIDs: users, Data: []byte(`{"type":"first"}`)}}
	is.NoErr(a.Update(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, first) }))

	appended, release, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	var once sync.Once
	later := []store.LoggedEvent{{RealmID: 4, UserIDs: users, Data: []byte(`{"type":"later"}`)}}
	go func() {
		done <- a.Update(ctx, func(tx store.Tx) error {
			if err := tx.AppendEvents(ctx, later); err != nil {
				return err
			}
			if _, err := tx.LastEventID(ctx, 4); err != nil { // sends the append
				return err
			}
			once.Do(func() { close(appended) })
			<-release
			return nil
		})
	}()
	<-appended
	is.NoErr(b.Update(ctx, func(tx store.Tx) error {
		n, err := tx.PruneEvents(ctx, first[0].ID, 10)
		is.Equal(n, 1) // the first entry (the open one is not in its snapshot)
		return err
	}))
	close(release)
	is.NoErr(<-done) // the append committed, on a later attempt when it lost the race
	for _, u := range users {
		is.NoErr(b.View(ctx, func(tx store.Tx) error {
			got, err := tx.EventsFor(ctx, store.EventLogQuery{RealmID: 4, UserID: u})
			is.Equal(len(got), 1)                             // the later entry reaches its user
			is.Equal(string(got[0].Data), `{"type":"later"}`) // (and the pruned one is gone)
			return err
		}))
	}

	more := []store.LoggedEvent{{RealmID: 4, UserIDs: []store.UserID{42, 41}, Data: []byte(`{"type":"more"}`)}}
	is.NoErr(a.Update(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, more) }))
	var audiences, rows int
	is.NoErr(a.Pool().QueryRow(ctx, `SELECT count(DISTINCT audience_id), count(*) FROM event_log WHERE realm_id = 4`).Scan(&audiences, &rows))
	is.Equal([]int{audiences, rows}, []int{1, 2}) // both entries name one audience
	var members int
	is.NoErr(a.Pool().QueryRow(ctx, `SELECT count(*) FROM event_audience_users WHERE user_id = ANY($1)`, []int64{41, 42}).Scan(&members))
	is.Equal(members, 2) // its users once
}

// roundTrips is a pgx tracer that counts the requests a pool's connections
// send to the server (n: each statement sent alone and each batch of
// statements is one), and the plan mode settings among the statements of
// batches (planSets); it shows every statement sent, with its arguments,
// to stmts (see statementLog).
type roundTrips struct {
	n, planSets atomic.Int64
	stmts       statementLog
}

func (r *roundTrips) TraceQueryStart(ctx context.Context, c *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	r.n.Add(1)
	r.stmts.sent(c, d.SQL, d.Args)
	return ctx
}
func (r *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (r *roundTrips) TraceBatchStart(ctx context.Context, c *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	r.n.Add(1)
	for _, q := range d.Batch.QueuedQueries {
		r.stmts.sent(c, q.SQL, q.Arguments)
	}
	return ctx
}
func (r *roundTrips) TraceBatchQuery(_ context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	if strings.HasPrefix(d.SQL, "SET LOCAL plan_cache_mode") {
		r.planSets.Add(1)
	}
}
func (r *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

// during returns the round trips f takes.
func (r *roundTrips) during(f func()) int64 {
	before := r.n.Load()
	f()
	return r.n.Load() - before
}

// tracedStore opens a store (see pgtest.Open) whose round trips are counted.
func tracedStore(t *testing.T, opts ...postgres.Option) (*postgres.Store, *roundTrips) {
	trips := &roundTrips{}
	st := pgtest.Open(t, append(opts, postgres.WithPoolConfig(func(c *pgxpool.Config) {
		pgtest.Fast(c)
		c.ConnConfig.Tracer = trips
	}))...)
	return st, trips
}

// tracedWorld opens a store whose round trips are counted, without the
// notifier's (see tracedStore), and a test world on it.
func tracedWorld(t *testing.T, opts ...chattest.Option) (*postgres.Store, *roundTrips, *chattest.World) {
	st, trips := tracedStore(t, postgres.WithoutNotify())
	return st, trips, chattest.New(t, append([]chattest.Option{chattest.OnStore(st)}, opts...)...)
}

// createRealm commits a new realm with the string id.
func createRealm(t *testing.T, st *postgres.Store, stringID string) *store.Realm {
	ctx := context.Background()
	realm := &store.Realm{StringID: stringID, Name: stringID, DateCreated: time.Now()}
	if err := st.Update(ctx, func(tx store.Tx) error { return tx.CreateRealm(ctx, realm) }); err != nil {
		t.Fatal(err)
	}
	return realm
}

// TestAppendGoesWithCommit: an append is sent with the transaction's COMMIT,
// in one round trip, and its ids are filled in once Update returns; a
// statement after the append in the same transaction sends it first and
// sees its entries; an append that fails at the commit fails the Update and
// takes the transaction's other writes with it.
func TestAppendGoesWithCommit(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st, trips := tracedStore(t, postgres.WithoutNotify())
	entry := func(name string) store.LoggedEvent {
		return store.LoggedEvent{RealmID: 1, UserIDs: []store.UserID{5}, Data: []byte(`{"type":"` + name + `"}`)}
	}

	events := []store.LoggedEvent{entry("a"), entry("b")}
	before := trips.n.Load()
	err := st.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.LastEventID(ctx, 1); err != nil { // the first statement begins the transaction
			return err
		}
		if err := tx.AppendEvents(ctx, events); err != nil {
			return err
		}
		is.Equal(events[0].ID, int64(0)) // not sent yet
		return nil
	})
	is.NoErr(err)
	is.Equal(trips.n.Load()-before, int64(2)) // BEGIN with the read, then the append with the COMMIT
	is.True(events[0].ID > 0)                 // ids filled in by the commit
	is.Equal(events[1].ID, events[0].ID+1)

	var seen []store.LoggedEvent
	more := []store.LoggedEvent{entry("c")}
	err = st.Update(ctx, func(tx store.Tx) error {
		if err := tx.AppendEvents(ctx, more); err != nil {
			return err
		}
		var err error
		seen, err = tx.EventsFor(ctx, store.EventLogQuery{RealmID: 1, UserID: 5, After: events[1].ID})
		return err
	})
	is.NoErr(err)
	is.Equal(len(seen), 1) // the transaction's later statement sees its own append
	is.Equal(seen[0].ID, more[0].ID)
	is.Equal(string(seen[0].Data), `{"type":"c"}`)

	// Data that is not JSON fails the append at the commit.
	bad := []store.LoggedEvent{{RealmID: 1, UserIDs: []store.UserID{5}, Data: []byte(`{not json`)}}
	err = st.Update(ctx, func(tx store.Tx) error {
		if err := tx.CreateRealm(ctx, &store.Realm{StringID: "lost", Name: "Lost", DateCreated: time.Now()}); err != nil {
			return err
		}
		return tx.AppendEvents(ctx, bad)
	})
	is.True(err != nil) // the append's failure fails the Update
	is.True(strings.Contains(err.Error(), "append events"))
	err = st.View(ctx, func(tx store.Tx) error {
		_, err := tx.RealmByStringID(ctx, "lost")
		is.True(errors.Is(err, store.ErrNotFound)) // the transaction's other write did not commit
		head, err := tx.LastEventID(ctx, 1)
		is.Equal(head, more[0].ID) // nor did the entry
		return err
	})
	is.NoErr(err)
}
