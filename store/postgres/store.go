// Package postgres is the PostgreSQL implementation of [store.Store], built
// on github.com/jackc/pgx/v5 and its connection pool, pgxpool.
//
// # Transactions
//
// There is no writer lock: every Update runs at the SERIALIZABLE isolation
// level, so PostgreSQL itself guarantees that the committed transactions have
// the effect of running one at a time, whatever process or machine they come
// from. A rule the Service checks and then writes in one Update ("never
// deactivate the only owner", "deliver a scheduled message only if it is
// still undelivered", a read-modify-write of a user's settings) therefore
// holds across several server instances on one database. When PostgreSQL
// cannot order two transactions (SQLSTATE 40001, or a deadlock, 40P01), the
// losing transaction is rolled back and Update runs fn again in a new
// transaction, up to [WithMaxAttempts] times in all, with a short randomised
// pause between attempts: fn may run more than once, and only the last run's
// writes are committed. Transactions that touch different rows (in
// particular, writes of different realms) do not wait for each other, with
// one exception that guarantees progress: the third and later attempts of an
// Update run alone, waiting for the running Updates to end and holding off
// new ones (an Update that failed twice is in a conflict it may otherwise
// keep losing, such as a topic deletion batch against a flood of sends to
// the topic). The attempts of every Update lock the table
// chatcore_write_gate for this, before their snapshot is taken.
//
// A write that fails on a constraint (ErrConflict, or ErrNotFound for a
// missing parent row) aborts the PostgreSQL transaction: every later call on
// the Tx fails with an error wrapping the first one, and Update returns an
// error even when fn returns nil. fn must return after such an error, as the
// Service does.
//
// Two kinds of write do wait for each other on purpose, and only within one
// realm. Appending to the event log (AppendEvents, the last step of a write
// that has events) takes a transaction-scoped advisory lock per realm, so
// the event ids of a realm follow commit order across all instances (an
// event queue is a cursor over its realm's ids); the lock is held from the
// append to the commit, which the store sends to the server together, so
// that it is never held across a round trip to the client (see
// AppendEvents). And the presence writes of one realm share the
// realm's presence sequence row. Ids of different realms come from one
// sequence but may commit out of order, which is why LastEventID and
// EventsPrunedThrough answer per realm.
//
// With [WithWriteGroups], concurrent Updates of one Store share transactions
// (group commit): an Update that finds another running queues behind it and
// joins its transaction inside a savepoint, and the group commits once nobody
// is queued. Each Update still succeeds or fails alone and returns once its
// changes have committed; the group's appends go with its COMMIT as one
// statement, so a realm's append lock is taken once per group rather than once
// per write, and the group's writes share the BEGIN, the write gate's lock and
// the commit's disk flush. A statement that fails on the server, a
// serialization failure in particular, ends its group, whose other Updates run
// again, each in a transaction of its own; so does an Update that reads the
// event log behind its group's appends.
//
// View runs at REPEATABLE READ, READ ONLY: one consistent snapshot of
// committed data, which never waits for writers and never fails because of
// them.
//
// # Lost connections
//
// A View, ViewSingle or Update whose connection dies (the server ended the
// session: pg_terminate_backend, a restart or failover, SQLSTATE 57P01,
// 57P02, 57P03 or class 08; or the socket closed or was reset) before its
// COMMIT was sent committed nothing, so it runs again from the start, fn
// included, on a connection the pool pings before handing it out (a dead
// one is replaced), up to three more times after pauses of about 10, 40 and
// 160 ms. A connection lost after the COMMIT was sent may have committed,
// and that Update is not run again. The error left wraps
// [store.ErrUnavailable]; a statement the server answered with an error of
// its own is no lost connection and is not run again.
//
// # Round trips
//
// A statement whose answer can wait goes to the server in one pipelined
// batch with the transaction's next statement: the statements that begin a
// transaction go with its first one, the reads a transaction announces
// ([store.Prefetcher]) with the next statement it runs, and an event
// append with the COMMIT, as do the writes held back (a message insert
// whose id was reserved, a settings change of a user the transaction read,
// flag rows, the edit of a message the transaction read; see holdBack). A
// message is read with its reactions, edit history and submessages in one
// batch, and a stream read once in a transaction answers its later reads
// until a write that may change streams. The Service's message send
// announces its reads and its new message, so that a channel message from
// a request's authenticated user takes two round trips: the reads, then
// the insert and the append with the COMMIT; a user's change of their own
// settings and a flag update take two as well. A ViewSingle
// (authentication) takes one.
//
// # Several instances
//
// Any number of Stores, in one process or many, may share a database and
// schema. An Update that appended events announces them with a NOTIFY once
// it has committed, which PostgreSQL delivers to every [Bus] listening on
// the database; package eventqueue takes a Bus to wake the polls waiting in
// one instance for events committed in another. (The NOTIFY runs in a short
// transaction of its own: PostgreSQL makes the commits of all transactions
// that NOTIFY wait for each other, which inside the write transaction would
// make writes of different realms wait for each other's disk flush.)
//
// # Schema
//
// The schema lives in embedded migrations/NNNN_name.sql files, applied in
// order at Open, each in its own transaction that also records its version in
// the table chatcore_schema; a transaction-scoped advisory lock keeps two
// processes that open one database at once from migrating it twice. Open
// refuses a database whose version is newer than the code knows
// ([ErrNewerSchema]).
//
// Times are timestamptz (microseconds; read back in UTC, the zero time as
// NULL). Case-insensitive keys are folded in Go (store.FoldKey,
// store.TopicKey) and stored in their own text columns.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

var (
	_ store.Store           = (*Store)(nil)
	_ store.SingleReadStore = (*Store)(nil)
)

// Store is a [store.Store] on a PostgreSQL database. It is safe for
// concurrent use, and several Stores (in one process or many) may share one
// database and schema.
type Store struct {
	pool        *pgxpool.Pool
	maxAttempts int
	schema      string
	// notify announces appended events (nil: WithoutNotify).
	notify *notifier
	// groups run the first attempt of every Update (nil: WithWriteGroups(0)).
	groups *writeGroups
	// subs are the big channels' subscribers, shared by the transactions.
	subs *subscriberCache
}

type config struct {
	maxConns    int32
	minConns    int32
	maxAttempts int
	schema      string
	noNotify    bool
	writeGroups int
	pool        func(*pgxpool.Config)
	// groupObserver: WithGroupCommitObserver.
	groupObserver func(updates int)
}

// WithWriteGroups turns on group commit with n write groups running side by
// side (n < 1: off, the default): concurrent Updates then share the
// transaction of a group, each inside a savepoint, and commit together (see
// the package documentation and [Store.Update]). It suits a load of writes
// to one realm, which otherwise queue for the realm's event append lock one
// transaction at a time: with two groups, one runs its Updates' statements
// while the other commits, and more groups bring that queue back. It costs
// writes that would not wait for each other (those of different realms)
// their parallelism beyond n transactions.
func WithWriteGroups(n int) Option { return func(c *config) { c.writeGroups = max(n, 0) } }

// Option configures [Open].
type Option func(*config)

// WithMaxConns sets the size of the connection pool (default: pgxpool's,
// max(4, GOMAXPROCS), or pool_max_conns in the connection string). Every
// running View or Update holds one connection; further ones wait for a free
// connection. Non-positive values keep the default.
func WithMaxConns(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxConns = int32(n)
		}
	}
}

// WithMinConns sets how many idle connections the pool keeps open.
func WithMinConns(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.minConns = int32(n)
		}
	}
}

// WithMaxAttempts sets how many times Update runs fn when PostgreSQL reports
// a serialization failure or a deadlock (default 10). The error of the last
// attempt is returned; [IsSerializationFailure] reports it.
func WithMaxAttempts(n int) Option {
	return func(c *config) {
		if n > 0 {
			c.maxAttempts = n
		}
	}
}

// WithSchema makes the Store keep its tables in the named PostgreSQL schema
// (created when missing) instead of the connection's default search path, so
// that several independent chatcore databases can share one PostgreSQL
// database.
func WithSchema(name string) Option { return func(c *config) { c.schema = name } }

// WithPoolConfig lets the embedder adjust the pool configuration parsed from
// the connection string (health checks, connection lifetimes, tracing, TLS)
// before the pool is created. It runs after the other options.
func WithPoolConfig(fn func(*pgxpool.Config)) Option { return func(c *config) { c.pool = fn } }

// jitOff turns PostgreSQL's JIT compilation off on the Store's connections
// unless the connection string sets jit. The Store's statements are
// index-bounded reads and writes that run in milliseconds, but one that
// returns many rows (a user's 50,000 unread messages, a realm's users) is
// estimated above jit_above_cost, and compiling it then takes longer than
// running it: 309 of 443 ms for the unread read of POST /register at a
// million messages, which runs in 121 ms without.
func jitOff(pc *pgxpool.Config) {
	if _, set := pc.ConnConfig.RuntimeParams["jit"]; !set {
		pc.ConnConfig.RuntimeParams["jit"] = "off"
	}
}

// Open connects to the PostgreSQL database named by connString (a libpq URL,
// postgres://user@host/db?..., or a key=value DSN), applies any pending
// migrations and returns a Store. It fails when the database's schema version
// is newer than this package knows, or when the users table lacks a column
// for one of chatcore's settings. Its connections run with PostgreSQL's JIT
// compilation off unless connString sets jit (postgres://...?jit=on): see
// jitOff. The caller must Close the Store.
func Open(ctx context.Context, connString string, opts ...Option) (*Store, error) {
	cfg := config{maxAttempts: 10}
	for _, o := range opts {
		o(&cfg)
	}
	pc, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if cfg.maxConns > 0 {
		pc.MaxConns = cfg.maxConns
	}
	if cfg.minConns > 0 {
		pc.MinConns = min(cfg.minConns, pc.MaxConns)
	}
	if cfg.schema != "" {
		pc.ConnConfig.RuntimeParams["search_path"] = pgx.Identifier{cfg.schema}.Sanitize()
	}
	jitOff(pc)
	if cfg.pool != nil {
		cfg.pool(pc)
	}
	pingFreshConns(pc)
	useInt8Arrays(pc)
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	s := &Store{pool: pool, maxAttempts: cfg.maxAttempts, schema: cfg.schema, subs: newSubscriberCache()}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	if !cfg.noNotify {
		s.notify = startNotifier(pool, channelName(cfg.schema), s.logf)
	}
	if cfg.writeGroups > 0 {
		s.groups = newWriteGroups(pool, s.notify, s.subs, cfg.writeGroups)
		s.groups.observe = cfg.groupObserver
	}
	return s, nil
}

// Pool returns the Store's connection pool, for embedders that keep their own
// tables beside chatcore's (and for tests and benchmarks).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the connection pool, waiting for connections in use to be
// returned. It must not be called while transactions are running.
func (s *Store) Close() error {
	if s.notify != nil {
		s.notify.stop()
	}
	s.pool.Close()
	return nil
}

// View runs fn in a REPEATABLE READ, READ ONLY transaction; see
// [store.Store]. Writes through its Tx return [ErrReadOnly]. When the
// connection dies (the server ended the session, the network failed), fn
// runs again in a new transaction on a connection the pool has just
// checked, up to three more times with short pauses, so fn may run more
// than once and must set its results afresh; an error of a lost
// connection that remains wraps [store.ErrUnavailable].
func (s *Store) View(ctx context.Context, fn func(tx store.Tx) error) error {
	return retryLost(ctx, func(ctx context.Context) error { return s.view(ctx, fn) })
}

// retryLost runs run, and again while it fails on a lost connection
// (lostUncommitted), with fresh connections (freshConn), at most
// maxLostRetries more times; the error left is marked unavailable.
func retryLost(ctx context.Context, run func(ctx context.Context) error) error {
	err := run(ctx)
	for n := 1; n <= maxLostRetries && lostUncommitted(err); n++ {
		if perr := lostPause(ctx, n); perr != nil {
			return fmt.Errorf("%w (after %w)", perr, unavailable(err))
		}
		err = run(freshConn(ctx))
	}
	return unavailable(err)
}

// view is one attempt of View.
func (s *Store) view(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lt, err := beginLazy(ctx, s.pool, beginView)
	if err != nil {
		return fmt.Errorf("postgres: begin view: %w", err)
	}
	t := newTx(&tx{tx: lt, readOnly: true, subs: s.subs})
	ferr := sqlstore.Call(t, fn, func() { _ = lt.rollback(ctx) })
	if ferr == nil && connLost(t.failed) {
		// fn let a read on a lost connection pass: its answer is
		// incomplete.
		ferr = t.failed
	}
	rerr := lt.rollback(ctx)
	switch {
	case ferr != nil && connLost(t.failed) && !connLost(ferr):
		// The connection died under fn, which answered with an error of
		// its own making: the lost connection is the cause.
		return fmt.Errorf("%w (%w)", t.failed, ferr)
	case ferr != nil:
		return ferr
	case rerr != nil && !connLost(rerr):
		// A connection lost after fn's last read ends the transaction
		// too, and takes nothing from what fn read.
		return fmt.Errorf("postgres: end view: %w", rerr)
	}
	return nil
}

// ViewSingle implements [store.SingleReadStore]: fn's one statement runs
// with no transaction around it (PostgreSQL gives a statement a snapshot of
// its own), in one round trip where View takes two, the second to end the
// transaction. A second call on the Tx fails. A lost connection is retried
// as View retries it.
func (s *Store) ViewSingle(ctx context.Context, fn func(tx store.Tx) error) error {
	return retryLost(ctx, func(ctx context.Context) error { return s.viewSingle(ctx, fn) })
}

// viewSingle is one attempt of ViewSingle.
func (s *Store) viewSingle(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	lt, err := beginLazy(ctx, s.pool)
	if err != nil {
		return fmt.Errorf("postgres: begin view: %w", err)
	}
	lt.single = true
	defer func() { _ = lt.rollback(ctx) }() // returns the connection, also when fn panics
	t := newTx(&tx{tx: lt, readOnly: true, subs: s.subs})
	ferr := fn(t)
	if ferr != nil && connLost(t.failed) && !connLost(ferr) {
		return fmt.Errorf("%w (%w)", t.failed, ferr)
	}
	return ferr
}

// Update runs fn in a SERIALIZABLE transaction and commits it when fn returns
// nil; see [store.Store] and the package documentation. With
// [WithWriteGroups] its first attempt runs in a write group: concurrent
// Updates share a transaction, each inside a savepoint, so that each still
// succeeds or fails alone and returns once its changes have committed (when
// another Update of the group dooms it, fn runs again at once in a
// transaction of its own, and that run counts as its first attempt). When
// PostgreSQL reports a serialization failure or a deadlock, in fn or at
// commit, the transaction is rolled back and fn runs again in a new one of its
// own (at most [WithMaxAttempts] times in all), so fn may run more than once
// and must keep no effect of a failed run. When the connection dies before
// the COMMIT was sent (the server ended the session, the network failed),
// nothing was committed and fn runs again from the start, in a transaction
// of its own on a connection the pool has just checked, up to three more
// times with short pauses; the error of a lost connection that remains
// wraps [store.ErrUnavailable], as does a connection lost after the COMMIT
// was sent, whose transaction may have committed (it is not run again). A
// panic in fn rolls back and is re-raised, without another attempt.
func (s *Store) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	runs := 0
	return retryLost(ctx, func(ctx context.Context) error {
		runs++
		// After a lost connection fn runs in a transaction of its own:
		// a group would share its fresh connection's fate with others.
		return s.update(ctx, fn, runs == 1 && s.groups != nil)
	})
}

// update runs fn's attempts for Update, the first in a write group when
// grouped, until one commits, fails for good, or is the last.
func (s *Store) update(ctx context.Context, fn func(tx store.Tx) error, grouped bool) error {
	var err error
	for attempt := 1; ; attempt++ {
		if cerr := ctx.Err(); cerr != nil {
			if err != nil {
				return fmt.Errorf("%w (after %w)", cerr, err)
			}
			return cerr
		}
		var retry bool
		if attempt == 1 && grouped {
			retry, err = s.groups.update(ctx, fn)
			if retry && notOwnConflict(err) {
				// Not a conflict of this Update's: fn reads the event log
				// behind its group's appends, or another Update doomed the
				// group. Its first attempt runs again, in a transaction of
				// its own, at once.
				retry, err = s.attempt(ctx, fn, false)
			}
		} else {
			retry, err = s.attempt(ctx, fn, attempt > aloneAfter)
		}
		if !retry || attempt >= s.maxAttempts {
			return err
		}
		// Randomised, growing pause: two transactions that failed each other
		// do not meet again at once.
		pause := time.Duration(rand.Int64N(int64(time.Millisecond)<<min(attempt, 6))) + 100*time.Microsecond
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
	}
}

// The statements that begin a transaction, sent with its first statement
// (see lazyTx). An Update is SERIALIZABLE and locks the write gate before
// its first query (a lock taken then comes before the transaction's
// snapshot, so every transaction it waited for is in the snapshot). Every
// Update takes the gate in ROW SHARE mode, which does not conflict with
// itself; beginAlone takes it in EXCLUSIVE mode, which waits for the running
// Updates to end and holds off new ones until it ends. While it waits, every
// new Update queues behind it, so it waits at most aloneLockTimeout (a
// transaction left open elsewhere cannot stop every write for longer): then
// the attempt fails with lock_not_available and Update tries again, alone
// again.
const beginView = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

var (
	beginShared = []string{"BEGIN ISOLATION LEVEL SERIALIZABLE", "LOCK TABLE chatcore_write_gate IN ROW SHARE MODE"}
	beginAlone  = []string{"BEGIN ISOLATION LEVEL SERIALIZABLE", "SET LOCAL lock_timeout = '" + aloneLockTimeout + "'",
		"LOCK TABLE chatcore_write_gate IN EXCLUSIVE MODE", "SET LOCAL lock_timeout TO DEFAULT"}
)

// aloneLockTimeout bounds one wait of an alone attempt for the write gate.
const aloneLockTimeout = "2s"

// aloneAfter is how many attempts of an Update may fail to serialise before
// its next attempt runs alone (see beginAlone). A transaction that conflicts
// with a steady stream of shorter ones (a topic deletion batch under a flood
// of sends to the topic) may otherwise lose every attempt; alone, it can
// conflict with no other Update, so it commits.
const aloneAfter = 2

// attempt runs fn once in a new SERIALIZABLE transaction, alone among
// Updates when alone is set. retry reports a serialization failure or
// deadlock in any statement of the attempt or at commit, whatever fn did
// with the error it was given.
func (s *Store) attempt(ctx context.Context, fn func(tx store.Tx) error, alone bool) (retry bool, err error) {
	begin := beginShared
	if alone {
		begin = beginAlone
	}
	lt, err := beginLazy(ctx, s.pool, begin...)
	if err != nil {
		return false, fmt.Errorf("postgres: begin update: %w", err)
	}
	t := newTx(&tx{tx: lt, notify: s.notify, subs: s.subs})
	ferr := sqlstore.Call(t, fn, func() { _ = lt.rollback(ctx) })
	rollback := func() { _ = lt.rollback(ctx) }
	switch {
	case t.failed != nil && isRetryable(t.failed):
		rollback()
		if ferr == nil {
			ferr = t.failed
		}
		return true, ferr
	case connLost(t.failed) && !connLost(ferr):
		// The connection died under fn, which may have answered with an
		// error of its own making: the lost connection is the cause, and
		// nothing was committed.
		rollback()
		if ferr == nil {
			return false, t.failed
		}
		return false, fmt.Errorf("%w (%w)", t.failed, ferr)
	case ferr != nil:
		rollback()
		return false, ferr
	case t.failed != nil:
		rollback()
		return false, fmt.Errorf("postgres: commit after a failed statement: %w", t.failed)
	}
	if err := ctx.Err(); err != nil {
		rollback()
		return false, fmt.Errorf("postgres: not committed: %w", err)
	}
	if err := t.commit(ctx); err != nil {
		return isRetryable(err), err
	}
	if len(t.appended) > 0 {
		s.notify.committed(t.appended)
	}
	return false, nil
}

// IsSerializationFailure reports whether err comes from a transaction that
// PostgreSQL could not serialise with a concurrent one (SQLSTATE 40001) or
// that was chosen as a deadlock victim (40P01). Update retries these; one is
// returned only after the last attempt.
func IsSerializationFailure(err error) bool {
	code := sqlState(err)
	return code == codeSerializationFailure || code == codeDeadlockDetected
}

// ErrNewerSchema reports a database written by a newer version of this package.
var ErrNewerSchema = errors.New("postgres: database schema is newer than this program supports")

// Schema returns the schema given with [WithSchema], or "" when the Store
// uses the connection's search path.
func (s *Store) Schema() string { return s.schema }

// logf logs a problem of the Store's background work.
func (s *Store) logf(format string, args ...any) {
	slog.Default().Warn(fmt.Sprintf(format, args...))
}
