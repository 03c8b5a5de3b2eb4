package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/chatcore/chatcore/store/storetest"
	"github.com/matryer/is"
)

// TestConformance runs the store conformance suite on a fresh database file
// per leaf test.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) chatcore.Store {
		is := is.New(t)
		s, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "chat.db"))
		is.NoErr(err) // store opens
		t.Cleanup(func() { s.Close() })
		return s
	})
}
