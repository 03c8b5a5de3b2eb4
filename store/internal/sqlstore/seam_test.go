package sqlstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

var (
	errNoRows = errors.New("no rows")
	errDup    = errors.New("duplicate key")
	errFK     = errors.New("foreign key")
)

// testDialect is a dialect whose errors are classified by identity.
func testDialect(jsonLists bool) *sqlstore.Dialect {
	return &sqlstore.Dialect{Name: "test", NoRows: errNoRows, JSONLists: jsonLists, Casts: !jsonLists,
		Kind: func(err error) error {
			switch {
			case errors.Is(err, errDup):
				return store.ErrConflict
			case errors.Is(err, errFK):
				return store.ErrNotFound
			}
			return nil
		}}
}

func TestClassify(t *testing.T) {
	is := is.New(t)
	d := testDialect(true)
	is.NoErr(d.Classify(nil, "x")) // no error
	err := d.Classify(errNoRows, "realm 1")
	is.True(errors.Is(err, store.ErrNotFound) && !errors.Is(err, errNoRows)) // no row: not found, the driver error dropped
	is.Equal(err.Error(), "test: realm 1: "+store.ErrNotFound.Error())       // named by the dialect and the operation
	err = d.Classify(errDup, "create realm")
	is.True(errors.Is(err, store.ErrConflict) && errors.Is(err, errDup)) // a unique violation: a conflict, the cause kept
	err = d.Classify(errFK, "create group")
	is.True(errors.Is(err, store.ErrNotFound) && errors.Is(err, errFK)) // a missing parent: not found
	other := errors.New("disk full")
	err = d.Classify(other, "op")
	is.True(errors.Is(err, other) && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict)) // anything else: as it is
}

func TestLists(t *testing.T) {
	is := is.New(t)
	ids := []store.UserID{3, 1}
	sqlite, pg := testDialect(true), testDialect(false)
	is.Equal(sqlstore.List(sqlite, ids), "[3,1]")                                        // JSON text
	is.Equal(sqlstore.List(sqlite, []store.UserID(nil)), "[]")                           // nil: the empty array
	is.Equal(sqlstore.List(pg, ids), ids)                                                // the slice itself
	is.Equal(sqlite.Strings([]string{`a"b`, "c"}), `["a\"b","c"]`)                       // strings as JSON
	is.Equal(sqlite.Strings(nil), "[]")                                                  // nil: the empty array
	is.Equal(sqlite.In("id", "$1", "bigint"), "id IN (SELECT value FROM json_each($1))") // membership through json_each
	is.Equal(pg.In("id", "$1", "bigint"), "id = ANY($1::bigint[])")                      // membership in an array
	is.Equal(sqlite.Each("$2", "text"), "json_each($2)")                                 // a table of the elements
	is.Equal(pg.Each("$2", "text"), "unnest($2::text[]) AS value")                       // with the same column name
	is.Equal(sqlite.Cast("$4", "boolean"), "$4")                                         // no casts
	is.Equal(pg.Cast("$4", "boolean"), "$4::boolean")                                    // casts
}

func TestScanners(t *testing.T) {
	is := is.New(t)
	var tm time.Time
	is.NoErr(sqlstore.Time(&tm).Scan(int64(1700000000)))
	is.Equal(tm, time.Unix(1700000000, 0).UTC()) // unix seconds, in UTC
	is.NoErr(sqlstore.Time(&tm).Scan(time.Unix(5, 0).In(time.FixedZone("x", 3600))))
	is.Equal(tm.Location(), time.UTC) // a timestamp, in UTC
	is.NoErr(sqlstore.Time(&tm).Scan(nil))
	is.True(tm.IsZero()) // NULL is the zero time
	var n store.Role
	is.NoErr(sqlstore.Num(&n).Scan(int64(2)))
	is.Equal(n, store.Role(2))                 // an integer
	is.True(sqlstore.Num(&n).Scan("2") != nil) // anything else is refused
	var s string
	is.NoErr(sqlstore.Str(&s).Scan(nil))
	is.Equal(s, "")                                // NULL is ""
	is.Equal(sqlstore.IDArg(store.UserID(0)), nil) // no id is NULL
	is.Equal(sqlstore.StrArg(""), nil)             // "" is NULL
}

// fakeMigrationTx records what Migrate does; commits keep its version.
type fakeMigrationTx struct {
	db      *fakeDB
	version int
	ran     []string
}

type fakeDB struct {
	version int
	ran     []string
	begun   int
}

func (f *fakeMigrationTx) Exec(_ context.Context, text string) error {
	if text == "fail" {
		return errors.New("syntax error")
	}
	f.ran = append(f.ran, text)
	return nil
}
func (f *fakeMigrationTx) Version(context.Context) (int, error)      { return f.version, nil }
func (f *fakeMigrationTx) SetVersion(_ context.Context, v int) error { f.version = v; return nil }
func (f *fakeMigrationTx) Commit(context.Context) error {
	f.db.version, f.db.ran = f.version, append(f.db.ran, f.ran...)
	return nil
}
func (f *fakeMigrationTx) Rollback(context.Context) {}

func (db *fakeDB) begin(context.Context) (sqlstore.MigrationTx, error) {
	db.begun++
	return &fakeMigrationTx{db: db, version: db.version}, nil
}

func TestMigrate(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	newer := errors.New("newer")
	files := fstest.MapFS{"m/0001_a.sql": {Data: []byte("one")}, "m/0002_b.sql": {Data: []byte("two")},
		"m/0005_c.sql": {Data: []byte("five")}}
	ms, err := sqlstore.Migrations(files, "m/*.sql")
	is.NoErr(err)
	is.Equal(sqlstore.Latest(ms), 5) // the last version
	is.Equal(sqlstore.Latest(nil), 0)

	db := &fakeDB{version: 1}
	is.NoErr(sqlstore.Migrate(ctx, files, ms, newer, db.begin))
	is.Equal(db.ran, []string{"two", "five"}) // the pending migrations, in order, gaps allowed
	is.Equal(db.version, 5)                   // the last one recorded
	is.Equal(db.begun, 3)                     // one transaction each, and one that finds nothing to do

	db = &fakeDB{version: 5}
	is.NoErr(sqlstore.Migrate(ctx, files, ms, newer, db.begin))
	is.Equal(len(db.ran), 0) // an up-to-date database runs nothing

	db = &fakeDB{version: 6}
	err = sqlstore.Migrate(ctx, files, ms, newer, db.begin)
	is.True(errors.Is(err, newer)) // a newer database is refused

	files["m/0003_bad.sql"] = &fstest.MapFile{Data: []byte("fail")}
	ms, err = sqlstore.Migrations(files, "m/*.sql")
	is.NoErr(err)
	db = &fakeDB{version: 2}
	err = sqlstore.Migrate(ctx, files, ms, newer, db.begin)
	is.True(err != nil && strings.Contains(err.Error(), "migration m/0003_bad.sql")) // a failing migration is named
	is.Equal(db.version, 2)                                                          // and not recorded
}

func TestCheckSettingColumns(t *testing.T) {
	is := is.New(t)
	is.NoErr(sqlstore.CheckSettingColumns(append([]string{"id"}, store.SettingNames()...))) // every setting has its column
	err := sqlstore.CheckSettingColumns(store.SettingNames()[1:])
	is.True(err != nil && strings.Contains(err.Error(), store.SettingNames()[0])) // a missing one is named
}
