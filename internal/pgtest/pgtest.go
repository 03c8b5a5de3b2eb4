// Package pgtest opens PostgreSQL stores for tests: each in a fresh schema of
// the database [testenv.PostgresVar] names, dropped when the test ends. Tests
// skip when the variable is unset and fail when the database cannot be
// reached.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/chatcore/chatcore/internal/testenv"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Schema returns the connection string and a new, unused schema name, and
// drops the schema (with everything in it) when the test ends.
func Schema(tb testing.TB) (url, schema string) {
	tb.Helper()
	url = testenv.PostgresURL(tb)
	var b [8]byte
	_, _ = rand.Read(b[:])
	schema = "chatcore_test_" + hex.EncodeToString(b[:])
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			tb.Errorf("pgtest: dropping schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
			tb.Errorf("pgtest: dropping schema %s: %v", schema, err)
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

// Open opens a PostgreSQL store in a fresh schema (see [Schema]) with a small
// pool, and closes it when the test ends.
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
