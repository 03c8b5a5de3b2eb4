package sqlstore_test

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

func TestMigrations(t *testing.T) {
	is := is.New(t)
	files := fstest.MapFS{
		"m/0010_later.sql": {}, "m/0002_second.sql": {}, "m/0001_first.sql": {}, "m/README": {},
	}
	ms, err := sqlstore.Migrations(files, "m/*.sql")
	is.NoErr(err)                                                                                                   // a valid set
	is.Equal(ms, []sqlstore.Migration{{1, "m/0001_first.sql"}, {2, "m/0002_second.sql"}, {10, "m/0010_later.sql"}}) // ordered by version, gaps allowed

	files["m/0002_again.sql"] = &fstest.MapFile{}
	_, err = sqlstore.Migrations(files, "m/*.sql")
	is.True(err != nil && strings.Contains(err.Error(), "version 2 is also")) // a version twice
	delete(files, "m/0002_again.sql")

	files["m/first.sql"] = &fstest.MapFile{}
	_, err = sqlstore.Migrations(files, "m/*.sql")
	is.True(err != nil && strings.Contains(err.Error(), "positive version number")) // a name without a version
}

func TestID(t *testing.T) {
	is := is.New(t)
	var id store.UserID = 7
	is.NoErr(sqlstore.ID(&id).Scan(nil)) // NULL
	is.Equal(id, store.UserID(0))        // is 0
	is.NoErr(sqlstore.ID(&id).Scan(int64(42)))
	is.Equal(id, store.UserID(42))              // an id
	is.True(sqlstore.ID(&id).Scan("42") != nil) // anything else is refused
}

func TestSettingValues(t *testing.T) {
	is := is.New(t)
	columns := map[string]string{"enter_sends": `"enter_sends"`, "color_scheme": `"color_scheme"`}
	vs, err := sqlstore.SettingValues([]store.SettingValue{{Name: "enter_sends", Value: true}, {Name: "color_scheme", Value: 2}}, columns)
	is.NoErr(err)                // valid changes
	is.Equal(vs, []any{true, 2}) // converted to the settings' types, in order

	_, err = sqlstore.SettingValues([]store.SettingValue{{Name: "nope", Value: true}}, columns)
	is.True(err != nil && strings.Contains(err.Error(), `unknown setting "nope"`)) // not a column
	_, err = sqlstore.SettingValues([]store.SettingValue{{Name: "enter_sends", Value: true}, {Name: "enter_sends", Value: false}}, columns)
	is.True(err != nil && strings.Contains(err.Error(), "named twice")) // the same setting twice
	_, err = sqlstore.SettingValues([]store.SettingValue{{Name: "enter_sends", Value: "yes"}}, columns)
	is.True(err != nil) // a value of the wrong type
}

func TestDirectKey(t *testing.T) {
	is := is.New(t)
	ids, key := sqlstore.DirectKey([]store.UserID{12, 3, 12, 7})
	is.Equal(ids, []store.UserID{3, 7, 12}) // distinct, ascending
	is.Equal(key, "3,7,12")                 // the ids joined by commas
}
