package sqlite

import (
	"context"
	"database/sql"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	lib "modernc.org/sqlite/lib"
)

// dialect is SQLite's for the statements the SQL stores share: times are
// unix seconds, an INTEGER PRIMARY KEY takes the next id for NULL, lists
// are JSON arrays, and errors are classified by their extended result code.
var dialect = newDialect(true)

// undriven is dialect without SearchDrives: its statements match a search
// term with SearchMatch, which tests the index's tail in Go (see
// tailQuery).
var undriven = newDialect(false)

// newDialect returns SQLite's dialect, with SearchDrives set to drives.
func newDialect(drives bool) sqlstore.Dialect {
	return sqlstore.Dialect{
		Name:         "sqlite",
		SearchMatch:  sqlstore.SQLiteSearchMatch,
		SearchDrives: drives,
		NoRows:       sql.ErrNoRows,
		Kind: func(err error) error {
			switch sqliteCode(err) {
			case lib.SQLITE_CONSTRAINT_UNIQUE, lib.SQLITE_CONSTRAINT_PRIMARYKEY:
				return store.ErrConflict
			case lib.SQLITE_CONSTRAINT_FOREIGNKEY:
				return store.ErrNotFound
			}
			return nil
		},
		Time:         timeArg,
		IDValue:      func(string) string { return "$1" },
		JSONLists:    true,
		OrderedJoin:  "CROSS JOIN",
		PlannerHints: true,
		// A queue's expiry: its last poll plus its lifespan, both seconds.
		QueueExpiry:  "last_poll + lifespan_secs",
		UserList:     listArg[store.UserID],
		UserListDest: func(p *[]store.UserID) any { return listCol[store.UserID]{p} },
		// User reads fetch the settings as one column (see settingsCol).
		SettingsSelect: userSettingsField,
		SettingsDest:   func(fields []any) []any { return []any{settingsCol{fields}} },
	}
}

// newTx returns t with its shared statements (sqlstore.Tx) bound to it.
func newTx(t *tx) *tx {
	t.Tx = sqlstore.NewTx(querier{t}, &dialect)
	return t
}

// querier adapts a tx to sqlstore.Querier: its statements go through the
// statement cache and note the cached tables they change, as the store's
// own do.
type querier struct{ t *tx }

func (q querier) Exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := q.t.exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (q querier) Query(ctx context.Context, query string, args ...any) (sqlstore.Rows, error) {
	rows, err := q.t.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return sqlRows{rows}, nil
}

func (q querier) QueryRow(ctx context.Context, query string, args ...any) sqlstore.Row {
	return q.t.queryRow(ctx, query, args...)
}

func (q querier) Writable() error { return q.t.writable() }

// sqlRows is a *sql.Rows as sqlstore.Rows, whose Close reports nothing
// (database/sql reports a result's errors through Err).
type sqlRows struct{ *sql.Rows }

func (r sqlRows) Close() { _ = r.Rows.Close() }
