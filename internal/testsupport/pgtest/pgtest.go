// Package pgtest opens PostgreSQL stores for tests, each in a schema of its
// own in the database [testenv.PostgresVar] names. Tests skip when the
// variable is unset and fail when the database cannot be reached.
//
// Creating chatcore's tables takes PostgreSQL a few hundred milliseconds, so
// migrated schemas are kept and reused: a test claims a free schema built
// from the same migrations (or creates one), and when it ends its data is
// deleted, its sequences restarted and the schema released. The registry
// table chatcore_test_schemas in the database's default schema records the
// schemas and their claims; a claim not released within ten minutes (a test
// process that was killed) expires, and its schema, which may still hold
// that test's rows, is dropped by the next claim that finds it.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore/internal/testsupport/testenv"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const registrySQL = `CREATE TABLE IF NOT EXISTS public.chatcore_test_schemas (
	name          text PRIMARY KEY,
	digest        text NOT NULL,
	claimed_until timestamptz NOT NULL
)`

// resetSQL empties every table of the current schema but the version table
// and restarts every sequence. session_replication_role = replica turns off
// the foreign key checks and triggers for the deletes.
const resetSQL = `DO $$
DECLARE r record;
BEGIN
	FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'chatcore_schema' LOOP
		EXECUTE format('DELETE FROM %I', r.tablename);
	END LOOP;
	FOR r IN SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema() LOOP
		PERFORM setval(format('%I', r.sequencename)::regclass, 1, false);
	END LOOP;
END $$`

// admins holds one small pool per database URL for the registry and the
// resets; they live as long as the test process.
var (
	adminsMu sync.Mutex
	admins   = map[string]*pgxpool.Pool{}
)

// admin returns the pool of url, creating it and the registry on first use.
func admin(ctx context.Context, url string) (*pgxpool.Pool, error) {
	adminsMu.Lock()
	defer adminsMu.Unlock()
	if p := admins[url]; p != nil {
		return p, nil
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 2
	cfg.MaxConnIdleTime = 5 * time.Second
	Fast(cfg)
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := p.Exec(ctx, registrySQL); err != nil {
		// Two processes creating the registry at once: one of them fails
		// on the catalog's unique key; the registry is there either way.
		if _, err2 := p.Exec(ctx, "SELECT 1 FROM public.chatcore_test_schemas LIMIT 1"); err2 != nil {
			p.Close()
			return nil, err
		}
	}
	admins[url] = p
	return p, nil
}

// claim returns a free schema built from the current migrations, claimed
// for this test, or a new name registered as claimed. Released schemas are
// taken first.
func claim(ctx context.Context, p *pgxpool.Pool) (string, error) {
	digest := postgres.MigrationsDigest()
	var name string
	var released bool
	err := p.QueryRow(ctx, `WITH free AS (
			SELECT name, claimed_until = '-infinity' AS released FROM public.chatcore_test_schemas
			WHERE digest = $1 AND claimed_until < now() ORDER BY claimed_until LIMIT 1 FOR UPDATE SKIP LOCKED)
		UPDATE public.chatcore_test_schemas s SET claimed_until = now() + interval '10 minutes' FROM free
		WHERE s.name = free.name RETURNING s.name, free.released`, digest).Scan(&name, &released)
	switch {
	case err == nil && released:
		return name, nil
	case err == nil:
		// The claim expired: the test process that held it ended without
		// emptying the schema, which may still hold its rows.
		if err := Drop(ctx, p, name); err != nil {
			return "", err
		}
	case !errors.Is(err, pgx.ErrNoRows):
		return "", err
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	name = "chatcore_test_" + hex.EncodeToString(b[:])
	_, err = p.Exec(ctx, `INSERT INTO public.chatcore_test_schemas (name, digest, claimed_until)
		VALUES ($1, $2, now() + interval '10 minutes')`, name, digest)
	return name, err
}

// release empties the schema and frees its claim; when emptying fails the
// schema is dropped instead.
func release(p *pgxpool.Pool, schema string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := pgx.BeginFunc(ctx, p, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL search_path TO "+pgx.Identifier{schema}.Sanitize()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, resetSQL); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE public.chatcore_test_schemas SET claimed_until = '-infinity' WHERE name = $1", schema)
		return err
	})
	if err == nil {
		return nil
	}
	return Drop(ctx, p, schema)
}

// Drop drops the schema with everything in it and forgets it.
func Drop(ctx context.Context, p *pgxpool.Pool, schema string) error {
	if _, err := p.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		return err
	}
	_, err := p.Exec(ctx, "DELETE FROM public.chatcore_test_schemas WHERE name = $1", schema)
	return err
}

// adminFor returns the connection string the tests use and the shared
// administrative pool on it, failing tb when the database cannot be reached.
func adminFor(tb testing.TB) (string, *pgxpool.Pool) {
	tb.Helper()
	url := testenv.PostgresURL(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := admin(ctx, url)
	if err != nil {
		tb.Fatalf("pgtest: PostgreSQL (%s): %v", testenv.PostgresVar, err)
	}
	return url, p
}

// Schema returns the connection string and a schema of the test's own: an
// empty schema built from the current migrations, or a new name (which
// [postgres.Open] creates). The schema is emptied and released when the
// test ends.
func Schema(tb testing.TB) (url, schema string) {
	tb.Helper()
	url, p := adminFor(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	schema, err := claim(ctx, p)
	if err != nil {
		tb.Fatalf("pgtest: PostgreSQL (%s): %v", testenv.PostgresVar, err)
	}
	tb.Cleanup(func() {
		if err := release(p, schema); err != nil {
			tb.Errorf("pgtest: releasing schema %s: %v", schema, err)
		}
	})
	return url, schema
}

// Fast is the pool setting of test stores: commits do not wait for the
// write-ahead log to reach the disk (a crash of the test database may lose
// the last commits, which tests never need).
func Fast(c *pgxpool.Config) {
	c.ConnConfig.RuntimeParams["synchronous_commit"] = "off"
}

// Open opens a PostgreSQL store in a schema of the test's own (see [Schema])
// with a small pool, and closes it when the test ends.
func Open(tb testing.TB, opts ...postgres.Option) *postgres.Store {
	tb.Helper()
	url, schema := Schema(tb)
	all := append([]postgres.Option{postgres.WithSchema(schema), postgres.WithMaxConns(4), postgres.WithPoolConfig(Fast)}, opts...)
	st, err := postgres.Open(context.Background(), url, all...)
	if err != nil {
		tb.Fatalf("pgtest: opening PostgreSQL (%s): %v", testenv.PostgresVar, err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// URL returns a connection string whose search path is a schema of the
// test's own (see [Schema]), created when new, for programs that take only a
// connection string (the example server).
func URL(tb testing.TB) string {
	tb.Helper()
	url, schema := Schema(tb)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := admin(ctx, url)
	if err == nil {
		_, err = p.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize())
	}
	if err != nil {
		tb.Fatalf("pgtest: creating schema %s: %v", schema, err)
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	if !strings.Contains(url, "://") { // a key=value DSN
		return url + " search_path=" + schema
	}
	return url + sep + "search_path=" + schema
}

// OpenUnpooled is [Open] in a schema of [UnpooledSchema]: for benchmarks,
// whose large tables are quicker dropped than emptied.
func OpenUnpooled(tb testing.TB, opts ...postgres.Option) *postgres.Store {
	tb.Helper()
	url, schema := UnpooledSchema(tb)
	all := append([]postgres.Option{postgres.WithSchema(schema), postgres.WithPoolConfig(Fast)}, opts...)
	st, err := postgres.Open(context.Background(), url, all...)
	if err != nil {
		tb.Fatalf("pgtest: opening PostgreSQL (%s): %v", testenv.PostgresVar, err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// UnpooledSchema returns the connection string and the name of a new schema
// (not created yet) that is dropped when the test ends instead of being kept
// for reuse: for tests that change the schema itself, and for big data sets.
func UnpooledSchema(tb testing.TB) (url, schema string) {
	tb.Helper()
	url, p := adminFor(tb)
	var b [8]byte
	_, _ = rand.Read(b[:])
	schema = "chatcore_scratch_" + hex.EncodeToString(b[:])
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := Drop(ctx, p, schema); err != nil {
			tb.Errorf("pgtest: dropping schema %s: %v", schema, err)
		}
	})
	return url, schema
}

// copySQL copies every row of every table of the schema named by the
// parameter (the template) into the current schema, which holds the same
// empty tables, and moves each sequence to where the template's is. Foreign
// keys and triggers are off (session_replication_role), as the rows are
// consistent already. Generated columns (messages.search_tsv) are left to
// compute themselves.
const copySQL = `DO $$
DECLARE
	r record;
	cols text;
	src text := %s;
BEGIN
	FOR r IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'chatcore_schema' LOOP
		SELECT string_agg(quote_ident(column_name), ', ' ORDER BY ordinal_position) INTO cols
			FROM information_schema.columns
			WHERE table_schema = current_schema() AND table_name = r.tablename AND is_generated = 'NEVER';
		EXECUTE format('INSERT INTO %%I (%%s) SELECT %%s FROM %%I.%%I', r.tablename, cols, cols, src, r.tablename);
	END LOOP;
	FOR r IN SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = src AND last_value IS NOT NULL LOOP
		PERFORM setval(format('%%I', r.sequencename)::regclass, r.last_value);
	END LOOP;
END $$`

// Template is a store whose data tests start from: [Template.Open] gives
// each test a store of its own holding a copy of it, much faster than
// loading the data again.
type Template struct {
	url, schema string
}

// NewTemplate opens a store in a schema of tb's own (see [Schema]), lets
// load fill it and closes it; the template lives until tb ends.
func NewTemplate(tb testing.TB, load func(st *postgres.Store)) *Template {
	tb.Helper()
	st := Open(tb)
	load(st)
	url, schema := urlOf(tb, st)
	return &Template{url: url, schema: schema}
}

// urlOf returns the URL and schema of a store opened by [Open].
func urlOf(tb testing.TB, st *postgres.Store) (string, string) {
	tb.Helper()
	return testenv.PostgresURL(tb), st.Schema()
}

// Open opens a store in a schema of tb's own holding a copy of the
// template's rows and sequences (see [Open]).
func (tp *Template) Open(tb testing.TB, opts ...postgres.Option) *postgres.Store {
	tb.Helper()
	st := Open(tb, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := pgx.BeginFunc(ctx, st.Pool(), func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, fmt.Sprintf(copySQL, quoteLiteral(tp.schema)))
		return err
	})
	if err != nil {
		tb.Fatalf("pgtest: copying template %s: %v", tp.schema, err)
	}
	return st
}

// quoteLiteral quotes s as an SQL string literal.
func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
