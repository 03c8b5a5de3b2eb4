package postgres

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// maxGroup bounds how many Updates share one write group's transaction, so
// that an Update's wait for the COMMIT of the Updates that joined after it
// stays short, and so that a conflict, which rolls the whole group back,
// sends few Updates to run again: on a mixed load with conflicts (sends,
// settings and topic deletions from 64 clients) groups of up to 32 ran
// about a fifth slower than no groups, most of their Updates rolled back
// for another's conflict, where groups of 4 ran as fast as no groups;
// sends to one channel from 16 clients gain as much with 4 as with 32.
const maxGroup = 4

// errRegroup is the error of an Update of a write group that must run in a
// transaction of its own: it reads the event log while earlier Updates of
// its group have appends waiting for the group's COMMIT. Update runs it
// again at once, alone in its transaction.
var errRegroup = errors.New("postgres: the update reads the event log behind its write group's appends; it runs again in a transaction of its own")

// errGroupRolledBack is the error of the Updates of a write group that one
// of them doomed (see writeGroups); they run again, each alone.
var errGroupRolledBack = errors.New("postgres: write group rolled back")

// errHeldBack wraps the failure of a statement that an Update of a write
// group held back (a message insert, see CreateMessage), which may reach
// the server in a later Update's batch or with the group's COMMIT: the
// group rolls back, and each of its Updates runs again in a transaction of
// its own, where the statement fails the Update that made it.
var errHeldBack = errors.New("postgres: a statement held back in a write group failed")

// notOwnConflict reports an error that ended a write group's Update for a
// cause not of its own (errRegroup, errGroupRolledBack, errHeldBack): the
// Update runs again at once in a transaction of its own (see Store.Update).
func notOwnConflict(err error) bool {
	return errors.Is(err, errRegroup) || errors.Is(err, errGroupRolledBack) || errors.Is(err, errHeldBack)
}

// writeGroups runs the first attempt of each Update in a write group: a
// transaction that Updates queued behind one another share (group commit).
// A group saves each of its Updates but the first the BEGIN, the write
// gate's lock and the COMMIT, and lets them all take a realm's append lock
// once, with the COMMIT: the appends of a group's Updates wait for its
// COMMIT and go with it as one statement (see lazyTx.deferred). Under a
// load of writes to one realm that lock is what the writes queue for, each
// transaction holding it from its append to the end of its COMMIT; a group
// holds it once for many.
//
// There are several slots, each with at most one open group, so that
// groups run side by side: while one commits, holding the append lock, the
// next runs its Updates' statements. An Update takes the first free slot
// (see lock), or when every slot runs an Update waits at the next one in
// turn for it to finish; then it joins the slot's open group, or begins one
// when there is none.
//
// Each Update still succeeds or fails alone. The first Update of a group
// runs in the transaction directly, and its failure rolls the transaction
// back and ends the group. Every later one runs inside a SAVEPOINT, rolled
// back when its fn fails, panics or its context ends, so a failed Update
// leaves nothing in the group, not even its appends. An Update whose fn
// succeeded returns once the group's transaction has committed (nil) or
// failed to (the COMMIT's error, for every Update in it). A statement that
// fails on the server ends the group instead (see runOne): its Update fails
// with that error, and the group rolls back, every other Update in it
// running again in a transaction of its own (see Store.Update), which the
// groups cannot starve. Statements fail rarely; a serialization failure or
// deadlock is the common case, and it may have doomed the whole transaction.
//
// Statements run with their Update's context stripped of cancellation
// after checking it (see lazyTx.detached): a cancelled statement would cost
// the group its connection. A context that ends takes effect before the
// next statement and when fn returns.
type writeGroups struct {
	pool   *pgxpool.Pool
	notify *notifier
	subs   *subscriberCache // the Store's (see tx.subs)
	slots  []writeSlot
	next   atomic.Uint64
	// commits counts the groups committed (for tests).
	commits atomic.Int64
	// observe, when set, gets the size of each committed group
	// (WithGroupCommitObserver).
	observe func(updates int)
}

// writeSlot holds one open group at most.
type writeSlot struct {
	// mu is held while one Update of the slot runs its fn; queued counts
	// the Updates waiting for it (they join the open group).
	mu     sync.Mutex
	queued atomic.Int64
	open   *writeGroup
}

// writeGroup is one transaction shared by Updates.
type writeGroup struct {
	tx   *lazyTx
	kept int // Updates whose changes it holds
	// doomed is the retryable failure of one of its Updates: the group
	// rolls back instead of committing.
	doomed error
	// appended are the events its kept Updates appended, announced once it
	// has committed.
	appended []store.LoggedEvent
	done     chan struct{}
	err      error // the group's end, set before done is closed
}

// newWriteGroups returns the write groups of a store with slots slots.
func newWriteGroups(pool *pgxpool.Pool, notify *notifier, subs *subscriberCache, slots int) *writeGroups {
	return &writeGroups{pool: pool, notify: notify, subs: subs, slots: make([]writeSlot, slots)}
}

// update runs fn as one Update in a write group and reports whether it is
// to run again (in a transaction of its own), with why.
func (w *writeGroups) update(ctx context.Context, fn func(tx store.Tx) error) (retry bool, err error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	slot := w.lock()
	g := slot.open
	first := g == nil
	if first {
		lt, err := beginLazy(ctx, w.pool, beginShared...)
		if err != nil {
			slot.mu.Unlock()
			return false, fmt.Errorf("postgres: begin update: %w", err)
		}
		lt.detached = true
		g = &writeGroup{tx: lt, done: make(chan struct{})}
		slot.open = g
	}
	kept, retry, err := w.runOne(ctx, slot, g, first, fn)
	w.release(slot, g)
	if !kept {
		return retry, err
	}
	<-g.done
	if g.err != nil {
		return isRetryable(g.err) || notOwnConflict(g.err), g.err
	}
	return false, nil
}

// isContextErr reports whether err is a context's: a statement not sent.
func isContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// lock locks a slot for an Update and returns it: the first free slot
// from the next one in turn, or when none is free the next one in turn,
// once the Update running there has finished.
func (w *writeGroups) lock() *writeSlot {
	start := w.next.Add(1)
	for i := range uint64(len(w.slots)) {
		if slot := &w.slots[(start+i)%uint64(len(w.slots))]; slot.mu.TryLock() {
			return slot
		}
	}
	slot := &w.slots[start%uint64(len(w.slots))]
	slot.queued.Add(1)
	slot.mu.Lock()
	slot.queued.Add(-1)
	return slot
}

// savepoint queues a statement that manages an Update's savepoint; its
// failure loses the group (see lazyTx.lost).
func savepoint(l *lazyTx, query string) {
	l.enqueueKind(aheadStmt{sql: query, read: func(br pgx.BatchResults) error {
		_, err := br.Exec()
		if err != nil && l.lost == nil {
			l.lost = err
		}
		return err
	}})
}

// runOne runs fn in g (inside a savepoint unless first) with slot.mu held
// and reports whether g keeps its changes; when not, it returns why, and
// whether the Update is to run again. A panic of fn undoes its changes,
// releases slot.mu through release and is re-raised.
func (w *writeGroups) runOne(ctx context.Context, slot *writeSlot, g *writeGroup, first bool, fn func(tx store.Tx) error) (kept, retry bool, err error) {
	lt := g.tx
	if !first {
		savepoint(lt, "SAVEPOINT op")
	}
	t := newTx(&tx{tx: lt, notify: w.notify, subs: w.subs})
	undo := func(cause error) {
		lt.memberDone(false)
		switch {
		case first:
			slot.open = nil
			_ = lt.rollback(context.WithoutCancel(ctx))
			g.err = cause
			close(g.done)
		case t.failed != nil && !isContextErr(t.failed) || lt.lost != nil:
			// A statement failed on the server (or the connection did). A
			// savepoint would not take back a serialization failure, which
			// may have doomed the transaction itself, and pgx forgets the
			// prepared statements of a failed batch that the server keeps
			// until the transaction ends, so the group ends here: its other
			// Updates run again, each alone.
			if g.doomed == nil {
				g.doomed = cause
				if lt.lost != nil {
					g.doomed = lt.lost
				}
			}
		default:
			savepoint(lt, "ROLLBACK TO SAVEPOINT op")
			savepoint(lt, "RELEASE SAVEPOINT op")
		}
	}
	ferr := sqlstore.Call(t, fn, func() { undo(errors.New("postgres: update panicked")); w.release(slot, g) })
	switch {
	case ferr == nil && t.failed != nil:
		ferr = fmt.Errorf("postgres: commit after a failed statement: %w", t.failed)
	case ferr == nil && lt.lost != nil:
		ferr = fmt.Errorf("postgres: shared transaction lost: %w", lt.lost)
	case ferr == nil && ctx.Err() != nil:
		ferr = fmt.Errorf("postgres: not committed: %w", ctx.Err())
	}
	if t.failed != nil && (isRetryable(t.failed) || errors.Is(t.failed, errHeldBack)) && !isRetryable(ferr) {
		ferr = t.failed // the cause to report if the Update runs no more
	}
	if connLost(t.failed) && !connLost(ferr) {
		// The connection died under fn, which answered with an error of
		// its own making: the lost connection is the cause (Update runs fn
		// again on another connection).
		ferr = fmt.Errorf("%w (%w)", t.failed, ferr)
	}
	if ferr != nil {
		undo(ferr)
		return false, isRetryable(ferr) || notOwnConflict(ferr), ferr
	}
	lt.memberDone(true)
	if !first {
		savepoint(lt, "RELEASE SAVEPOINT op")
	}
	g.appended = append(g.appended, t.appended...)
	g.kept++
	return true, false, nil
}

// release commits g when no Update is queued to join it, even after a
// yield, or it is full, then lets the slot's next Update run; the COMMIT
// itself runs after that, so that the slot's next group begins meanwhile.
func (w *writeGroups) release(slot *writeSlot, g *writeGroup) {
	if slot.open != g || (g.doomed == nil && slot.queued.Load() > 0 && g.kept < maxGroup) {
		slot.mu.Unlock()
		return
	}
	if g.doomed == nil && g.kept < maxGroup {
		// Before committing, let the goroutines that are runnable (requests
		// on their way to an Update) run once: those that reach Update
		// meanwhile queue and join this group. With nothing else runnable
		// this returns at once.
		runtime.Gosched()
		if slot.queued.Load() > 0 {
			slot.mu.Unlock()
			return
		}
	}
	slot.open = nil
	slot.mu.Unlock()
	w.end(g)
}

// end commits g, or rolls it back when one of its Updates doomed it, and
// lets its Updates return.
func (w *writeGroups) end(g *writeGroup) {
	defer close(g.done)
	ctx := context.Background() // the group outlives its Updates' contexts
	if g.doomed != nil {
		_ = g.tx.rollback(ctx)
		g.err = fmt.Errorf("%w: %w", errGroupRolledBack, g.doomed)
		return
	}
	deferred := g.tx.deferred
	if err := commitOutcome(g.tx.commit(ctx)); err != nil {
		g.err = err
		return
	}
	w.commits.Add(1)
	if w.observe != nil {
		w.observe(g.kept)
	}
	if w.notify != nil {
		for _, a := range deferred {
			g.appended = append(g.appended, a.events...)
		}
	}
	if len(g.appended) > 0 {
		w.notify.committed(g.appended)
	}
}
