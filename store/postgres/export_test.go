package postgres

import (
	"context"
	"time"

	"github.com/chatcore/chatcore/store"
)

// OnBusLost makes b call fn when its listening connection is lost, before
// it reconnects.
func OnBusLost(b *Bus, fn func()) { b.lost.Store(&fn) }

// TxExec runs a statement in the transaction of t (a Tx of this package).
func TxExec(ctx context.Context, t store.Tx, sql string, args ...any) error {
	_, err := t.(*tx).exec(ctx, sql, args...)
	return err
}

// TxQueryString runs a query returning one text value in the transaction of t.
func TxQueryString(ctx context.Context, t store.Tx, sql string, args ...any) (string, error) {
	var s string
	err := t.(*tx).queryRow(ctx, sql, args...).Scan(&s)
	return s, err
}

// SetBusRefresh sets how long a Bus waits for a notification before reading
// the log head again, until the test ends.
func SetBusRefresh(tb interface{ Cleanup(func()) }, d time.Duration) {
	old := busRefresh.Swap(int64(d))
	tb.Cleanup(func() { busRefresh.Store(old) })
}

// BusFrom returns the log id from which b would catch up after losing its
// listening connection.
func BusFrom(b *Bus) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.from
}

// GroupCommits returns how many write groups s has committed.
func GroupCommits(s *Store) int64 {
	if s.groups == nil {
		return 0
	}
	return s.groups.commits.Load()
}

// QueuedUpdates returns how many Updates wait for a write group's slot.
func QueuedUpdates(s *Store) int64 {
	var n int64
	for i := range s.groups.slots {
		n += s.groups.slots[i].queued.Load()
	}
	return n
}

// AcquiredConns is how many of the store's pooled connections are in use.
func AcquiredConns(s *Store) int32 { return s.pool.Stat().AcquiredConns() }

// PoisonSubscribers replaces the list of stream id's subscribers st holds
// with ids, at the version held, and reports whether it held one: a read
// that answers ids answered from the cache.
func PoisonSubscribers(st *Store, id store.StreamID, ids []store.UserID) bool {
	l, ok := st.subs.byID.Get(id)
	if ok {
		st.subs.byID.Put(id, subscriberList{version: l.version, ids: ids}, func(subscriberList) bool { return true })
	}
	return ok
}
