package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

// maxGroup bounds how many Updates share one SQLite transaction, so that an
// Update's wait for the commit of the Updates that joined after it stays
// short.
const maxGroup = 32

// writeGroup runs Updates on the writer connection, one at a time, and lets
// Updates that queued while another ran share its SQLite transaction (group
// commit): one BEGIN IMMEDIATE and one COMMIT, whose WAL write is most of a
// small write's cost, for many Updates.
//
// Each Update still succeeds or fails alone. The first Update of a
// transaction runs in it directly; every later one runs inside a SAVEPOINT,
// rolled back when its fn fails, panics or its context ends, so a failed
// Update leaves nothing in the shared transaction, and an Update whose fn
// succeeded returns only once the transaction holding its changes has
// committed (nil) or failed to (the commit's error, for every Update in it).
// Effects an Update's caller publishes after it returns are thus its own and
// committed. The transaction commits when no further Update is queued, even
// after the committing goroutine has yielded once to the runnable ones, or
// after maxGroup Updates.
//
// Statements run with their Update's context stripped of cancellation, after
// checking it: an interrupted write statement can roll back the whole SQLite
// transaction, the other Updates' changes included. A context that ends
// takes effect before the next statement and when fn returns.
type writeGroup struct {
	db    *sql.DB
	cache *stmtCache
	// mu is held while one Update runs its fn; queued counts the Updates
	// waiting for it (they join the open transaction).
	mu     sync.Mutex
	queued atomic.Int64
	open   *group // the transaction later Updates join, or nil
	// commits counts the transactions committed (for tests).
	commits atomic.Int64
	// rows is the Store's row cache, told which cached tables (and users'
	// rows) a transaction changed once it has ended.
	rows *rowCache
	// logHead is the Store's hint of the event log's head, raised when a
	// transaction that appended entries ends.
	logHead *atomic.Int64
	// trace is the Store's statement hook (see withTrace), or nil.
	trace func(query string, args []any)
	// index is the Store's full-text indexer, or nil; each commit wakes
	// it.
	index *indexer
}

// group is one SQLite transaction shared by Updates.
type group struct {
	tx     *sql.Tx
	kept   int      // Updates whose changes it holds
	misses []string // statements its Updates ran unprepared
	done   chan struct{}
	err    error // the commit's error, set before done is closed
	// changed are the cached tables its statements changed, and users the
	// users whose rows alone they changed (see rowCache).
	changed tableSet
	users   []store.UserID
	// appended is the highest event log id its Updates appended.
	appended int64
	// bulkCache reports that a bulk insert raised the writer's page cache
	// (see tx.bulkCache) from cacheSize (PRAGMA cache_size), which ended
	// restores.
	bulkCache bool
	cacheSize int64
}

// update runs fn as one Update; see writeGroup.
func (g *writeGroup) update(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g.queued.Add(1)
	g.mu.Lock()
	g.queued.Add(-1)
	b := g.open
	first := b == nil
	if first {
		// The transaction outlives this Update's context: it is not tied to it.
		sqlTx, err := g.db.BeginTx(context.Background(), nil)
		if err != nil {
			g.mu.Unlock()
			return fmt.Errorf("sqlite: begin update: %w", err)
		}
		b = &group{tx: sqlTx, done: make(chan struct{})}
		g.open = b
	}
	kept, err := g.runOne(ctx, b, first, fn)
	g.release(b)
	if !kept {
		return err
	}
	<-b.done
	return b.err
}

// runOne runs fn in b (inside a savepoint unless first) with g.mu held and
// reports whether b keeps its changes; when not, it returns why. A panic of
// fn undoes its changes, releases g.mu through release and is re-raised.
func (g *writeGroup) runOne(ctx context.Context, b *group, first bool, fn func(tx store.Tx) error) (kept bool, err error) {
	t := newTx(&tx{tx: b.tx, index: g.index, cache: g.cache, detach: true, rows: g.rows, gens: g.rows.now(), userWrites: g.rows.userWritesNow(),
		logHead: g.logHead, group: b, trace: g.trace})
	bg := context.WithoutCancel(ctx)
	if !first {
		if _, err := t.exec(bg, "SAVEPOINT op"); err != nil {
			g.lose(b, err)
			return false, fmt.Errorf("sqlite: savepoint: %w", err)
		}
	}
	undo := func() {
		b.misses = append(b.misses, t.misses...)
		if first {
			g.open = nil
			_ = b.tx.Rollback()
			g.ended(b)
			close(b.done)
			return
		}
		_, err := t.exec(bg, "ROLLBACK TO op")
		if err == nil {
			_, err = t.exec(bg, "RELEASE op")
		}
		if err != nil {
			g.lose(b, err)
		}
	}
	ferr := sqlstore.Call(t, fn, func() { undo(); g.release(b) })
	if ferr == nil {
		ferr = ctx.Err()
		if ferr != nil {
			ferr = fmt.Errorf("sqlite: update: %w", ferr)
		}
	}
	if ferr != nil {
		undo()
		return false, ferr
	}
	if !first {
		if _, err := t.exec(bg, "RELEASE op"); err != nil {
			g.lose(b, err)
			return false, fmt.Errorf("sqlite: release savepoint: %w", err)
		}
	}
	b.misses = append(b.misses, t.misses...)
	b.kept++
	return true, nil
}

// lose ends b after a statement that manages the savepoints failed: SQLite
// may have rolled the whole transaction back, so every Update in it fails.
func (g *writeGroup) lose(b *group, err error) {
	if g.open != b {
		return
	}
	g.open = nil
	_ = b.tx.Rollback()
	b.err = fmt.Errorf("sqlite: shared transaction lost: %w", err)
	g.ended(b)
	close(b.done)
}

// ended tells the row cache which cached tables (and which users' rows
// alone) b, which has committed or rolled back, changed, before b's Updates
// return (see rowCache), and restores the writer's page cache a bulk insert
// raised.
func (g *writeGroup) ended(b *group) {
	if b.bulkCache {
		// The transaction has ended, so the writer's one connection is
		// free; a failure leaves a bigger cache, which costs memory only.
		_, _ = g.db.ExecContext(context.Background(), fmt.Sprintf("PRAGMA cache_size = %d", b.cacheSize))
	}
	if b.changed != 0 || len(b.users) > 0 {
		g.rows.changed(b.changed, b.users)
	}
	if b.appended > g.logHead.Load() { // one writer: no other Store write races this
		g.logHead.Store(b.appended)
	}
}

// release commits b when no Update is queued to join it, even after a yield,
// or it is full, then lets the next Update run.
func (g *writeGroup) release(b *group) {
	defer g.mu.Unlock()
	if g.open != b || (g.queued.Load() > 0 && b.kept < maxGroup) {
		return
	}
	if b.kept < maxGroup {
		// Before committing alone, let the goroutines that are runnable
		// (requests on their way to an Update) run once: those that reach
		// Update meanwhile queue and join this transaction. With nothing
		// else runnable this returns at once.
		runtime.Gosched()
		if g.queued.Load() > 0 {
			return
		}
	}
	g.open = nil
	if err := b.tx.Commit(); err != nil {
		b.err = fmt.Errorf("sqlite: commit: %w", err)
	}
	g.commits.Add(1)
	g.ended(b)
	close(b.done)
	g.index.poke()
	if len(b.misses) > 0 {
		g.cache.add(context.Background(), b.misses) // the connection is free again
	}
}
