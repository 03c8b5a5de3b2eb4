package postgres

import (
	"context"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// dialect is PostgreSQL's for the statements the SQL stores share: times
// are timestamps, ids come from each table's identity sequence, and errors
// are classified by their SQLSTATE.
var dialect = sqlstore.Dialect{
	SearchMatch: sqlstore.PostgresSearchMatch,
	Name:        "postgres",
	NoRows:      pgx.ErrNoRows,
	Kind: func(err error) error {
		switch sqlState(err) {
		case codeUniqueViolation:
			return store.ErrConflict
		case codeForeignKeyViolation:
			return store.ErrNotFound
		}
		return nil
	},
	Time:    func(t time.Time) any { return timeArg(t) },
	IDValue: idValue,
	AfterExplicitID: func(ctx context.Context, q sqlstore.Querier, table string, id int64) error {
		_, err := q.Exec(ctx, ensureSeqSQL, table, id)
		return err
	},
	Casts:        true,
	OrderedArms:  true,
	OrderedJoin:  "JOIN",
	GenericPlans: true,
	ProbeFence:   " OFFSET 0",
	ByteOrder:    ` COLLATE "C"`,
	// A queue's expiry: its expires_at column.
	QueueExpiry:  "expires_at",
	UserList:     func(ids []store.UserID) any { return ids },
	UserListDest: func(p *[]store.UserID) any { return p },
}

// newTx returns t with its shared statements (sqlstore.Tx) bound to it.
func newTx(t *tx) *tx {
	t.Tx = sqlstore.NewTx(querier{t}, &dialect)
	return t
}

// querier adapts a tx to sqlstore.Querier: its statements go through the
// lazy transaction, and a server error is recorded (see tx.check), as the
// store's own are.
type querier struct{ t *tx }

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := q.t.exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (q querier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	if err := q.t.usable(); err != nil {
		return nil, err
	}
	rows, err := q.t.tx.Query(ctx, query, args...)
	if err != nil {
		return nil, q.t.check(err)
	}
	return checkedRows{rows, q.t}, nil
}

func (q querier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return q.t.queryRow(ctx, query, args...)
}

func (q querier) Writable() error { return q.t.writable() }

// checkedRows are pgx.Rows whose errors are recorded in their transaction.
type checkedRows struct {
	pgx.Rows
	t *tx
}

func (r checkedRows) Scan(dest ...any) error { return r.t.check(r.Rows.Scan(dest...)) }

func (r checkedRows) Err() error { return r.t.check(r.Rows.Err()) }
