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

// migrations are the store's migrations: versions may skip numbers (numbers
// are handed out to work done in parallel, which lands in any order); a
// database records the highest version applied in its user_version.
var migrations = sqlstore.Schema{Files: migrationFiles, Pattern: "migrations/*.sql", Newer: ErrNewerSchema,
	UserColumns: "SELECT name FROM pragma_table_info('users')"}

// SchemaVersion returns the schema version this package migrates databases to.
func SchemaVersion() int { return migrations.Version() }

// ErrNewerSchema reports a database written by a newer version of this package.
var ErrNewerSchema = errors.New("sqlite: database schema is newer than this program supports")

// migrate applies every migration above the database's user_version, each in
// its own IMMEDIATE transaction together with the new user_version, and
// checks the setting columns (see sqlstore.Schema.Apply).
func migrate(ctx context.Context, db *sql.DB) error {
	return migrations.Apply(ctx, func(ctx context.Context) (sqlstore.MigrationTx, error) {
		tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE through _txlock
		return migrationTx{tx}, err
	}, func(ctx context.Context, query string) (sqlstore.Rows, error) {
		rows, err := db.QueryContext(ctx, query)
		if err != nil {
			return nil, err
		}
		return sqlRows{rows}, nil
	})
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
