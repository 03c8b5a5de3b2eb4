package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chatcore/chatcore/store"
)

// Querier runs the statements of one transaction of a SQL store. Each
// store's transaction satisfies it through a thin adapter over its driver.
// Statements use $N placeholders, which both drivers accept.
type Querier interface {
	// Exec runs a statement and returns the number of rows it changed.
	Exec(ctx context.Context, query string, args ...any) (int64, error)
	// Query runs a statement that returns rows.
	Query(ctx context.Context, query string, args ...any) (Rows, error)
	// QueryRow runs a statement that returns at most one row; an error
	// that kept the statement from running comes from the row's Scan.
	QueryRow(ctx context.Context, query string, args ...any) Row
	// Writable returns an error when the transaction may not write (a
	// View). Every write calls it first, so a store may also forget there
	// what it remembered of reads the write may change.
	Writable() error
}

// Row is one row of a result: QueryRow's, or the current row of Rows.
// Scan of a QueryRow that selected nothing returns the dialect's NoRows.
type Row interface {
	Scan(dest ...any) error
}

// Rows is the result of Query, read as database/sql's and pgx's are: Next
// until false, then Err; Close frees the result and may be called twice.
type Rows interface {
	Row
	Next() bool
	Err() error
	Close()
}

// Dialect is what a SQL store's database tells apart from the other's: the
// spelling of a few expressions, how some values travel as arguments, and
// how its errors are classified. Each store has one Dialect value.
type Dialect struct {
	// SearchMatch returns the condition that the message m holds every
	// lexeme of the search term t in the database's full-text index; add
	// adds a statement argument and returns its placeholder.
	SearchMatch func(add func(any) string, t store.SearchTerm) string
	// SearchDrives says that a query of a user's messages with a search
	// term reads the index's matches in id order, each checked for the
	// user (the plain statement; SQLite, whose FTS5 table gives its
	// matches in rowid order), rather than merging the user's ranges with
	// the match as a condition of each (PostgreSQL, whose planner picks
	// per range between walking it and the index's bitmap).
	SearchDrives bool
	// Name starts every error message of the store ("sqlite", "postgres").
	Name string
	// NoRows is the error a Row's Scan returns when the query selected no
	// row; Classify makes it store.ErrNotFound.
	NoRows error
	// Kind returns store.ErrConflict for a unique or primary key
	// violation, store.ErrNotFound for a foreign key violation (a row that
	// names a missing parent), and nil for any other error. It decides by
	// the database's error code, never by the message text.
	Kind func(error) error
	// Time returns the argument of a time column; the zero time is NULL.
	// [TimeCol] reads either form back.
	Time func(time.Time) any
	// IDValue returns the expression of an insert's id column for table,
	// whose value is the parameter $1: the explicit id, or the table's
	// next id when $1 is NULL.
	IDValue func(table string) string
	// AfterExplicitID runs after a row of table was inserted with the
	// explicit id id, so that the table never hands out that id again; nil
	// when the database needs nothing for that.
	AfterExplicitID func(ctx context.Context, q Querier, table string, id int64) error
	// JSONLists says that a list parameter is a JSON array read with
	// json_each (SQLite) rather than an array (PostgreSQL); see [List],
	// Dialect.In and Dialect.Each.
	JSONLists bool
	// OrderedArms says that the members of a UNION ALL merged by id are
	// each parenthesized with their own ORDER BY and LIMIT: PostgreSQL plans
	// a Merge Append that reads each only as far as the merge needs for
	// such members, not for bare ones; SQLite merges bare members lazily
	// and allows no parentheses.
	OrderedArms bool
	// Casts says that a parameter whose type the statement does not imply
	// takes a cast (PostgreSQL); see Dialect.Cast.
	Casts bool
	// OrderedJoin is the join that keeps the tables in the order written
	// ("CROSS JOIN ... ON" on SQLite, whose planner follows it; "JOIN" on
	// PostgreSQL, which has no CROSS JOIN with a condition).
	OrderedJoin string
	// UserList returns the argument of a list column of user ids (a JSON
	// array on SQLite, an array on PostgreSQL; nil is NULL), and
	// UserListDest the scan destination that reads one back into p.
	UserList     func(ids []store.UserID) any
	UserListDest func(p *[]store.UserID) any
	// ByteOrder is the clause that makes an ORDER BY of text compare bytes
	// ("" on SQLite, whose default collation does; COLLATE "C" on
	// PostgreSQL).
	ByteOrder string
	// SettingsSelect returns the select expression of the setting columns
	// of a user, quoted, in store.SettingNames order, and SettingsDest the
	// scan destinations of that expression's columns for fields, the
	// pointers of Settings.Fields. Nil for one column per setting.
	SettingsSelect func(quoted []string) string
	SettingsDest   func(fields []any) []any
	// QueueExpiry is the SQL expression of an event queue's expiry, its
	// last poll plus its lifespan, in the event_queues table (a time as
	// Time writes it).
	QueueExpiry string
	// PlannerHints says that message statements steer the planner with
	// hints in their text (SQLite): a unary + keeps the realm index from
	// driving them, and a topic of one channel is looked up through the
	// channel. See PlainMessagesSQL and DeleteSQL.
	PlannerHints bool
	// GenericPlans says that prepared statements may run on a generic plan
	// chosen once for any arguments (PostgreSQL), so a statement whose
	// best plan depends on an argument writes it into its text instead.
	// See DeleteSQL.
	GenericPlans bool
	// ProbeFence ends a correlated subquery that must stay a probe run
	// once per outer row (see NoFlagRow): " OFFSET 0" on PostgreSQL, whose
	// planner does not turn a subquery with an OFFSET into a join; "" on
	// SQLite, which runs such a subquery as a probe anyway and allows no
	// OFFSET without a LIMIT.
	ProbeFence string

	usersOnce sync.Once
	users     userSQL
}

// Classify wraps a driver error for the operation what: NoRows becomes
// store.ErrNotFound, and the errors Kind names wrap its answer.
func (d *Dialect) Classify(err error, what string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, d.NoRows) {
		return d.NotFound(what)
	}
	if kind := d.Kind(err); kind != nil {
		return fmt.Errorf("%s: %s: %w: %w", d.Name, what, kind, err)
	}
	return fmt.Errorf("%s: %s: %w", d.Name, what, err)
}

// NotFound returns an error wrapping store.ErrNotFound for what.
func (d *Dialect) NotFound(what string) error {
	return fmt.Errorf("%s: %s: %w", d.Name, what, store.ErrNotFound)
}

// Tx is one transaction of a SQL store as the shared code sees it: its
// statements and its dialect. A store's transaction embeds it, so that the
// aggregates written here implement their parts of store.Tx; a store that
// answers a read its own way (from a cache or a prefetch) defines that
// method itself and calls Tx's for the rest.
type Tx struct {
	q Querier
	d *Dialect
}

// NewTx returns the Tx of the transaction q of a store of dialect d.
func NewTx(q Querier, d *Dialect) Tx { return Tx{q: q, d: d} }

// classify is the dialect's Classify.
func (x *Tx) classify(err error, what string) error { return x.d.Classify(err, what) }

// mustAffect returns err classified, or ErrNotFound when n, the number of
// rows a statement changed, is 0.
func (x *Tx) mustAffect(n int64, err error, what string) error {
	if err != nil {
		return x.classify(err, what)
	}
	if n == 0 {
		return x.d.NotFound(what)
	}
	return nil
}

// InsertWithID runs an INSERT ... RETURNING id whose first parameter is
// the explicit id (0 for none: the table's next id then applies, see
// Dialect.IDValue) and returns the row's id.
func (x *Tx) InsertWithID(ctx context.Context, table, what, query string, id int64, args ...any) (int64, error) {
	var got int64
	if err := x.q.QueryRow(ctx, query, append([]any{IDArg(id)}, args...)...).Scan(&got); err != nil {
		return 0, x.classify(err, what)
	}
	if id != 0 && x.d.AfterExplicitID != nil {
		if err := x.d.AfterExplicitID(ctx, x.q, table, id); err != nil {
			return 0, x.classify(err, what)
		}
	}
	return got, nil
}

// scanAll runs query and collects one value per row with scan.
func scanAll[T any](ctx context.Context, x *Tx, what string, scan func(Row, *T) error, query string, args ...any) ([]T, error) {
	rows, err := x.q.Query(ctx, query, args...)
	if err != nil {
		return nil, x.classify(err, what)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		// Scanned in place: a variable whose address goes to scan, a
		// function value, would be allocated on the heap for every row.
		var zero T
		out = append(out, zero)
		if err := scan(rows, &out[len(out)-1]); err != nil {
			return nil, x.classify(err, what)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, x.classify(err, what)
	}
	return out, nil
}
