package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

// ErrReadOnly is returned by the write methods of a Tx passed to View.
var ErrReadOnly = errors.New("sqlite: write in a read-only transaction")

// tx implements store.Tx on one database/sql transaction.
type tx struct {
	// tx is the SQL transaction; nil in a View until its first statement,
	// which begin then starts (a View answered from the row cache alone
	// runs no statement at all).
	tx       *sql.Tx
	begin    func(context.Context) (*sql.Tx, error)
	readOnly bool
	// cache holds the pool's prepared statements; misses collects the
	// statements this transaction ran unprepared, for the cache to prepare
	// once the transaction has ended.
	cache  *stmtCache
	misses []string
	// detach runs statements with their context stripped of cancellation,
	// once it is checked (see writeGroup).
	detach bool
	// rows is the Store's row cache, and gens its generations and
	// userWrites its count of single-user writes when the transaction
	// began; group is an Update's shared transaction (nil in a View), which
	// records the cached tables and the users it has changed.
	rows       *rowCache
	gens       generations
	userWrites uint64
	group      *group
	// logHead is the Store's hint of the event log's head.
	logHead *atomic.Int64
	// trace is the Store's statement hook (see withTrace), or nil.
	trace func(query string, args []any)
	// index is the Store's full-text indexer, or nil (see searchTail).
	index *indexer
	// bulk are the multi-row statements CreateMessages prepared in this
	// transaction (see bulkStmt).
	bulk map[bulkKey]*sql.Stmt
	// local are the statements missing from the cache that this
	// transaction ran often enough to prepare for itself, and seen how
	// often it ran each missing one (see stmt).
	local map[string]*sql.Stmt
	seen  map[string]int
	// Tx runs the statements written once for both SQL stores (see
	// newTx).
	sqlstore.Tx
}

// stmtCtx returns the context a statement runs with: ctx itself when it is
// done (database/sql then fails the call before the driver sees it) or the
// transaction is not detached, else ctx without its cancellation.
func (t *tx) stmtCtx(ctx context.Context) context.Context {
	if t.detach && ctx.Err() == nil {
		return context.WithoutCancel(ctx)
	}
	return ctx
}

var _ store.Tx = (*tx)(nil)

// writable returns ErrReadOnly in a View. (A reader connection is also
// query_only, so a write that got past this would fail in SQLite.)
func (t *tx) writable() error {
	if t.readOnly {
		return ErrReadOnly
	}
	return nil
}

// sqlTx returns the SQL transaction, beginning a View's at its first
// statement.
func (t *tx) sqlTx(ctx context.Context) (*sql.Tx, error) {
	if t.tx == nil {
		sqlTx, err := t.begin(ctx)
		if err != nil {
			return nil, fmt.Errorf("sqlite: begin view: %w", err)
		}
		t.tx = sqlTx
	}
	return t.tx, nil
}

// stmt returns the cached prepared statement for query bound to the
// transaction, or nil (recording the miss).
//
// The cache prepares what a transaction missed only once it has ended, so
// a long transaction (an import writing a million messages, each direct
// conversation with its own statements) would otherwise prepare a
// statement anew at every run: a statement missed localAfter times is
// prepared on the transaction itself and reused until it ends, for up to
// maxLocal statements (a transaction's statements with varying text, such
// as IN lists, are counted up to maxSeen).
func (t *tx) stmt(ctx context.Context, sqlTx *sql.Tx, query string) *sql.Stmt {
	if t.cache == nil {
		return nil
	}
	if st := t.cache.get(query); st != nil {
		return sqlTx.StmtContext(ctx, st)
	}
	if st := t.local[query]; st != nil {
		return st
	}
	t.misses = append(t.misses, query)
	if t.seen == nil {
		t.seen = map[string]int{}
	}
	n, ok := t.seen[query]
	if !ok && len(t.seen) >= maxSeen {
		return nil
	}
	t.seen[query] = n + 1
	if n+1 < localAfter || len(t.local) >= maxLocal {
		return nil
	}
	st, err := sqlTx.PrepareContext(ctx, query)
	if err != nil {
		return nil // run unprepared, which reports the error
	}
	if t.local == nil {
		t.local = map[string]*sql.Stmt{}
	}
	// database/sql closes a transaction's statements when it ends.
	t.local[query] = st
	return st
}

// localAfter, maxLocal and maxSeen bound the statements a transaction
// prepares for itself (see tx.stmt).
const (
	localAfter = 3
	maxLocal   = 64
	maxSeen    = 1024
)

// prepare readies a statement run with args: it shows both to the trace
// hook, begins a View's transaction, notes the cached tables a statement of
// an Update changes but those of except (see rowCache), and returns the
// statement's context and transaction.
func (t *tx) prepare(ctx context.Context, query string, except tableSet, args []any) (context.Context, *sql.Tx, error) {
	if t.trace != nil {
		t.trace(query, args)
	}
	if t.group != nil && t.rows != nil {
		t.group.changed |= changedTables(query) &^ except
	}
	ctx = t.stmtCtx(ctx)
	sqlTx, err := t.sqlTx(ctx)
	return ctx, sqlTx, err
}

func (t *tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return t.execAs(ctx, query, true, 0, args...)
}

// execUserRow runs query, which writes user's row and nothing else (WHERE
// id = user): the row cache then drops that user's entries only (see
// rowCache), where exec would drop every user's. prepared says whether the
// statement may enter the statement cache.
func (t *tx) execUserRow(ctx context.Context, user store.UserID, prepared bool, query string, args ...any) (sql.Result, error) {
	if t.group != nil && t.rows != nil {
		t.group.users = append(t.group.users, user)
	}
	return t.execAs(ctx, query, prepared, 1<<usersTable, args...)
}

// execAs runs query, through the statement cache when prepared, noting the
// cached tables it changes but those of except.
func (t *tx) execAs(ctx context.Context, query string, prepared bool, except tableSet, args ...any) (sql.Result, error) {
	ctx, sqlTx, err := t.prepare(ctx, query, except, args)
	if err != nil {
		return nil, err
	}
	if prepared {
		if st := t.stmt(ctx, sqlTx, query); st != nil {
			return st.ExecContext(ctx, args...)
		}
	}
	return sqlTx.ExecContext(ctx, query, args...)
}

func (t *tx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	ctx, sqlTx, err := t.prepare(ctx, query, 0, args)
	if err != nil {
		return nil, err
	}
	if st := t.stmt(ctx, sqlTx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	return sqlTx.QueryContext(ctx, query, args...)
}

// row is the result of queryRow: a *sql.Row, or the error that kept the
// statement from running.
type row interface{ Scan(dest ...any) error }

type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

func (t *tx) queryRow(ctx context.Context, query string, args ...any) row {
	ctx, sqlTx, err := t.prepare(ctx, query, 0, args)
	if err != nil {
		return errRow{err}
	}
	if st := t.stmt(ctx, sqlTx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	return sqlTx.QueryRowContext(ctx, query, args...)
}

// cacheUsable reports whether the transaction may read and fill the row
// cache's entries of table: a View, or an Update whose shared transaction
// has not changed the table.
func (t *tx) cacheUsable(table cachedTable) bool {
	return t.rows != nil && (t.group == nil || !t.group.changed.has(table))
}

// userCacheUsable is cacheUsable for user id's entries, which a write
// transaction that changed that user's row alone does not use either.
func (t *tx) userCacheUsable(id store.UserID) bool {
	return t.cacheUsable(usersTable) && (t.group == nil || !slices.Contains(t.group.users, id))
}

// classify wraps a driver error for the operation what (see
// sqlstore.Dialect.Classify).
func classify(err error, what string) error { return dialect.Classify(err, what) }

// notFound returns an error wrapping store.ErrNotFound for what.
func notFound(what string) error { return dialect.NotFound(what) }

// mustAffect returns ErrNotFound when res changed no row.
func mustAffect(res sql.Result, what string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return classify(err, what)
	}
	if n == 0 {
		return notFound(what)
	}
	return nil
}

// timeArg stores t as unix seconds; the zero time is NULL.
func timeArg(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Unix()
}

// idArg is sqlstore.IDArg.
func idArg[T ~int64](id T) any { return sqlstore.IDArg(id) }

// optStrCol scans a nullable TEXT column into a *string (NULL is nil).
type optStrCol struct{ p **string }

func (c optStrCol) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		*c.p = nil
	case string:
		*c.p = &v
	case []byte:
		s := string(v)
		*c.p = &s
	default:
		return fmt.Errorf("text column holds %T", v)
	}
	return nil
}

// idsJSON is sqlstore.IDsJSON, for json_each(?).
func idsJSON[T ~int64](ids []T) string { return sqlstore.IDsJSON(ids) }

// listArg stores an id list as a JSON array; a nil list is NULL, so nil and
// empty lists read back as they were written.
func listArg[T ~int64](ids []T) any {
	if ids == nil {
		return nil
	}
	return idsJSON(ids)
}

// listCol scans a column written by listArg.
type listCol[T ~int64] struct{ p *[]T }

func (c listCol[T]) Scan(v any) error {
	var b []byte
	switch v := v.(type) {
	case nil:
		*c.p = nil
		return nil
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("list column holds %T", v)
	}
	if out, ok := parseIDList[T](b); ok {
		*c.p = out
		return nil
	}
	var out []T
	if err := json.Unmarshal(b, &out); err != nil {
		return err
	}
	if out == nil {
		out = []T{}
	}
	*c.p = out
	return nil
}

// parseIDList parses the exact form idsJSON writes ("[1,2,3]", "[]") without
// reflection; it reports false for anything else, which the caller then hands
// to encoding/json.
func parseIDList[T ~int64](b []byte) ([]T, bool) {
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, false
	}
	body := b[1 : len(b)-1]
	if len(body) == 0 {
		return []T{}, true
	}
	out := make([]T, 0, bytes.Count(body, []byte{','})+1)
	for len(body) > 0 {
		end := bytes.IndexByte(body, ',')
		if end < 0 {
			end = len(body)
		}
		n, err := strconv.ParseInt(string(body[:end]), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, T(n))
		if end == len(body) {
			break
		}
		body = body[end+1:]
		if len(body) == 0 {
			return nil, false // trailing comma
		}
	}
	return out, true
}

// scanAll runs query and collects one value per row with scan.
func scanAll[T any](ctx context.Context, t *tx, what string, scan func(*sql.Rows, *T) error, query string, args ...any) ([]T, error) {
	rows, err := t.query(ctx, query, args...)
	if err != nil {
		return nil, classify(err, what)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, classify(err, what)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, classify(err, what)
	}
	return out, nil
}

// num is sqlstore.Num.
func num[T ~int64 | ~int | ~uint16 | ~uint8](p *T) sqlstore.NumScanner[T] { return sqlstore.Num(p) }

// typeCol scans the type column of a message (see sqlstore.Type).
type typeCol struct{ p *store.MessageType }

func (c typeCol) Scan(v any) error { return sqlstore.Type(c.p).Scan(v) }
