package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/dbarg"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/jackc/pgx/v5"
)

// target is the database of one size: a SQLite file in the -db directory, or
// a schema of its own in the -db PostgreSQL database.
type target struct {
	db       string // -db
	postgres bool
	file     string // SQLite: the database file
	schema   string // PostgreSQL: the schema
}

// newTarget names the database of the organisation of the size and seed.
func newTarget(db string, s size, seed int64) target {
	name := fmt.Sprintf("scale_%d_%d_%d", s.messages, s.users, seed)
	if dbarg.IsPostgres(db) {
		return target{db: db, postgres: true, schema: name}
	}
	return target{db: db, file: filepath.Join(db, name+".db")}
}

func (t target) String() string {
	if t.postgres {
		return "PostgreSQL schema " + t.schema
	}
	return "SQLite file " + t.file
}

// exists reports whether the target's database was generated.
func (t target) exists(ctx context.Context) (bool, error) {
	if !t.postgres {
		_, err := os.Stat(t.file)
		if errors.Is(err, os.ErrNotExist) {
			return false, nil
		}
		return err == nil, err
	}
	conn, err := pgx.Connect(ctx, t.db)
	if err != nil {
		return false, fmt.Errorf("connecting to -db: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var n int
	err = conn.QueryRow(ctx, "SELECT count(*) FROM pg_namespace WHERE nspname = $1", t.schema).Scan(&n)
	return n > 0, err
}

// reset removes the target's database, if any, and creates an empty one.
func (t target) reset(ctx context.Context) error {
	if !t.postgres {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			if err := os.Remove(t.file + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
		return os.MkdirAll(filepath.Dir(t.file), 0o755)
	}
	conn, err := pgx.Connect(ctx, t.db)
	if err != nil {
		return fmt.Errorf("connecting to -db: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	id := pgx.Identifier{t.schema}.Sanitize()
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+id+" CASCADE"); err != nil {
		return err
	}
	_, err = conn.Exec(ctx, "CREATE SCHEMA "+id)
	return err
}

// closingStore is a store the command opened.
type closingStore interface {
	chatcore.Store
	Close() error
}

// open opens the target's store; serving, as the example server does by
// default (on PostgreSQL a pool of 16 and 2 write groups), else for the
// generator's large transactions (no write groups).
func (t target) open(ctx context.Context, serving bool) (closingStore, error) {
	if t.postgres {
		groups := 0
		if serving {
			groups = 2
		}
		st, err := postgres.Open(ctx, t.db, postgres.WithSchema(t.schema), postgres.WithMaxConns(16), postgres.WithWriteGroups(groups))
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", t, err)
		}
		return st, nil
	}
	st, err := sqlite.Open(ctx, t.file)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", t, err)
	}
	return st, nil
}

// rawDB is the connection the raw siblings run on: outside the store, on the
// same database.
type rawDB struct {
	sqlite *sql.DB
	pg     *pgx.Conn
}

// openRaw opens the raw connection to the target's database.
func (t target) openRaw(ctx context.Context) (*rawDB, error) {
	if t.postgres {
		cfg, err := pgx.ParseConfig(t.db)
		if err != nil {
			return nil, err
		}
		cfg.RuntimeParams["search_path"] = pgx.Identifier{t.schema}.Sanitize()
		c, err := pgx.ConnectConfig(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return &rawDB{pg: c}, nil
	}
	db, err := sql.Open("sqlite", "file:"+t.file+"?_pragma=query_only(1)&_pragma=busy_timeout(5000)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	return &rawDB{sqlite: db}, nil
}

func (r *rawDB) close() {
	if r.pg != nil {
		r.pg.Close(context.Background())
	}
	if r.sqlite != nil {
		r.sqlite.Close()
	}
}

// ids runs a query whose rows are one id each.
func (r *rawDB) ids(ctx context.Context, q string, args ...any) ([]int64, error) {
	if r.pg != nil {
		rows, err := r.pg.Query(ctx, q, args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		return collectIDs(rows)
	}
	rows, err := r.sqlite.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collectIDs(rows)
}

// rowScanner is what collectIDs and collectPairs read: pgx's or
// database/sql's rows.
type rowScanner interface {
	Next() bool
	Scan(...any) error
	Err() error
}

// collectIDs reads the single integer column of every row of rows.
func collectIDs(rows rowScanner) ([]int64, error) {
	return collect(rows, func(id *int64) []any { return []any{id} })
}

// collectPairs reads the two integer columns of every row of rows.
func collectPairs(rows rowScanner) ([][2]int64, error) {
	return collect(rows, func(p *[2]int64) []any { return []any{&p[0], &p[1]} })
}

// collect scans every row of rows into a T through the destinations dest
// gives.
func collect[T any](rows rowScanner, dest func(*T) []any) ([]T, error) {
	var out []T
	for rows.Next() {
		var v T
		if err := rows.Scan(dest(&v)...); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// dropSchema drops a schema of the PostgreSQL database db.
func dropSchema(db, schema string) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	return err
}

// pairs runs a query whose rows are two integers each.
func (r *rawDB) pairs(ctx context.Context, q rawQuery) ([][2]int64, error) {
	if r.pg != nil {
		rows, err := r.pg.Query(ctx, q.forPostgres(), q.args...)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		return collectPairs(rows)
	}
	rows, err := r.sqlite.QueryContext(ctx, q.sql, q.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return collectPairs(rows)
}

// vacuum refreshes the planner's statistics and the visibility map of a
// PostgreSQL target after generation, as autovacuum would some minutes
// after a load: the runner measures the plans a live database gets, not
// those of tables the planner has never looked at. SQLite's store keeps no
// statistics; nothing to do.
func (t target) vacuum(ctx context.Context) error {
	if !t.postgres {
		return nil
	}
	r, err := t.openRaw(ctx)
	if err != nil {
		return err
	}
	defer r.close()
	// The tables of the schema (search_path) that reads of messages touch,
	// vacuumed too (the visibility map lets reads use index-only scans), as
	// autovacuum would soon after a load.
	_, err = r.pg.Exec(ctx, "VACUUM (ANALYZE) messages, user_message_flags, read_marks, subscriptions, streams, recipient_members, reactions, users")
	return err
}
