// Package sqlite is the SQLite implementation of [store.Store], built on the
// pure-Go driver modernc.org/sqlite (no cgo).
//
// A Store keeps two connection pools on one database file: a single writer
// connection whose transactions start with BEGIN IMMEDIATE, used by Update, and
// a bounded pool of query_only reader connections, used by View. The database
// runs in WAL mode, so readers see a consistent snapshot while the writer
// works, and because every Update queues in Go for the one writer connection,
// callers of one process never see SQLITE_BUSY. busy_timeout still covers
// other processes (the sqlite3 shell, backup tools) and checkpoints: a
// write that waited past it fails with an error wrapping
// [store.ErrUnavailable], which the Service answers as retryable (HTTP 503
// with Retry-After).
//
// # One process per file
//
// A Store holds an exclusive lock on its database file for its life (the
// lock file FILE.lock beside it, which records the holder's pid), and
// [Open] refuses a file another Store holds, in this process or another,
// with [ErrInUse]: the row cache assumes the Store is the file's only
// writer, so a second one would serve stale rows. Run several processes on
// the PostgreSQL store instead. Reopening a file after Close is fine.
//
// The schema lives in embedded migrations/NNNN_name.sql files, applied in order
// at Open and recorded in PRAGMA user_version. Open refuses a database whose
// version is newer than the code knows.
//
// # Full-text search
//
// The search index (an FTS5 table) is filled after commit, in batches, by
// a goroutine each Store runs from Open to Close: a send or an edit does
// not wait for it. Searches are exact all the same: the messages the index
// does not hold yet are matched in Go, and while more than a few thousand
// wait (the indexer is behind) a search fails with [ErrSearchBehind]
// rather than read the history. CreateMessages of many messages (an
// import) indexes them itself.
//
// Times are stored as INTEGER unix seconds: sub-second parts are dropped, and
// times read back are in UTC (the zero time round-trips as the zero time).
// Case-insensitive keys are stored folded in Go, because SQLite's lower() and
// NOCASE fold only ASCII: topics with store.TopicKey, e-mail addresses, full
// names and channel names with store.FoldKey.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	driver "modernc.org/sqlite"
	lib "modernc.org/sqlite/lib"
)

// driverName is the database/sql name modernc.org/sqlite registers.
const driverName = "sqlite"

var _ store.Store = (*Store)(nil)

// Store is a [store.Store] on a SQLite database file. It is safe for
// concurrent use; see the package documentation for how transactions are
// scheduled.
type Store struct {
	writer  *sql.DB
	readers *sql.DB
	// Prepared statements of each pool (see stmtCache).
	writerStmts, readerStmts *stmtCache
	writes                   *writeGroup
	rows                     *rowCache
	// trace, when set (by a test, see withTrace), is called with every
	// statement a transaction runs and its arguments, before it runs.
	trace func(query string, args []any)
	// logHead is the highest event log id an ended write transaction
	// appended (or the log's head when the Store opened): a hint of how far
	// the log reaches, for choosing how to read a queue's entries.
	logHead atomic.Int64
	// lock is the Store's exclusive lock on its file (see lock).
	lock *fileLock
	// index is the full-text indexer (see indexer), nil when the Store
	// runs none (a test's withoutIndexer).
	index *indexer
}

type config struct {
	busyTimeout time.Duration
	readers     int
	rowCache    int
	trace       func(query string, args []any)
	noIndexer   bool
}

// Option configures [Open].
type Option func(*config)

// WithBusyTimeout sets how long a connection waits for a lock held by another
// process before failing with SQLITE_BUSY (default 5 s). Non-positive values
// keep the default.
func WithBusyTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.busyTimeout = d
		}
	}
}

// WithRowCache sets how many rows of each cached table (users, realms,
// channels, and also channels' subscriber lists, realms' linkifier versions
// and the event log's audiences; besides, the whole user lists of up to four
// realms) the Store keeps between transactions
// (default [DefaultRowCache]), so that authenticating a request, reading its
// actor, realm and channel, and sending to a channel need no statement for
// them while those tables have not changed; 0 turns the cache off. The cache
// relies on this Store being the only writer of those tables: turn it off
// when another process writes them (other processes may read the file).
// Negative values keep the default.
func WithRowCache(n int) Option {
	return func(c *config) {
		if n >= 0 {
			c.rowCache = n
		}
	}
}

// WithReaders sets the number of reader connections View may use at once
// (default max(4, GOMAXPROCS)). Further Views wait for a free connection.
// Non-positive values keep the default.
func WithReaders(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.readers = n
		}
	}
}

// withTrace makes the Store call fn with every statement its transactions
// run and the statement's arguments, before it runs; fn must be safe for
// concurrent use. For tests, which read the statements' query plans.
func withTrace(fn func(query string, args []any)) Option {
	return func(c *config) { c.trace = fn }
}

// withoutIndexer makes the Store run no full-text indexer: the index's
// tail grows until IndexSearch. For tests of searches over the tail.
func withoutIndexer() Option {
	return func(c *config) { c.noIndexer = true }
}

// Open opens (creating it if needed) the SQLite database file at path, applies
// any pending migrations and returns a Store. path must name a file: ":memory:"
// would give every pooled connection its own database. Open fails when the
// database's schema version is newer than this package knows, or when a
// connection does not report the expected pragmas (WAL, foreign keys, busy
// timeout). It starts the Store's full-text indexer (see the package
// documentation), which indexes first what a previous Store of the file
// left unindexed. The caller must Close the Store.
//
// A Store holds an exclusive lock on its file for its life, through the lock
// file path+".lock" beside it (which stays after Close and holds the pid of
// the Store's process while it is open): an Open of a file that another Store
// holds, in this process or another, fails with an error wrapping [ErrInUse]
// that names the file and the holder's pid. Two Stores on one file would
// each serve their own row cache's stale rows and wait for each other's
// writes; the PostgreSQL store is the one for several processes. Tools that
// open the file directly (the sqlite3 shell, backups) take no lock file:
// their write transactions make the Store's writes wait up to the busy
// timeout and then fail with an error wrapping [store.ErrUnavailable].
func Open(ctx context.Context, path string, opts ...Option) (st *Store, err error) {
	if path == "" || path == ":memory:" || strings.HasPrefix(path, "file::memory:") {
		return nil, fmt.Errorf("sqlite: open %q: a database file is required", path)
	}
	cfg := config{busyTimeout: 5 * time.Second, readers: max(4, runtime.GOMAXPROCS(0)), rowCache: DefaultRowCache}
	for _, o := range opts {
		o(&cfg)
	}
	fl, err := lock(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			_ = fl.release()
		}
	}()

	writer, err := sql.Open(driverName, dsn(path, cfg, false))
	if err != nil {
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	writer.SetMaxOpenConns(1)
	writer.SetMaxIdleConns(1)
	writer.SetConnMaxLifetime(0)
	writer.SetConnMaxIdleTime(0)
	if err := checkPragmas(ctx, writer, cfg, false); err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	if err := migrate(ctx, writer); err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}

	readers, err := sql.Open(driverName, dsn(path, cfg, true))
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	readers.SetMaxOpenConns(cfg.readers)
	readers.SetMaxIdleConns(cfg.readers)
	readers.SetConnMaxLifetime(0)
	readers.SetConnMaxIdleTime(0)
	if err := checkPragmas(ctx, readers, cfg, true); err != nil {
		readers.Close()
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %q: %w", path, err)
	}
	st = &Store{writer: writer, readers: readers, lock: fl,
		writerStmts: newStmtCache(writer), readerStmts: newStmtCache(readers), rows: newRowCache(cfg.rowCache), trace: cfg.trace}
	st.writes = &writeGroup{db: writer, cache: st.writerStmts, rows: st.rows, logHead: &st.logHead, trace: cfg.trace}
	var head int64
	err = writer.QueryRowContext(ctx, "SELECT coalesce(max(seq), 0) FROM sqlite_sequence WHERE name = 'event_log'").Scan(&head)
	if err != nil {
		readers.Close()
		writer.Close()
		return nil, fmt.Errorf("sqlite: open %q: event log head: %w", path, err)
	}
	st.logHead.Store(head)
	if !cfg.noIndexer {
		st.index = newIndexer()
		st.writes.index = st.index
		st.startIndexer()
	}
	return st, nil
}

// dsn returns the data source name of a writer or reader connection. Every
// pooled connection runs these pragmas when the driver opens it, so a
// replacement connection is configured like the first one.
func dsn(path string, cfg config, reader bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", strconv.FormatInt(cfg.busyTimeout.Milliseconds(), 10))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Set("_foreign_keys", "1")
	if reader {
		q.Set("_query_only", "1")
	} else {
		q.Set("_txlock", "immediate")
		// The writer's Updates share a transaction, each in a savepoint
		// (writeGroup). SQLite journals the pages a savepoint changes in a
		// sub-journal, which, with temporary files on disk, spills to a new
		// temporary file once it passes 64 KiB: a file created, written and
		// deleted in every busy transaction. In memory it stays a few pages
		// per Update (and at most the pages the transaction changes).
		q.Set("_pragma", "temp_store(memory)")
	}
	return "file:" + path + "?" + q.Encode()
}

// checkPragmas reads back the settings the DSN asked for on one connection of
// db and fails if any is not in effect.
func checkPragmas(ctx context.Context, db *sql.DB, cfg config, reader bool) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return checkConn(ctx, conn, cfg.busyTimeout, reader)
}

// checkConn reports an error unless conn is in WAL mode with foreign keys on,
// synchronous NORMAL, the busy timeout set, query_only exactly when reader is
// true, and temporary storage in memory exactly when it is not.
func checkConn(ctx context.Context, conn *sql.Conn, busyTimeout time.Duration, reader bool) error {
	var journal string
	var fk, busy, syncMode, queryOnly, tempStore int64
	if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&journal); err != nil {
		return fmt.Errorf("read journal_mode: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil {
		return fmt.Errorf("read foreign_keys: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA busy_timeout").Scan(&busy); err != nil {
		return fmt.Errorf("read busy_timeout: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&syncMode); err != nil {
		return fmt.Errorf("read synchronous: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA query_only").Scan(&queryOnly); err != nil {
		return fmt.Errorf("read query_only: %w", err)
	}
	if err := conn.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&tempStore); err != nil {
		return fmt.Errorf("read temp_store: %w", err)
	}
	wantQueryOnly, wantTempStore := int64(0), int64(2) // 2: MEMORY
	if reader {
		wantQueryOnly, wantTempStore = 1, 0 // 0: the compile-time default
	}
	switch {
	case !strings.EqualFold(journal, "wal"):
		return fmt.Errorf("journal_mode is %q, want wal", journal)
	case fk != 1:
		return fmt.Errorf("foreign_keys is %d, want 1", fk)
	case busy != busyTimeout.Milliseconds():
		return fmt.Errorf("busy_timeout is %d, want %d", busy, busyTimeout.Milliseconds())
	case syncMode != 1:
		return fmt.Errorf("synchronous is %d, want 1 (NORMAL)", syncMode)
	case queryOnly != wantQueryOnly:
		return fmt.Errorf("query_only is %d, want %d", queryOnly, wantQueryOnly)
	case tempStore != wantTempStore:
		return fmt.Errorf("temp_store is %d, want %d", tempStore, wantTempStore)
	}
	return nil
}

// View runs fn in a read-only transaction on a reader connection; see
// [store.Store]. Writes through its Tx return an error. The transaction
// begins at fn's first statement: a View that the row cache answers alone
// takes no connection.
func (s *Store) View(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sqlite: begin view: %w", err)
	}
	t := newTx(&tx{readOnly: true, index: s.index, cache: s.readerStmts, rows: s.rows, gens: s.rows.now(), userWrites: s.rows.userWritesNow(), logHead: &s.logHead, trace: s.trace,
		begin: func(ctx context.Context) (*sql.Tx, error) {
			return s.readers.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		}})
	return busy(run(ctx, t, fn))
}

// Update runs fn in a read-write IMMEDIATE transaction on the writer
// connection; see [store.Store]. Updates are serialised in Go, so they
// never fail with SQLITE_BUSY because of each other; when another process
// (a tool that opened the file directly) holds a write transaction past the
// busy timeout, the error wraps [store.ErrUnavailable].
//
// Updates that queue while another runs share its SQLite transaction, each
// in its own savepoint, and return once it has committed (group commit, see
// writeGroup): each still succeeds or fails alone.
func (s *Store) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	return busy(s.writes.update(ctx, fn))
}

// run calls fn in the View t and ends t's transaction, if fn began one: a
// View always rolls back, also on a panic (re-raised).
func run(ctx context.Context, t *tx, fn func(tx store.Tx) error) error {
	defer func() {
		if len(t.misses) > 0 {
			t.cache.add(ctx, t.misses) // the transaction has ended: the connection is free
		}
	}()
	ferr := sqlstore.Call(t, fn, func() {
		if t.tx != nil {
			_ = t.tx.Rollback()
		}
	})
	if t.tx != nil {
		if rerr := t.tx.Rollback(); rerr != nil && ferr == nil {
			return fmt.Errorf("sqlite: end view: %w", rerr)
		}
	}
	return ferr
}

// Close stops the full-text indexer (a tail it leaves is indexed after
// the next Open), closes the cached statements, runs PRAGMA optimize, then
// closes the reader pool and the writer, and releases the file's lock (see
// [Open]). It must not be called while transactions are running.
func (s *Store) Close() error {
	s.stopIndexer()
	errS := errors.Join(s.readerStmts.close(), s.writerStmts.close())
	_, errOpt := s.writer.ExecContext(context.Background(), "PRAGMA optimize")
	errR := s.readers.Close()
	errW := s.writer.Close()
	errL := s.lock.release()
	return errors.Join(errS, errOpt, errR, errW, errL)
}

// busy returns err wrapping store.ErrUnavailable when SQLite reports the
// database locked past the busy timeout (SQLITE_BUSY, any extended code):
// another process holds a write transaction, passing trouble. It returns
// err otherwise.
func busy(err error) error {
	if err != nil && sqliteCode(err)&0xff == lib.SQLITE_BUSY && !errors.Is(err, store.ErrUnavailable) {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

// sqliteCode returns the SQLite result code of err, or 0 when err does not
// come from the driver.
func sqliteCode(err error) int {
	if e, ok := errors.AsType[*driver.Error](err); ok {
		return e.Code()
	}
	return 0
}
