package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// Migration is one embedded schema file.
type Migration struct {
	Version int
	// Name is the file's path in its file system.
	Name string
}

// Migrations returns the files of fsys that match pattern, ordered by
// version. File names are NNNN_description.sql, NNNN being the version:
// positive and unique.
func Migrations(fsys fs.FS, pattern string) ([]Migration, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, name := range names {
		base := path.Base(name)
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive version number", base)
		}
		ms = append(ms, Migration{Version: v, Name: name})
	}
	slices.SortFunc(ms, func(a, b Migration) int { return a.Version - b.Version })
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("migration %s: version %d is also %s", ms[i].Name, ms[i].Version, ms[i-1].Name)
		}
	}
	return ms, nil
}

// Latest returns the version of the last of ms (ordered, see Migrations),
// 0 for none: the schema version a store migrates databases to.
func Latest(ms []Migration) int {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// MigrationTx is one transaction of a migration run, as a store begins it
// for Migrate: the store decides how it is locked against other runs and
// where the schema version is recorded.
type MigrationTx interface {
	// Exec runs the text of a migration.
	Exec(ctx context.Context, text string) error
	// Version returns the schema version the database records, 0 for none.
	Version(ctx context.Context) (int, error)
	// SetVersion records the schema version v.
	SetVersion(ctx context.Context, v int) error
	Commit(ctx context.Context) error
	// Rollback ends the transaction unless it was committed.
	Rollback(ctx context.Context)
}

// Migrate applies the migrations ms of files (ordered, see Migrations) above
// the version the database records, each in its own transaction from begin
// that also records the migration's version. A database whose version is
// above every one of ms fails with an error wrapping newer.
func Migrate(ctx context.Context, files fs.FS, ms []Migration, newer error, begin func(context.Context) (MigrationTx, error)) error {
	for {
		done, err := migrateOne(ctx, files, ms, newer, begin)
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the next pending migration and reports done when there
// was none.
func migrateOne(ctx context.Context, files fs.FS, ms []Migration, newer error, begin func(context.Context) (MigrationTx, error)) (done bool, err error) {
	tx, err := begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	current, err := tx.Version(ctx)
	if err != nil {
		return false, err
	}
	if latest := Latest(ms); current > latest {
		return false, fmt.Errorf("%w: version %d, known %d", newer, current, latest)
	}
	i := slices.IndexFunc(ms, func(m Migration) bool { return m.Version > current })
	if i < 0 {
		return true, tx.Commit(ctx)
	}
	m := ms[i]
	text, err := fs.ReadFile(files, m.Name)
	if err != nil {
		return false, err
	}
	if err := tx.Exec(ctx, string(text)); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if err := tx.SetVersion(ctx, m.Version); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	return false, nil
}

// CheckSettingColumns fails unless have, the columns of the users table,
// holds a column for every personal setting, so that a setting added to
// store.Settings without a migration is caught when a store opens rather
// than at the first write.
func CheckSettingColumns(have []string) error {
	for _, name := range store.SettingNames() {
		if !slices.Contains(have, name) {
			return fmt.Errorf("users table has no column for setting %q (missing migration)", name)
		}
	}
	return nil
}
