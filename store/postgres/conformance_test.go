package postgres_test

import (
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/storetest"
)

// TestConformance runs the store conformance suite in a fresh schema per
// leaf test.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return pgtest.Open(t) })
}

// TestConformanceWriteGroups runs the suite on stores with group commit
// (postgres.WithWriteGroups), where every Update runs in a write group.
func TestConformanceWriteGroups(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return pgtest.Open(t, postgres.WithWriteGroups(2)) })
}
