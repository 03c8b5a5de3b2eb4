// Package filestore holds implementations of [store.FileStorage]: a local
// directory ([Dir], the embedded default) and S3-compatible object storage
// ([S3]). The PostgreSQL store keeps files in its database itself
// (postgres.Store.Files).
package filestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/chatcore/chatcore/store"
)

// Dir stores files under a directory, one file per key (the key's segments
// become subdirectories). Writes go to a temporary file in the same
// directory, synced and renamed into place, so a reader sees the old file or
// the whole new one; keys are checked by [store.CheckFileKey] and opened
// through an [os.Root], so no key reaches outside the directory, symbolic
// links included.
type Dir struct {
	root *os.Root
}

// OpenDir returns a Dir over dir, creating the directory if needed. Close
// releases it.
func OpenDir(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("filestore: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("filestore: %w", err)
	}
	return &Dir{root: root}, nil
}

// Close releases the directory.
func (d *Dir) Close() error { return d.root.Close() }

// writeBuffer is the size of the writes Put makes: io.Copy's. Measured
// writing 25 MiB uploads into new files on ext4, writes of this size were
// as fast as io.Copy's and several times faster than writes of 128 KiB or
// more; writes of a few KiB (what a request body may yield a read) cost a
// system call each.
const writeBuffer = 32 << 10

// tmpPrefix starts the names of files being written; no key segment can
// start with it (segments come from keys checked by store.CheckFileKey,
// and Put refuses this prefix).
const tmpPrefix = ".tmp-upload-"

// Put implements [store.FileStorage]. Once it returns, the file is on the
// disk: the file, then its directory and those Put made, are synced.
func (d *Dir) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := checkKey(key); err != nil {
		return 0, err
	}
	dir := filepath.Dir(filepath.FromSlash(key))
	existing := dir // the deepest directory of the key there already
	for existing != "." {
		if _, err := d.root.Stat(existing); err == nil {
			break
		}
		existing = filepath.Dir(existing)
	}
	if dir != "." {
		if err := d.root.MkdirAll(dir, 0o750); err != nil {
			return 0, fmt.Errorf("filestore: put %q: %w", key, err)
		}
	}
	tmp, name, err := d.createTemp(dir)
	if err != nil {
		return 0, fmt.Errorf("filestore: put %q: %w", key, err)
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = d.root.Remove(name)
		}
	}()
	n, err := copyGathered(tmp, ctxReader{ctx, r})
	if err != nil {
		return n, fmt.Errorf("filestore: put %q: %w", key, err)
	}
	if err := tmp.Sync(); err != nil {
		return n, fmt.Errorf("filestore: put %q: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return n, fmt.Errorf("filestore: put %q: %w", key, err)
	}
	if err := d.root.Rename(name, filepath.FromSlash(key)); err != nil {
		_ = d.root.Remove(name)
		done = true
		return n, fmt.Errorf("filestore: put %q: %w", key, err)
	}
	done = true
	// The rename and the directories made are durable only once their
	// directories are synced: without, a crash after Put returned could
	// lose the file.
	for q := dir; ; q = filepath.Dir(q) {
		if err := syncDir(d.root, q); err != nil {
			return n, fmt.Errorf("filestore: put %q: sync %q: %w", key, q, err)
		}
		if q == existing || q == "." {
			break
		}
	}
	return n, nil
}

// syncDir flushes directory name of root to the disk (a variable so that
// tests see the directories synced). Windows syncs no directory (its
// FlushFileBuffers refuses one, and NTFS journals the rename).
var syncDir = func(root *os.Root, name string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	f, err := root.Open(name)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}

// writeBuffers are the buffers of copyGathered, reused across writes.
var writeBuffers = sync.Pool{New: func() any { return new([writeBuffer]byte) }}

// copyGathered copies r to f in writes of writeBuffer bytes (the last one
// shorter). Sources such as a request body yield what the connection
// has, often a few KiB a read; io.Copy would write each piece with a
// system call of its own (an *os.File writes each read of its source as
// it comes).
func copyGathered(f io.Writer, r io.Reader) (int64, error) {
	buf := writeBuffers.Get().(*[writeBuffer]byte)
	defer writeBuffers.Put(buf)
	var n int64
	for {
		m, rerr := 0, error(nil)
		for m < len(buf) && rerr == nil {
			var k int
			k, rerr = r.Read(buf[m:])
			m += k
		}
		if m > 0 {
			if _, err := f.Write(buf[:m]); err != nil {
				return n, err
			}
			n += int64(m)
		}
		if errors.Is(rerr, io.EOF) {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

// createTemp creates a new temporary file in dir (relative to the root).
func (d *Dir) createTemp(dir string) (*os.File, string, error) {
	for range 10 {
		name := filepath.Join(dir, tmpPrefix+randomName())
		f, err := d.root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o640)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, "", err
		}
	}
	return nil, "", errors.New("no free temporary name")
}

// Open implements [store.FileStorage].
func (d *Dir) Open(_ context.Context, key string) (store.StoredFile, error) {
	if err := checkKey(key); err != nil {
		return nil, err
	}
	f, err := d.root.Open(filepath.FromSlash(key))
	if err != nil {
		return nil, notFound(key, err)
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, fmt.Errorf("filestore: open %q: %w", key, store.ErrNotFound)
	}
	return &dirFile{File: f, size: st.Size(), mod: st.ModTime()}, nil
}

// Delete implements [store.FileStorage].
func (d *Dir) Delete(_ context.Context, key string) error {
	if err := checkKey(key); err != nil {
		return err
	}
	if err := d.root.Remove(filepath.FromSlash(key)); err != nil {
		return notFound(key, err)
	}
	return nil
}

// checkKey checks key and refuses segments that look like temporary files.
func checkKey(key string) error {
	if err := store.CheckFileKey(key); err != nil {
		return fmt.Errorf("filestore: %q: %w", key, err)
	}
	if hasSegmentPrefix(key, tmpPrefix) {
		return fmt.Errorf("filestore: %q: %w", key, store.ErrInvalidFileKey)
	}
	return nil
}

// notFound wraps err, as ErrNotFound when the file does not exist.
func notFound(key string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("filestore: %q: %w", key, store.ErrNotFound)
	}
	return fmt.Errorf("filestore: %q: %w", key, err)
}

// dirFile is an open file of a Dir.
type dirFile struct {
	*os.File
	size int64
	mod  time.Time
}

func (f *dirFile) Size() int64 { return f.size }

// OSFile returns the open file itself, so that a server can hand it to
// the kernel (sendfile) when it serves it.
func (f *dirFile) OSFile() *os.File   { return f.File }
func (f *dirFile) ModTime() time.Time { return f.mod }

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}
