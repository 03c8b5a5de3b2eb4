package sqlite

import (
	"context"
	"database/sql"
	"sync/atomic"
)

// SQLite's default moves the WAL back into the database file (a checkpoint)
// in the commit that takes the WAL past 1000 pages, on the committing
// connection. For the writer that meant one group commit in some twenty
// stalled for the checkpoint's copying and its two fsyncs (tens of
// milliseconds on a slow disk) while every other Update queued behind it.
// The writer therefore checkpoints only as a fallback, past
// writerAutoCheckpoint pages, and a checkpointer does the regular work on a
// connection of its own, kicked every checkpointEvery commits.

// writerAutoCheckpoint is the writer's wal_autocheckpoint: the WAL size in
// pages past which a commit checkpoints itself, as SQLite's default does at
// 1000; reached only when the checkpointer cannot keep up.
const writerAutoCheckpoint = 10000

// checkpointEvery is how many group commits pass between kicks of the
// checkpointer: under load a few dozen pages each, so that the WAL stays
// near SQLite's default size.
const checkpointEvery = 16

// checkpointer runs PASSIVE checkpoints on its own connection when kicked. A
// PASSIVE checkpoint copies what no reader still needs and never waits for
// the writer or the readers, so it runs alongside them; what it leaves is
// copied by a later one.
type checkpointer struct {
	db   *sql.DB
	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}
	// runs counts the checkpoints that succeeded (for tests).
	runs atomic.Int64
}

// startCheckpointer starts a checkpointer on db (one connection to the
// database file).
func startCheckpointer(db *sql.DB) *checkpointer {
	ctx, cancel := context.WithCancel(context.Background())
	c := &checkpointer{db: db, kick: make(chan struct{}, 1), stop: cancel, done: make(chan struct{})}
	go c.run(ctx)
	return c
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.done)
	for {
		select {
		case <-ctx.Done():
			return
		case <-c.kick:
		}
		// A failure (an I/O error, the context ending) leaves the WAL to
		// the next checkpoint, or to the writer's own past
		// writerAutoCheckpoint pages; nothing is lost by it.
		if _, err := c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err == nil {
			c.runs.Add(1)
		}
	}
}

// committed is called after the commits-th group commit; every
// checkpointEvery-th kicks the checkpointer, without waiting (a kick while
// it runs is one more run).
func (c *checkpointer) committed(commits int64) {
	if c == nil || commits%checkpointEvery != 0 {
		return
	}
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// close stops the checkpointer, waiting for a running checkpoint to stop,
// and closes its connection.
func (c *checkpointer) close() error {
	c.stop()
	<-c.done
	return c.db.Close()
}
