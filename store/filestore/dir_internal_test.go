package filestore

import (
	"bytes"
	"errors"
	"io"
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
