package postgres

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations returns the embedded migrations ordered by version (see
// sqlstore.Migrations), starting at 1 without gaps.
func migrations() ([]sqlstore.Migration, error) {
	ms, err := sqlstore.Migrations(migrationFiles, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: version %d, want %d", m.Name, m.Version, i+1)
		}
	}
	return ms, nil
}

// SchemaVersion returns the schema version this package migrates databases to.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil || len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// migrateLockKey is the first key of the advisory lock migrations take; the
// second is the hash of the schema, so stores in different schemas of one
// database migrate independently.
const migrateLockKey = 0x63686174 // "chat"

// migrate creates the schema when one was named, then applies every
// migration above the recorded version, each in its own transaction that
// holds the migration lock and records the new version.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	if s.schema != "" {
		if _, err := s.pool.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{s.schema}.Sanitize()); err != nil {
			// Another process may have created it at the same moment (IF NOT
			// EXISTS does not cover a concurrent CREATE).
			var exists bool
			if err2 := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)", s.schema).Scan(&exists); err2 != nil || !exists {
				return fmt.Errorf("create schema: %w", err)
			}
		}
	}
	for {
		done, err := s.migrateOne(ctx, ms)
		if err != nil {
			return err
		}
		if done {
			break
		}
	}
	return s.checkSettingColumns(ctx)
}

// migrateOne applies the next pending migration and reports done when there
// was none.
func (s *Store) migrateOne(ctx context.Context, ms []sqlstore.Migration) (done bool, err error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))", migrateLockKey); err != nil {
		return false, fmt.Errorf("migration lock: %w", err)
	}
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS chatcore_schema (version integer NOT NULL)"); err != nil {
		return false, fmt.Errorf("schema version table: %w", err)
	}
	var current int
	if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM chatcore_schema").Scan(&current); err != nil {
		return false, fmt.Errorf("read schema version: %w", err)
	}
	if current > len(ms) {
		return false, fmt.Errorf("%w: version %d, known %d", ErrNewerSchema, current, len(ms))
	}
	if current == len(ms) {
		return true, tx.Commit(ctx)
	}
	m := ms[current]
	text, err := migrationFiles.ReadFile(m.Name)
	if err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, string(text)); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if _, err := tx.Exec(ctx, "DELETE FROM chatcore_schema"); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if _, err := tx.Exec(ctx, "INSERT INTO chatcore_schema (version) VALUES ($1)", m.Version); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("migration %s: %w", m.Name, err)
	}
	return false, nil
}

// checkSettingColumns fails unless the users table has a column for every
// personal setting, so a setting added to store.Settings without a
// migration is caught at Open rather than at the first write.
func (s *Store) checkSettingColumns(ctx context.Context) error {
	rows, err := s.pool.Query(ctx, `SELECT column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'users'`)
	if err != nil {
		return err
	}
	have, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, name := range store.SettingNames() {
		if !slices.Contains(have, name) {
			return fmt.Errorf("users table has no column for setting %q (missing sqlstore.Migration)", name)
		}
	}
	return nil
}

// MigrationsDigest returns a digest of the embedded migrations' text. Tools
// that keep migrated schemas for reuse (such as test schema pools) compare
// it to know whether a kept schema was built from the same migrations.
func MigrationsDigest() string {
	h := sha256.New()
	ms, _ := migrations()
	for _, m := range ms {
		text, _ := migrationFiles.ReadFile(m.Name)
		h.Write([]byte(m.Name))
		h.Write(text)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
