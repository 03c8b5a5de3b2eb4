package postgres_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/storetest"
)

// TestFilesConformance runs the file storage conformance cases against the
// in-database storage, each in a fresh schema.
func TestFilesConformance(t *testing.T) {
	storetest.RunFileStorage(t, func(t *testing.T) store.FileStorage { return pgtest.Open(t).Files() })
}

// TestFilesSharedByInstances checks that a file one store writes is read by
// another store open on the same database and schema.
func TestFilesSharedByInstances(t *testing.T) {
	url, schema := pgtest.Schema(t)
	open := func() *postgres.Store {
		st, err := postgres.Open(t.Context(), url, postgres.WithSchema(schema), postgres.WithMaxConns(2))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := open(), open()
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	if _, err := a.Files().Put(t.Context(), "1/x/shared.bin", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	f, err := b.Files().Open(t.Context(), "1/x/shared.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("the other instance read %d bytes, %v", len(got), err)
	}
}
