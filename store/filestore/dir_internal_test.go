package filestore

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/iotest"
)

// writeSizes records the size of each write.
type writeSizes struct {
	bytes.Buffer
	sizes []int
}

func (w *writeSizes) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	return w.Buffer.Write(p)
}

// TestCopyGathered checks that a source read a few bytes at a time is
// written in writes of writeBuffer bytes, the last one shorter, and that
// a read error is returned, not taken for the end.
func TestCopyGathered(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 10_000) // 100,000 bytes
	var w writeSizes
	n, err := copyGathered(&w, iotest.HalfReader(iotest.OneByteReader(bytes.NewReader(data))))
	if err != nil || n != int64(len(data)) || !bytes.Equal(w.Bytes(), data) {
		t.Fatalf("copied %d bytes, %v", n, err)
	}
	for i, s := range w.sizes {
		if s != writeBuffer && i != len(w.sizes)-1 {
			t.Fatalf("write %d of %d bytes: %v", i, s, w.sizes)
		}
	}
	if len(w.sizes) != (len(data)+writeBuffer-1)/writeBuffer {
		t.Fatalf("%d writes: %v", len(w.sizes), w.sizes)
	}
	boom := errors.New("boom")
	_, err = copyGathered(io.Discard, io.MultiReader(bytes.NewReader(data[:100]), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) {
		t.Fatalf("read error: %v", err)
	}
}

// TestPutSyncsDirectories checks that Put syncs the file's directory once
// the file is renamed into it, and the directories it made up to the one
// that was there, so that a crash after Put returned loses nothing.
func TestPutSyncsDirectories(t *testing.T) {
	d, err := OpenDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var synced []string
	prev := syncDir
	syncDir = func(root *os.Root, name string) error {
		if _, err := root.Stat(filepath.Join(name, "f")); err == nil || len(synced) > 0 {
			synced = append(synced, name)
		} else {
			synced = append(synced, "before the rename: "+name)
		}
		return prev(root, name)
	}
	defer func() { syncDir = prev }()
	if _, err := d.Put(t.Context(), "1/ab/cd/f", bytes.NewReader([]byte("x"))); err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.FromSlash("1/ab/cd"), filepath.FromSlash("1/ab"), "1", "."}
	if !slices.Equal(synced, want) {
		t.Fatalf("synced %q, want %q", synced, want)
	}
	synced = nil
	if _, err := d.Put(t.Context(), "1/ab/cd/g", bytes.NewReader([]byte("y"))); err != nil {
		t.Fatal(err)
	}
	if want := []string{filepath.FromSlash("1/ab/cd")}; !slices.Equal(synced, want) { // the directory was there
		t.Fatalf("synced %q, want %q", synced, want)
	}
	syncDir = func(*os.Root, string) error { return errors.New("disk gone") }
	if _, err := d.Put(t.Context(), "1/h", bytes.NewReader([]byte("z"))); err == nil {
		t.Fatal("a failed directory sync was not reported")
	}
}
