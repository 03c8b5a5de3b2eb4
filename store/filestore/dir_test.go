package filestore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/store/storetest"
)

func TestDirConformance(t *testing.T) {
	storetest.RunFileStorage(t, func(t *testing.T) store.FileStorage {
		d, err := filestore.OpenDir(filepath.Join(t.TempDir(), "uploads"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = d.Close() })
		return d
	})
}

// TestDirNoEscape checks that a symbolic link inside the directory does not
// lead a key outside it, and that failed writes leave no temporary files.
func TestDirNoEscape(t *testing.T) {
	base := t.TempDir()
	outside := filepath.Join(base, "outside")
	if err := os.MkdirAll(outside, 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(base, "uploads")
	d, err := filestore.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Open(t.Context(), "link/secret"); err == nil {
		t.Fatal("a symbolic link led outside the directory")
	}
	if _, err := d.Put(t.Context(), "1/.tmp-upload-x", nil); err == nil {
		t.Fatal("a key naming a temporary file was accepted")
	}
}
