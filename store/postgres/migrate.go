package postgres

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"

	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations are the store's migrations, whose versions start at 1 without
// gaps.
var migrations = sqlstore.Schema{Files: migrationFiles, Pattern: "migrations/*.sql", Contiguous: true, Newer: ErrNewerSchema,
	UserColumns: "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'users'"}

// SchemaVersion returns the schema version this package migrates databases to.
func SchemaVersion() int { return migrations.Version() }

// migrateLockKey is the first key of the advisory lock migrations take; the
// second is the hash of the schema, so stores in different schemas of one
// database migrate independently.
const migrateLockKey = 0x63686174 // "chat"

// migrate creates the schema when one was named, then applies every
// migration above the recorded version, each in its own transaction that
// holds the migration lock and records the new version.
func (s *Store) migrate(ctx context.Context) error {
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
	return migrations.Apply(ctx, s.beginMigration, func(ctx context.Context, query string) (sqlstore.Rows, error) {
		return s.pool.Query(ctx, query)
	})
}

// beginMigration begins a migration's transaction, which holds the
// migration lock (so concurrent Opens migrate one at a time) and keeps the
// schema version in the table chatcore_schema.
func (s *Store) beginMigration(ctx context.Context) (sqlstore.MigrationTx, error) {
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext(current_schema()))", migrateLockKey); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS chatcore_schema (version integer NOT NULL)"); err != nil {
		_ = tx.Rollback(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("schema version table: %w", err)
	}
	return migrationTx{tx}, nil
}

// migrationTx is a migration's transaction (see beginMigration).
type migrationTx struct{ tx pgx.Tx }

func (m migrationTx) Exec(ctx context.Context, text string) error {
	_, err := m.tx.Exec(ctx, text)
	return err
}

func (m migrationTx) Version(ctx context.Context) (int, error) {
	var v int
	if err := m.tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM chatcore_schema").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

func (m migrationTx) SetVersion(ctx context.Context, v int) error {
	if _, err := m.tx.Exec(ctx, "DELETE FROM chatcore_schema"); err != nil {
		return err
	}
	_, err := m.tx.Exec(ctx, "INSERT INTO chatcore_schema (version) VALUES ($1)", v)
	return err
}

func (m migrationTx) Commit(ctx context.Context) error { return m.tx.Commit(ctx) }

func (m migrationTx) Rollback(ctx context.Context) { _ = m.tx.Rollback(ctx) }

// MigrationsDigest returns a digest of the embedded migrations' text. Tools
// that keep migrated schemas for reuse (such as test schema pools) compare
// it to know whether a kept schema was built from the same migrations.
func MigrationsDigest() string {
	h := sha256.New()
	ms, _ := migrations.Migrations()
	for _, m := range ms {
		text, _ := migrationFiles.ReadFile(m.Name)
		h.Write([]byte(m.Name))
		h.Write(text)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
