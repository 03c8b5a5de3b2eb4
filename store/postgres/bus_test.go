package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// instances opens two stores on one schema, as two server processes on one
// database have.
func instances(tb testing.TB) (a, b *postgres.Store) {
	tb.Helper()
	url, schema := pgtest.Schema(tb)
	open := func() *postgres.Store {
		st, err := postgres.Open(context.Background(), url, postgres.WithSchema(schema), postgres.WithMaxConns(4), postgres.WithPoolConfig(pgtest.Fast))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { st.Close() })
		return st
	}
	return open(), open()
}

// appendEvents commits events of realm for users through st and returns the
// highest id.
func appendEvents(tb testing.TB, st store.Store, realm store.RealmID, users []store.UserID, n int) int64 {
	tb.Helper()
	events := make([]store.LoggedEvent, n)
	for i := range events {
		events[i] = store.LoggedEvent{RealmID: realm, UserIDs: users, Data: []byte(`{"type":"test"}`)}
	}
	ctx := context.Background()
	if err := st.Update(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, events) }); err != nil {
		tb.Fatal(err)
	}
	return events[n-1].ID
}

// subscribe returns a channel receiving every notice b hands out.
func subscribe(tb testing.TB, b *postgres.Bus) <-chan store.EventNotice {
	ch := make(chan store.EventNotice, 1000)
	stop := b.Subscribe(func(ns []store.EventNotice) {
		for _, n := range ns {
			ch <- n
		}
	})
	tb.Cleanup(stop)
	return ch
}

// next returns the next notice, failing after 10 s.
func next(tb testing.TB, ch <-chan store.EventNotice) store.EventNotice {
	tb.Helper()
	select {
	case n := <-ch:
		return n
	case <-time.After(10 * time.Second):
		tb.Fatal("no notice within 10 s")
		return store.EventNotice{}
	}
}

func TestBusAcrossInstances(t *testing.T) {
	is := is.New(t)
	a, b := instances(t)
	ctx := context.Background()
	bus, err := a.Bus(ctx)
	is.NoErr(err) // a listens
	t.Cleanup(bus.Close)
	got := subscribe(t, bus)

	last := appendEvents(t, b, 7, []store.UserID{3, 1, 3}, 2)
	n := next(t, got)
	is.Equal(n.RealmID, store.RealmID(7))         // the realm of the commit through b
	is.Equal(n.UserIDs, []store.UserID{1, 3})     // its users, once each
	is.Equal(n.LastID, last)                      // and its highest id
	err = b.Update(ctx, func(tx store.Tx) error { // a rolled-back append notifies nobody
		if err := tx.AppendEvents(ctx, []store.LoggedEvent{{RealmID: 7, UserIDs: []store.UserID{9}, Data: []byte(`{}`)}}); err != nil {
			return err
		}
		return fmt.Errorf("abort")
	})
	is.True(err != nil)
	appendEvents(t, a, 8, []store.UserID{5}, 1) // a's own commits reach a through Publish only
	bus.Publish([]store.EventNotice{{RealmID: 8, UserIDs: []store.UserID{5}}})
	is.Equal(next(t, got).RealmID, store.RealmID(8)) // the published one
	appendEvents(t, b, 7, []store.UserID{2}, 1)
	n = next(t, got)
	is.Equal(n.UserIDs, []store.UserID{2}) // the next notice is b's: nothing of the rollback, no echo of a's own

	// A commit of two realms names each realm's own highest id.
	mixed := []store.LoggedEvent{
		{RealmID: 7, UserIDs: []store.UserID{1}, Data: []byte(`{}`)},
		{RealmID: 9, UserIDs: []store.UserID{2}, Data: []byte(`{}`)},
		{RealmID: 7, UserIDs: []store.UserID{3}, Data: []byte(`{}`)},
		{RealmID: 9, UserIDs: []store.UserID{4}, Data: []byte(`{}`)},
	}
	is.NoErr(b.Update(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, mixed) })) // two realms appended
	lastOf := map[store.RealmID]int64{}
	for range 2 {
		n := next(t, got)
		lastOf[n.RealmID] = n.LastID
	}
	is.Equal(lastOf, map[store.RealmID]int64{7: mixed[2].ID, 9: mixed[3].ID}) // each realm's highest id

	// A notice too large for one NOTIFY arrives in parts that name every user.
	many := make([]store.UserID, 5000)
	for i := range many {
		many[i] = store.UserID(i + 1)
	}
	appendEvents(t, b, 7, many, 1)
	var seen []store.UserID
	for len(seen) < len(many) {
		n := next(t, got)
		is.Equal(n.RealmID, store.RealmID(7)) // parts of the one commit
		seen = append(seen, n.UserIDs...)
	}
	slices.Sort(seen)
	is.Equal(seen, many) // every user named
}

func TestBusCatchesUpAfterReconnect(t *testing.T) {
	is := is.New(t)
	a, b := instances(t)
	ctx := context.Background()
	bus, err := a.Bus(ctx)
	is.NoErr(err) // a listens
	t.Cleanup(bus.Close)
	got := subscribe(t, bus)
	appendEvents(t, b, 1, []store.UserID{1}, 1)
	next(t, got)

	// Cut the listening connection, then commit while it is down: the
	// reconnected Bus reports the commit from the log.
	var last int64
	postgres.OnBusLost(bus, func() { last = appendEvents(t, b, 1, []store.UserID{4}, 3) })
	var cut int
	err = b.Pool().QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE application_name = 'chatcore bus chatcore_events_' || $1`, a.Schema()).Scan(&cut)
	is.NoErr(err)    // listener cut
	is.Equal(cut, 1) // the one of this bus
	for {
		n := next(t, got)
		if n.LastID != 0 && n.LastID == last {
			is.True(slices.Contains(n.UserIDs, 4)) // the missed commit's user
			break
		}
	}
}

// BenchmarkCrossInstanceWake measures the delay from an Update that appends
// an event through one store (instance b) to the notice reaching the Bus of
// another store on the same database (instance a): the append, its commit,
// the NOTIFY b's notifier sends after it and its delivery, per operation.
// wake-ms is the time from Update's return to the notice.
func BenchmarkCrossInstanceWake(b *testing.B) {
	sa, sb := instances(b)
	ctx := context.Background()
	bus, err := sa.Bus(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(bus.Close)
	got := subscribe(b, bus)
	var afterCommit time.Duration
	for b.Loop() {
		last := appendEvents(b, sb, 1, []store.UserID{1}, 1)
		committed := time.Now()
		for n := next(b, got); n.LastID != last; n = next(b, got) {
		}
		afterCommit += time.Since(committed)
	}
	b.ReportMetric(float64(afterCommit.Microseconds())/1000/float64(b.N), "wake-ms")
}

// TestBusCatchUpBound: while its listening connection stays up, a Bus moves
// the point it would catch up from forward, so a catch-up after hours of
// uptime does not rescan hours of log.
func TestBusCatchUpBound(t *testing.T) {
	is := is.New(t)
	postgres.SetBusRefresh(t, 20*time.Millisecond)
	a, b := instances(t)
	ctx := context.Background()
	bus, err := a.Bus(ctx)
	is.NoErr(err) // a listens
	t.Cleanup(bus.Close)
	start := postgres.BusFrom(bus)
	last := appendEvents(t, b, 1, []store.UserID{1}, 2)
	deadline := time.Now().Add(10 * time.Second)
	for postgres.BusFrom(bus) < last && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	is.True(last > start)                  // the append came after the Bus started
	is.True(postgres.BusFrom(bus) >= last) // the catch-up point moved past it
}
