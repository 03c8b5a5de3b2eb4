package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// lazyTx is a transaction on one pooled connection whose beginning travels
// with its first statement: the statements that begin it (BEGIN, and the
// write gate's lock for an Update) and that first statement go to the server
// in one pipelined batch, which saves the round trip a separate BEGIN costs
// every View and every Update. The server runs the batch in order, so the
// transaction's snapshot is still taken after the gate's lock. A
// transaction that never runs a statement never begins.
//
// Statements whose answer can wait (an event append, announced reads; see
// enqueueKind) travel the same way: they go to the server in the batch of the
// transaction's next statement, or with its COMMIT, ahead of it.
type lazyTx struct {
	conn  *pgxpool.Conn
	begin []string
	begun bool
	// single runs one statement with no transaction around it (see
	// Store.ViewSingle); a second one fails with errSecondStatement.
	single bool
	// ahead are the statements to send before the next one, in its batch.
	ahead []aheadStmt
	// wantPlan is the plan mode the next statement must run in (see
	// onGenericPlan, onCustomPlan); plan is the mode the statements sent and
	// queued so far leave the transaction in. The SET that changes it is queued only
	// before a statement that needs the other mode, so that two statements
	// on generic plans with nothing between them share one, and no reset
	// goes with the COMMIT (a SET LOCAL ends with its transaction).
	wantPlan, plan planKind
	// detached is set for a transaction shared by a write group's Updates
	// (see writeGroups): its statements run with their context's
	// cancellation stripped, after checking it, since pgx gives up a
	// connection whose statement is cancelled, and with it the other
	// Updates' changes.
	detached bool
	// deferred are the appends of a write group's Updates that succeeded,
	// sent as one statement with the group's COMMIT (see memberDone).
	deferred []*pendingAppend
	// lost is the failure of a statement a write group queued between its
	// Updates (savepoints), after which the shared transaction's state is
	// unknown.
	lost error
}

// aheadKind tells queued statements apart where a write group's Update
// ends (see memberDone).
type aheadKind int

const (
	aheadPlain    aheadKind = iota // a setting, or a savepoint of a write group
	aheadPrefetch                  // an announced read
	aheadAppend                    // an event append (see pendingAppend)
	aheadRead                      // a read whose statement follows at once (see flush)
)

// planKind is a plan_cache_mode of a transaction's statements.
type planKind uint8

const (
	planDefault planKind = iota // PostgreSQL's choice between the two
	planGeneric                 // force_generic_plan
	planCustom                  // force_custom_plan
)

// planMode queues the SET that puts the transaction in the plan mode its
// next statement wants, when that is not the mode it is in.
func (l *lazyTx) planMode() {
	if l.plan == l.wantPlan {
		return
	}
	l.plan = l.wantPlan
	query := "SET LOCAL plan_cache_mode TO DEFAULT"
	switch l.plan {
	case planGeneric:
		query = "SET LOCAL plan_cache_mode = force_generic_plan"
	case planCustom:
		query = "SET LOCAL plan_cache_mode = force_custom_plan"
	}
	l.ahead = append(l.ahead, aheadStmt{sql: query, read: execResult})
}

// execResult reads the result of a queued statement that returns no rows.
func execResult(br pgx.BatchResults) error {
	_, err := br.Exec()
	return err
}

// aheadStmt is a statement queued to go to the server ahead of the
// transaction's next one; read takes its results from the batch when they
// arrive.
type aheadStmt struct {
	sql  string
	args []any
	read func(pgx.BatchResults) error
	kind aheadKind
	// append is the append an aheadAppend statement sends.
	append *pendingAppend
}

// errSecondStatement is the error of a second statement in a ViewSingle.
var errSecondStatement = errors.New("postgres: a second statement in ViewSingle, which runs one")

// statement reports whether the statement about to run can go to the
// server as is, with nothing to send before it; it fails for a single
// transaction's second statement.
func (l *lazyTx) statement() (direct bool, err error) {
	if !l.single {
		return l.begun && len(l.ahead) == 0, nil
	}
	if l.begun {
		return false, errSecondStatement
	}
	l.begun = true
	return len(l.ahead) == 0, nil
}

// flush sends the queued statements to the server now, in one batch (with
// the begin statements when the transaction has not begun), and reads
// their results. It counts as a statement: a ViewSingle's second fails.
func (l *lazyTx) flush(ctx context.Context) error {
	if len(l.ahead) == 0 {
		return nil
	}
	ctx, err := l.stmtContext(ctx)
	if err != nil {
		return err
	}
	if _, err := l.statement(); err != nil {
		return err
	}
	last := l.ahead[len(l.ahead)-1]
	l.ahead = l.ahead[:len(l.ahead)-1]
	br, err := l.batch(ctx, last.sql, last.args)
	if err != nil {
		return err
	}
	return closeBatch(br, last.read(br))
}

// beginLazy acquires a connection for a transaction that the begin
// statements will start.
func beginLazy(ctx context.Context, pool *pgxpool.Pool, begin ...string) (*lazyTx, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		if !isContextErr(err) {
			// The pool could make no live connection (the server refused
			// them, or ended every one it checked): a lost connection.
			return nil, &acquireError{err}
		}
		return nil, err
	}
	return &lazyTx{conn: c, begin: begin}, nil
}

// acquireError is the error of a pool that handed out no connection for a
// cause other than the caller's context (see connLost).
type acquireError struct{ err error }

func (e *acquireError) Error() string { return "acquiring a connection: " + e.err.Error() }
func (e *acquireError) Unwrap() error { return e.err }

// enqueueKind queues a statement to go to the server ahead of the
// transaction's next one (see lazyTx); a.read gets its results then. The
// statements of a transaction run in the order it enqueued and ran them.
func (l *lazyTx) enqueueKind(a aheadStmt) {
	l.planMode()
	l.ahead = append(l.ahead, a)
}

// enqueuePrefetch queues an announced read (see enqueueKind), which a write
// group's Update that ends without reading its answer drops.
func (l *lazyTx) enqueuePrefetch(query string, args []any, read func(pgx.BatchResults) error) {
	l.enqueueKind(aheadStmt{sql: query, args: args, read: read, kind: aheadPrefetch})
}

// memberDone ends a write group's Update in the transaction: the announced
// reads it queued and never read are dropped, and its appends still queued
// are dropped too when it failed, or else wait for the group's COMMIT
// (deferred), where they go as one statement with the other Updates'.
// Queued settings and savepoints stay.
func (l *lazyTx) memberDone(kept bool) {
	ahead := l.ahead[:0]
	for _, a := range l.ahead {
		switch {
		case a.kind == aheadPrefetch:
		case a.kind == aheadAppend && kept:
			l.deferred = append(l.deferred, a.append)
		case a.kind == aheadAppend:
		default:
			ahead = append(ahead, a)
		}
	}
	clear(l.ahead[len(ahead):])
	l.ahead = ahead
}

// stmtContext returns the context a statement runs with: ctx itself, or
// in a detached transaction ctx without its cancellation, or ctx's error
// when it has ended (the statement is then not sent).
func (l *lazyTx) stmtContext(ctx context.Context) (context.Context, error) {
	if !l.detached {
		return ctx, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return context.WithoutCancel(ctx), nil
}

// batch sends, in one batch, the begin statements when the transaction has
// not begun, the queued statements, and query; it reads the results of all
// but query, and the caller reads query's from the returned batch and
// closes it. The first failure among the statements before query is its
// error (the server skipped the rest of the batch).
func (l *lazyTx) batch(ctx context.Context, query string, args []any) (pgx.BatchResults, error) {
	b := &pgx.Batch{}
	begins := 0
	if !l.begun {
		for _, s := range l.begin {
			b.Queue(s)
		}
		begins = len(l.begin)
		l.begun = true
	}
	ahead := l.ahead
	l.ahead = nil
	for _, a := range ahead {
		b.Queue(a.sql, a.args...)
	}
	b.Queue(query, args...)
	br := l.conn.SendBatch(ctx, b)
	for range begins {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	for _, a := range ahead {
		if err := a.read(br); err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	return br, nil
}

// Exec runs a statement in the transaction.
func (l *lazyTx) Exec(ctx context.Context, query string, args ...any) (pgconn.CommandTag, error) {
	ctx, err := l.stmtContext(ctx)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	l.planMode()
	if direct, err := l.statement(); err != nil || direct {
		if err != nil {
			return pgconn.CommandTag{}, err
		}
		return l.conn.Exec(ctx, query, args...)
	}
	br, err := l.batch(ctx, query, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	return tag, closeBatch(br, err)
}

// Query runs a query in the transaction; closing the rows finishes the batch
// of a batched statement.
func (l *lazyTx) Query(ctx context.Context, query string, args ...any) (pgx.Rows, error) {
	ctx, err := l.stmtContext(ctx)
	if err != nil {
		return nil, err
	}
	l.planMode()
	if direct, err := l.statement(); err != nil || direct {
		if err != nil {
			return nil, err
		}
		return l.conn.Query(ctx, query, args...)
	}
	br, err := l.batch(ctx, query, args)
	if err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, closeBatch(br, err)
	}
	return &batchRows{Rows: rows, br: br}, nil
}

// QueryRow runs a query expected to return at most one row.
func (l *lazyTx) QueryRow(ctx context.Context, query string, args ...any) pgx.Row {
	ctx, err := l.stmtContext(ctx)
	if err != nil {
		return errRow{err}
	}
	l.planMode()
	if direct, err := l.statement(); err != nil || direct {
		if err != nil {
			return errRow{err}
		}
		return l.conn.QueryRow(ctx, query, args...)
	}
	br, err := l.batch(ctx, query, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{row: br.QueryRow(), br: br}
}

// rollback rolls the transaction back, if it began, and returns the
// connection to the pool; queued statements are dropped unsent.
func (l *lazyTx) rollback(ctx context.Context) error {
	defer l.conn.Release()
	l.ahead = nil
	if !l.begun || l.single {
		return nil
	}
	_, err := l.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
	return err
}

// commit sends the queued statements and COMMIT to the server in one batch
// (after the begin statements when the transaction has not begun) and
// returns the connection to the pool. When a queued statement fails
// (stmtErr), the server skips the COMMIT and the transaction is rolled
// back; otherwise commitErr is the COMMIT's error, pgx.ErrTxCommitRollback
// when the server turned it into a rollback (the transaction had failed).
// A transaction that ran and queued nothing never began, and ends here.
func (l *lazyTx) commit(ctx context.Context) (stmtErr, commitErr error) {
	if len(l.deferred) > 0 {
		l.wantPlan = planGeneric // as AppendEvents runs it (see onGenericPlan)
		l.enqueueKind(mergedAppend(l.deferred))
		l.deferred = nil
	}
	if l.single || (!l.begun && len(l.ahead) == 0) {
		l.conn.Release()
		return nil, nil
	}
	defer l.conn.Release()
	var tag pgconn.CommandTag
	if len(l.ahead) == 0 {
		tag, commitErr = l.conn.Exec(ctx, "COMMIT")
	} else {
		br, err := l.batch(ctx, "COMMIT", nil)
		if err != nil {
			// The batch's statements after the failed one did not run; the
			// transaction is aborted (or never began) and ends here.
			_, _ = l.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
			return err, nil
		}
		tag, commitErr = br.Exec()
		commitErr = closeBatch(br, commitErr)
	}
	if commitErr == nil && tag.String() == "ROLLBACK" {
		commitErr = pgx.ErrTxCommitRollback
	}
	return nil, commitErr
}

// closeBatch closes br and returns the statement's own error stmtErr, or
// when there is none the error of closing.
func closeBatch(br pgx.BatchResults, stmtErr error) error {
	err := br.Close()
	if stmtErr != nil {
		return stmtErr
	}
	return err
}

// batchRows are the rows of a first statement: closing them closes its batch.
type batchRows struct {
	pgx.Rows
	br pgx.BatchResults
}

func (r *batchRows) Close() {
	r.Rows.Close()
	_ = r.br.Close()
}

// batchRow is the row of a first statement: scanning it closes its batch.
type batchRow struct {
	row pgx.Row
	br  pgx.BatchResults
}

func (r batchRow) Scan(dest ...any) error {
	return closeBatch(r.br, r.row.Scan(dest...))
}

// errRow is a row that reports err.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }
