package postgres_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

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

// slowBody is an upload body whose every Read first checks that the store
// holds no connection (no transaction is open while the client's body is
// read) and that another Put on the one-connection pool is not starved.
type slowBody struct {
	t      *testing.T
	st     *postgres.Store
	data   []byte
	reads  int
	probed bool
}

func (b *slowBody) Read(p []byte) (int, error) {
	b.reads++
	if n := postgres.AcquiredConns(b.st); n != 0 {
		b.t.Errorf("read %d of the body: %d connections held", b.reads, n)
	}
	if !b.probed && b.reads == 3 {
		b.probed = true
		ctx, cancel := context.WithTimeout(b.t.Context(), 5*time.Second)
		defer cancel()
		if _, err := b.st.Files().Put(ctx, "1/x/other.bin", bytes.NewReader([]byte("meanwhile"))); err != nil {
			b.t.Errorf("another Put while a body is read: %v", err)
		}
	}
	if len(b.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 100<<10)], b.data)
	b.data = b.data[n:]
	return n, nil
}

// TestFilesPutHoldsNoConnectionWhileReading checks that Put reads the whole
// body before it takes a connection: with a pool of one, another Put made
// while the body is being read completes, and the pool holds nothing at any
// Read. The file is then stored whole.
func TestFilesPutHoldsNoConnectionWhileReading(t *testing.T) {
	url, schema := pgtest.Schema(t)
	st, err := postgres.Open(t.Context(), url, postgres.WithSchema(schema), postgres.WithMaxConns(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	data := bytes.Repeat([]byte("0123456789"), 100_000)
	body := &slowBody{t: t, st: st, data: data}
	n, err := st.Files().Put(t.Context(), "1/x/slow.bin", body)
	if err != nil || n != int64(len(data)) {
		t.Fatalf("put: %d, %v", n, err)
	}
	if !body.probed {
		t.Fatalf("body read %d times, never probed", body.reads)
	}
	f, err := st.Files().Open(t.Context(), "1/x/slow.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
}
