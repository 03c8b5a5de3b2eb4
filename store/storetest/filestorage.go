package storetest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/chatcore/chatcore/store"
)

// RunFileStorage runs the conformance cases of [store.FileStorage] against
// storages newStorage returns, one fresh (empty) storage per case.
func RunFileStorage(t *testing.T, newStorage func(t *testing.T) store.FileStorage) {
	for _, tc := range fileStorageTests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, newStorage(t)) })
	}
}

// failingReader yields n bytes, then an error.
type failingReader struct{ n int }

var errReaderBroke = errors.New("reader broke")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errReaderBroke
	}
	k := min(len(p), f.n)
	for i := range k {
		p[i] = 'x'
	}
	f.n -= k
	return k, nil
}

// readAll reads the file under key whole.
func readAll(t *testing.T, fs store.FileStorage, key string) []byte {
	t.Helper()
	f, err := fs.Open(context.Background(), key)
	if err != nil {
		t.Fatalf("open %q: %v", key, err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("read %q: %v", key, err)
	}
	if int64(len(b)) != f.Size() {
		t.Fatalf("read %q: %d bytes, Size says %d", key, len(b), f.Size())
	}
	return b
}

func randomBytes(n int) []byte {
	r := rand.New(rand.NewPCG(uint64(n), 7))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

var fileStorageTests = []struct {
	name string
	fn   func(t *testing.T, fs store.FileStorage)
}{
	{"PutOpenDelete", func(t *testing.T, fs store.FileStorage) {
		ctx := context.Background()
		key := "2/ab/Xy12_-z/photo.png"
		n, err := fs.Put(ctx, key, bytes.NewReader([]byte("hello")))
		if err != nil || n != 5 {
			t.Fatalf("put: %d, %v", n, err)
		}
		f, err := fs.Open(ctx, key)
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		if f.Size() != 5 || f.ModTime().IsZero() {
			t.Fatalf("size %d, mod time %v", f.Size(), f.ModTime())
		}
		_ = f.Close()
		if got := readAll(t, fs, key); string(got) != "hello" {
			t.Fatalf("read %q", got)
		}
		if err := fs.Delete(ctx, key); err != nil {
			t.Fatalf("delete: %v", err)
		}
		if _, err := fs.Open(ctx, key); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("open after delete: %v, want ErrNotFound", err)
		}
		if err := fs.Delete(ctx, key); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("second delete: %v, want ErrNotFound", err)
		}
	}},
	{"Missing", func(t *testing.T, fs store.FileStorage) {
		if _, err := fs.Open(context.Background(), "1/no/such"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("open missing: %v, want ErrNotFound", err)
		}
		// A prefix of a stored key is no file.
		if _, err := fs.Put(context.Background(), "1/dir/file", bytes.NewReader([]byte("x"))); err != nil {
			t.Fatal(err)
		}
		if _, err := fs.Open(context.Background(), "1/dir"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("open a key's prefix: %v, want ErrNotFound", err)
		}
	}},
	{"ReplaceAndEmpty", func(t *testing.T, fs store.FileStorage) {
		ctx := context.Background()
		key := "1/k/file.txt"
		if _, err := fs.Put(ctx, key, bytes.NewReader([]byte("first version"))); err != nil {
			t.Fatal(err)
		}
		if _, err := fs.Put(ctx, key, bytes.NewReader([]byte("second"))); err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, fs, key); string(got) != "second" {
			t.Fatalf("after replace: %q", got)
		}
		n, err := fs.Put(ctx, "1/k/empty", bytes.NewReader(nil))
		if err != nil || n != 0 {
			t.Fatalf("empty put: %d, %v", n, err)
		}
		if got := readAll(t, fs, "1/k/empty"); len(got) != 0 {
			t.Fatalf("empty file reads %d bytes", len(got))
		}
	}},
	{"FailedPutLeavesNothing", func(t *testing.T, fs store.FileStorage) {
		ctx := context.Background()
		_, err := fs.Put(ctx, "1/f/new", &failingReader{n: 300 << 10})
		if !errors.Is(err, errReaderBroke) {
			t.Fatalf("put from a broken reader: %v, want its error", err)
		}
		if _, err := fs.Open(ctx, "1/f/new"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("open after failed put: %v, want ErrNotFound", err)
		}
		if _, err := fs.Put(ctx, "1/f/old", bytes.NewReader([]byte("kept"))); err != nil {
			t.Fatal(err)
		}
		if _, err := fs.Put(ctx, "1/f/old", &failingReader{n: 10}); err == nil {
			t.Fatal("put from a broken reader succeeded")
		}
		if got := readAll(t, fs, "1/f/old"); string(got) != "kept" {
			t.Fatalf("failed replace left %q", got)
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := fs.Put(cctx, "1/f/cancelled", bytes.NewReader([]byte("x"))); err == nil {
			t.Fatal("put with a cancelled context succeeded")
		}
		if _, err := fs.Open(ctx, "1/f/cancelled"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("open after cancelled put: %v", err)
		}
	}},
	{"LargeSeek", func(t *testing.T, fs store.FileStorage) {
		ctx := context.Background()
		data := randomBytes(3<<20 + 12345)
		n, err := fs.Put(ctx, "3/big/blob.bin", bytes.NewReader(data))
		if err != nil || n != int64(len(data)) {
			t.Fatalf("put: %d, %v", n, err)
		}
		if got := readAll(t, fs, "3/big/blob.bin"); !bytes.Equal(got, data) {
			t.Fatal("large file differs after the round trip")
		}
		f, err := fs.Open(ctx, "3/big/blob.bin")
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, off := range []int64{0, 1, 256<<10 - 3, 1 << 20, int64(len(data)) - 10} {
			pos, err := f.Seek(off, io.SeekStart)
			if err != nil || pos != off {
				t.Fatalf("seek %d: %d, %v", off, pos, err)
			}
			buf := make([]byte, 10)
			if _, err := io.ReadFull(f, buf); err != nil {
				t.Fatalf("read at %d: %v", off, err)
			}
			if !bytes.Equal(buf, data[off:off+10]) {
				t.Fatalf("bytes at %d differ", off)
			}
		}
		end, err := f.Seek(0, io.SeekEnd)
		if err != nil || end != int64(len(data)) {
			t.Fatalf("seek end: %d, %v", end, err)
		}
		if k, err := f.Read(make([]byte, 4)); k != 0 || err != io.EOF {
			t.Fatalf("read at end: %d, %v", k, err)
		}
		if pos, err := f.Seek(-5, io.SeekCurrent); err != nil || pos != end-5 {
			t.Fatalf("seek back: %d, %v", pos, err)
		}
		if _, err := f.Seek(-1, io.SeekStart); err == nil {
			t.Fatal("seek before the start succeeded")
		}
	}},
	{"InvalidKeys", func(t *testing.T, fs store.FileStorage) {
		ctx := context.Background()
		for _, key := range []string{"", "../x", "a/../../x", "/abs", "a//b", "a/./b", `a\b`, "a/b/", "a\x00b", "..", string(make([]byte, store.MaxFileKeyLen+1))} {
			if _, err := fs.Put(ctx, key, bytes.NewReader([]byte("x"))); !errors.Is(err, store.ErrInvalidFileKey) {
				t.Errorf("put %q: %v, want ErrInvalidFileKey", key, err)
			}
			if _, err := fs.Open(ctx, key); !errors.Is(err, store.ErrInvalidFileKey) {
				t.Errorf("open %q: %v, want ErrInvalidFileKey", key, err)
			}
			if err := fs.Delete(ctx, key); !errors.Is(err, store.ErrInvalidFileKey) {
				t.Errorf("delete %q: %v, want ErrInvalidFileKey", key, err)
			}
		}
	}},
}
