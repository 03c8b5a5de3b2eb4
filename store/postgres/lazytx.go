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
type lazyTx struct {
	conn  *pgxpool.Conn
	begin []string
	begun bool
	// single runs one statement with no transaction around it (see
	// Store.ViewSingle); a second one fails with errSecondStatement.
	single bool
}

// errSecondStatement is the error of a second statement in a ViewSingle.
var errSecondStatement = errors.New("postgres: a second statement in ViewSingle, which runs one")

// statement reports whether the statement about to run is the single
// transaction's one, run as is; it fails for a second one.
func (l *lazyTx) statement() (direct bool, err error) {
	if !l.single {
		return l.begun, nil
	}
	if l.begun {
		return false, errSecondStatement
	}
	l.begun = true
	return true, nil
}

// beginLazy acquires a connection for a transaction that the begin
// statements will start.
func beginLazy(ctx context.Context, pool *pgxpool.Pool, begin ...string) (*lazyTx, error) {
	c, err := pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &lazyTx{conn: c, begin: begin}, nil
}

// first sends the begin statements and query as one batch and reads the
// begin statements' results; the caller reads query's result from the
// returned batch and closes it.
func (l *lazyTx) first(ctx context.Context, query string, args []any) (pgx.BatchResults, error) {
	l.begun = true
	b := &pgx.Batch{}
	for _, s := range l.begin {
		b.Queue(s)
	}
	b.Queue(query, args...)
	br := l.conn.SendBatch(ctx, b)
	for range l.begin {
		if _, err := br.Exec(); err != nil {
			_ = br.Close()
			return nil, err
		}
	}
	return br, nil
}

// Exec runs a statement in the transaction.
func (l *lazyTx) Exec(ctx context.Context, query string, args ...any) (pgconn.CommandTag, error) {
	if direct, err := l.statement(); err != nil || direct {
		if err != nil {
			return pgconn.CommandTag{}, err
		}
		return l.conn.Exec(ctx, query, args...)
	}
	br, err := l.first(ctx, query, args)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	return tag, closeBatch(br, err)
}

// Query runs a query in the transaction; closing the rows finishes the batch
// of a first statement.
func (l *lazyTx) Query(ctx context.Context, query string, args ...any) (pgx.Rows, error) {
	if direct, err := l.statement(); err != nil || direct {
		if err != nil {
			return nil, err
		}
		return l.conn.Query(ctx, query, args...)
	}
	br, err := l.first(ctx, query, args)
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
	if direct, err := l.statement(); err != nil || direct {
		if err != nil {
			return errRow{err}
		}
		return l.conn.QueryRow(ctx, query, args...)
	}
	br, err := l.first(ctx, query, args)
	if err != nil {
		return errRow{err}
	}
	return batchRow{row: br.QueryRow(), br: br}
}

// end commits (commit) or rolls back the transaction, if it began, and
// returns the connection to the pool. A COMMIT that the server turned into
// a rollback (the transaction had failed) returns pgx.ErrTxCommitRollback.
func (l *lazyTx) end(ctx context.Context, commit bool) error {
	defer l.conn.Release()
	if !l.begun || l.single {
		return nil
	}
	if !commit {
		_, err := l.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	tag, err := l.conn.Exec(ctx, "COMMIT")
	if err == nil && tag.String() == "ROLLBACK" {
		err = pgx.ErrTxCommitRollback
	}
	return err
}

// commitWith sends query and COMMIT to the server in one batch (after the
// begin statements when the transaction has not begun), reads query's rows
// with scan, and returns the connection to the pool. When query fails
// (stmtErr), the server skips the COMMIT, and the transaction is rolled
// back; otherwise commitErr is the COMMIT's error, pgx.ErrTxCommitRollback
// when the server turned it into a rollback.
func (l *lazyTx) commitWith(ctx context.Context, query string, args []any, scan func(pgx.Rows) error) (stmtErr, commitErr error) {
	defer l.conn.Release()
	b := &pgx.Batch{}
	if !l.begun {
		for _, s := range l.begin {
			b.Queue(s)
		}
	}
	begins := b.Len()
	l.begun = true
	b.Queue(query, args...)
	b.Queue("COMMIT")
	br := l.conn.SendBatch(ctx, b)
	for range begins {
		if _, stmtErr = br.Exec(); stmtErr != nil {
			break
		}
	}
	if stmtErr == nil {
		var rows pgx.Rows
		if rows, stmtErr = br.Query(); stmtErr == nil {
			stmtErr = scan(rows)
			rows.Close()
			if stmtErr == nil {
				stmtErr = rows.Err()
			}
		}
	}
	if stmtErr != nil {
		_ = br.Close()
		// The batch's statements after the failed one did not run; the
		// transaction is aborted (or never began) and ends here.
		_, _ = l.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
		return stmtErr, nil
	}
	tag, err := br.Exec()
	if err == nil && tag.String() == "ROLLBACK" {
		err = pgx.ErrTxCommitRollback
	}
	return nil, closeBatch(br, err)
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
