// Package sqlitetest opens SQLite stores for tests, each on a database file of
// its own in the test's temporary directory.
//
// Applying chatcore's migrations is most of what opening a new SQLite store
// costs (seconds under the race detector), so the migrations run once per
// test process, into a template file whose bytes are kept; every store is
// opened on a copy of them. Open still runs on every copy and checks the
// schema version, the pragmas and the setting columns, so what a test gets is
// exactly what sqlite.Open gives on a freshly migrated file.
package sqlitetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/chatcore/chatcore/store/sqlite"
)

// template holds the bytes of a freshly migrated, closed database file (its
// WAL checkpointed into it on close).
var template = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "chatcore-sqlitetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "chat.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return nil, err
	}
	if err := st.Close(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("sqlitetest: %s-wal left with %d bytes after close", path, fi.Size())
	}
	return os.ReadFile(path)
})

// Path writes a freshly migrated database file into the test's temporary
// directory and returns its path; the caller opens it (sqlite.Open finds no
// pending migration).
func Path(tb testing.TB) string {
	tb.Helper()
	data, err := template()
	if err != nil {
		tb.Fatalf("building the migrated SQLite template: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "chat.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatalf("copying the SQLite template: %v", err)
	}
	return path
}

// Open opens a store on a new, freshly migrated database file in the test's
// temporary directory (see [Path]) with opts; it is closed when the test
// ends.
func Open(tb testing.TB, opts ...sqlite.Option) *sqlite.Store {
	tb.Helper()
	st, err := sqlite.Open(context.Background(), Path(tb), opts...)
	if err != nil {
		tb.Fatalf("opening SQLite: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}
