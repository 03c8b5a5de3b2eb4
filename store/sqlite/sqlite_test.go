package sqlite_test

import (
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/storetest"
)

// TestConformance runs the store conformance suite on a fresh database file
// per leaf test (a copy of one migrated by sqlite.Open).
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		return sqlitetest.Open(t) // a copy of a file migrated once per process
	})
}
