package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// ErrReadOnly is returned by the write methods of a Tx passed to View.
var ErrReadOnly = errors.New("postgres: write in a read-only transaction")

// SQLSTATE codes the store tells apart.
const (
	codeUniqueViolation      = "23505"
	codeForeignKeyViolation  = "23503"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
	codeLockNotAvailable     = "55P03"
)

// tx implements store.Tx on one pgx transaction.
type tx struct {
	tx       *lazyTx
	readOnly bool
	// failed is the first error PostgreSQL reported in this transaction,
	// which aborts it: later statements fail without reaching the server.
	failed error
	// notify announces appended events (nil: none).
	notify *notifier
	// appended are the events this transaction appended, announced once it
	// has committed (only when notify is set).
	appended []store.LoggedEvent
	// fetched are the answers of announced reads (see Prefetch); a
	// write forgets them.
	fetched *fetched
	// userMessages is the announced UserMessages read (see Prefetch),
	// which every write of messages or flags forgets too.
	userMessages *fetchedUserMessages
	// subs are the Store's channels' subscribers (see subscriberCache).
	subs *subscriberCache
	// streams are the streams Stream read, as this transaction sees them:
	// a later read of one answers from here, without a round trip, until
	// a write that may change streams (see writable) forgets them.
	streams map[store.StreamID]store.Stream
	// messageIDs are ids an announcement reserved for new messages (see
	// Prefetch), in sequence order; no write changes them.
	messageIDs []store.MessageID
	// users are the users this write transaction read (a few at most, so
	// a list): each exists until it ends, since no user is ever deleted,
	// so a write of theirs that only a conflict can fail may be held back
	// (see holdBack). Reads in a View, which writes nothing, are not kept.
	users []store.UserID
	// messages are the messages this write transaction read with Message
	// (a few at most): each exists until it ends unless a conflict fails
	// it, or the transaction deletes messages (DeleteMessages forgets
	// them), so a write of theirs may be held back too (see noteRead).
	messages []store.MessageID
	// linkifierVersions are the linkifier versions of the realms Realm
	// read, as this transaction sees them; LinkifiersVersion answers from
	// them, and a write of linkifiers forgets them.
	linkifierVersions map[store.RealmID]int64
	// Tx runs the statements written once for both SQL stores (see
	// newTx).
	sqlstore.Tx
}

var _ store.Tx = (*tx)(nil)

// writable returns ErrReadOnly in a View. Every write calls it first: in
// an Update it forgets the answers of announced reads, which the write may
// change (see Prefetch).
func (t *tx) writable() error {
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	t.fetched = nil
	clear(t.streams)
	return nil
}

// writableKeepingAnswers is writable for a write of messages and the rows
// that hang off them only: of the announced reads, only UserMessages
// answers from those, so the others' answers stay, and so do the streams
// read.
func (t *tx) writableKeepingAnswers() error {
	if t.readOnly {
		return ErrReadOnly
	}
	t.userMessages = nil
	return nil
}

// commit commits the transaction, sending its queued statements (an
// event append, see AppendEvents) in one batch with the COMMIT. A failure
// after which the transaction may have committed wraps errOutcomeUnknown
// (see commitOutcome).
func (t *tx) commit(ctx context.Context) error {
	return commitOutcome(t.tx.commit(ctx))
}

// onGenericPlan returns what run returns, having the statements run sends
// or queues execute on their prepared statements' generic plans.
// PostgreSQL plans a prepared statement anew at every execution while the
// plans made for the actual parameters are estimated cheaper than the
// generic plan, which a statement over an array of ids always is (the
// generic plan assumes ten ids, where the request has one or a few): for a
// statement with correlated subqueries that planning costs ten times the
// execution. The plan settings travel in the batches of the statements
// around, without a round trip of their own, and last for run's statements
// only (see lazyTx.planMode).
func onGenericPlan[T any](t *tx, run func() (T, error)) (T, error) {
	return onPlan(t, planGeneric, run)
}

// onCustomPlan returns what run returns, having the statements run sends
// or queues planned for their actual parameters at every execution: a
// statement whose best plan depends on a parameter's value, as a
// full-text match's does on how common its words are (the generic plan
// assumes every tsquery matches as often), would otherwise go to a generic
// plan after five executions and keep it for every value.
func onCustomPlan[T any](t *tx, run func() (T, error)) (T, error) {
	return onPlan(t, planCustom, run)
}

// onPlan runs run with its statements in the plan mode kind.
func onPlan[T any](t *tx, kind planKind, run func() (T, error)) (T, error) {
	if t.tx.single {
		return run()
	}
	t.tx.wantPlan = kind
	v, err := run()
	t.tx.wantPlan = planDefault
	return v, err
}

// check records err when it comes from the server (and so aborted the
// transaction) and returns it.
func (t *tx) check(err error) error {
	if err == nil || errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	if t.failed == nil {
		t.failed = err
	}
	return err
}

// usable returns an error when an earlier statement aborted the
// transaction.
func (t *tx) usable() error {
	if t.failed != nil {
		return fmt.Errorf("postgres: transaction aborted by an earlier error: %w", t.failed)
	}
	return nil
}

func (t *tx) exec(ctx context.Context, query string, args ...any) (pgconn.CommandTag, error) {
	if err := t.usable(); err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := t.tx.Exec(ctx, query, args...)
	return tag, t.check(err)
}

// row is a pgx.Row whose Scan records a server error in its transaction.
type row struct {
	t   *tx
	row pgx.Row
	err error
}

func (r row) Scan(dest ...any) error {
	if r.err != nil {
		return r.err
	}
	return r.t.check(r.row.Scan(dest...))
}

func (t *tx) queryRow(ctx context.Context, query string, args ...any) row {
	if err := t.usable(); err != nil {
		return row{err: err}
	}
	return row{t: t, row: t.tx.QueryRow(ctx, query, args...)}
}

// queueRows queues query to go to the server ahead of the transaction's
// next statement (see lazyTx), collecting one value per row into out with
// scan when its batch is read.
func queueRows[T any](t *tx, out *[]T, what string, scan func(pgx.Rows, *T) error, query string, args ...any) {
	t.tx.enqueueKind(aheadStmt{sql: query, args: args, kind: aheadRead, read: func(br pgx.BatchResults) (err error) {
		*out, err = readRows(br, what, scan)
		return err
	}})
}

// readRows reads the next result of br, one value per row scanned with
// scan: nil when there is no row, as scanAll answers.
func readRows[T any](br pgx.BatchResults, what string, scan func(pgx.Rows, *T) error) ([]T, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, classify(err, what)
	}
	out, err := collectRows(rows, scan)
	return out, classify(err, what)
}

// flush sends the statements queued ahead now (see lazyTx.flush).
func (t *tx) flush(ctx context.Context) error {
	if err := t.usable(); err != nil {
		return err
	}
	return t.check(t.tx.flush(ctx))
}

// scanAll runs query and collects one value per row with scan.
func scanAll[T any](ctx context.Context, t *tx, what string, scan func(pgx.Rows, *T) error, query string, args ...any) ([]T, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	rows, err := t.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, classify(t.check(err), what)
	}
	out, err := collectRows(rows, scan)
	if err != nil {
		return nil, classify(t.check(err), what)
	}
	return out, nil
}

// collectRows scans every row of rows with scan and closes rows: nil when
// there is no row.
func collectRows[T any](rows pgx.Rows, scan func(pgx.Rows, *T) error) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		// Scanned in place: a variable whose address goes to scan, a
		// function value, would be allocated on the heap for every row.
		var zero T
		out = append(out, zero)
		if err := scan(rows, &out[len(out)-1]); err != nil {
			return nil, err
		}
	}
	return out, rows.Err()
}

// scanIDRow scans a row of one id.
func scanIDRow[T ~int64](r pgx.Rows, v *T) error {
	var n int64
	err := r.Scan(&n)
	*v = T(n)
	return err
}

// classify wraps an error for the operation what (see
// sqlstore.Dialect.Classify).
func classify(err error, what string) error { return dialect.Classify(err, what) }

// sqlState returns the SQLSTATE of err, or "" when it is no server error.
func sqlState(err error) string {
	if e, ok := errors.AsType[*pgconn.PgError](err); ok {
		return e.Code
	}
	return ""
}

// isRetryable reports a serialization failure or a deadlock.
func isRetryable(err error) bool {
	switch sqlState(err) {
	case codeSerializationFailure, codeDeadlockDetected, codeLockNotAvailable:
		// lock_not_available comes only from an attempt that gave up
		// waiting for the write gate (lock_timeout is set for nothing else).
		return true
	}
	return false
}

// notFound returns an error wrapping store.ErrNotFound for what.
func notFound(what string) error { return dialect.NotFound(what) }

// noteRead adds id to list, the rows of one kind the transaction read
// (tx.users, tx.messages), in a write transaction; a View writes nothing
// and keeps no list.
func noteRead[T comparable](t *tx, list *[]T, id T) {
	if !t.readOnly && !slices.Contains(*list, id) {
		*list = append(*list, id)
	}
}

// holdBack queues a write whose answer nothing waits for, to go to the
// server ahead of the transaction's next statement or with its COMMIT (see
// lazyTx), which saves it a round trip; check, when not nil, judges its
// command tag. A failure fails that statement or the commit, and so the
// Update. In a write group's transaction that statement may be another
// Update's: the failure then wraps errHeldBack, and every Update of the
// group runs again in a transaction of its own, where the write fails its
// own Update (see writeGroups).
func (t *tx) holdBack(what, query string, args []any, check func(pgconn.CommandTag) error) error {
	if err := t.usable(); err != nil {
		return err
	}
	shared := t.tx.detached
	t.tx.enqueueKind(aheadStmt{sql: query, args: args, read: func(br pgx.BatchResults) error {
		tag, err := br.Exec()
		err = classify(err, what)
		if err == nil && check != nil {
			err = check(tag)
		}
		if err != nil && shared {
			return fmt.Errorf("%w: %w", errHeldBack, err)
		}
		return err
	}})
	return nil
}

// mustAffect returns ErrNotFound when tag reports no changed row.
func mustAffect(tag pgconn.CommandTag, err error, what string) error {
	if err != nil {
		return classify(err, what)
	}
	if tag.RowsAffected() == 0 {
		return notFound(what)
	}
	return nil
}

// timeArg stores t; the zero time is NULL.
func timeArg(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// ensureSeqSQL moves the identity sequence of table $1 past id $2 after a
// row was inserted with an explicit id, so that the sequence never hands out
// an id at or below one in use. nextval keeps the sequence moving forward
// when it is already past id.
const ensureSeqSQL = "SELECT setval(pg_get_serial_sequence($1, 'id'), greatest($2::bigint, nextval(pg_get_serial_sequence($1, 'id'))))"

// idValue is the SQL expression for the id parameter $1 of an insert:
// the explicit id, or the next value of the table's identity sequence.
func idValue(table string) string {
	return "coalesce($1::bigint, nextval('" + idSequence(table) + "'))"
}

// idSequence names the identity sequence of table's id column: PostgreSQL
// names it table_id_seq when the table is created, and no migration renames
// one (TestIdentitySequenceNames). The name, resolved when a statement is
// prepared, costs nothing per row, where pg_get_serial_sequence looks the
// catalog up on every call.
func idSequence(table string) string { return table + "_id_seq" }
