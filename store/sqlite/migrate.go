package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations returns the embedded migrations ordered by version (see
// sqlstore.Migrations). Versions may skip numbers (numbers are handed out to
// work done in parallel, which lands in any order); a database records the
// highest version applied.
func migrations() ([]sqlstore.Migration, error) {
	return sqlstore.Migrations(migrationFiles, "migrations/*.sql")
}

// SchemaVersion returns the schema version this package migrates databases to.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		return 0
	}
	return sqlstore.Latest(ms)
}

// ErrNewerSchema reports a database written by a newer version of this package.
var ErrNewerSchema = errors.New("sqlite: database schema is newer than this program supports")

// migrate applies every migration above the database's user_version, each in
// its own IMMEDIATE transaction together with the new user_version (see
// sqlstore.Migrate), and checks the setting columns.
func migrate(ctx context.Context, db *sql.DB) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	err = sqlstore.Migrate(ctx, migrationFiles, ms, ErrNewerSchema, func(ctx context.Context) (sqlstore.MigrationTx, error) {
		tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE through _txlock
		return migrationTx{tx}, err
	})
	if err != nil {
		return err
	}
	return checkSettingColumns(ctx, db)
}

// migrationTx is a migration's transaction; the schema version is the
// database's user_version.
type migrationTx struct{ tx *sql.Tx }

func (m migrationTx) Exec(ctx context.Context, text string) error {
	_, err := m.tx.ExecContext(ctx, text)
	return err
}

func (m migrationTx) Version(ctx context.Context) (int, error) {
	var v int
	if err := m.tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("read user_version: %w", err)
	}
	return v, nil
}

func (m migrationTx) SetVersion(ctx context.Context, v int) error {
	_, err := m.tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(v))
	return err
}

func (m migrationTx) Commit(context.Context) error { return m.tx.Commit() }

func (m migrationTx) Rollback(context.Context) { _ = m.tx.Rollback() }

// checkSettingColumns fails unless the users table has a column for every
// personal setting (see sqlstore.CheckSettingColumns).
func checkSettingColumns(ctx context.Context, db *sql.DB) error {
	rows, err := db.QueryContext(ctx, "SELECT name FROM pragma_table_info('users')")
	if err != nil {
		return err
	}
	defer rows.Close()
	var have []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		have = append(have, name)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return sqlstore.CheckSettingColumns(have)
}
