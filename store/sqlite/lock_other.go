//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package sqlite

import (
	"errors"
	"os"
)

// errLocked reports a lock another open file holds.
var errLocked = errors.New("locked")

// openLockFile opens (creating it) the lock file at path.
func openLockFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
}

// tryLock does not lock on this system, which has no flock: the lock file
// records the pid, and one process per file is the embedder's to keep.
func tryLock(*os.File) error { return nil }

// unlock has nothing to do.
func unlock(*os.File) error { return nil }
