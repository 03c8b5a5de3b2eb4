package sqlite

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrInUse is the error of an [Open] of a database file another Store holds,
// in this process or another one: one process per file (see the package
// documentation). Test with errors.Is.
var ErrInUse = errors.New("sqlite: database in use")

// fileLock is the exclusive lock a Store holds on its database file, through
// the lock file beside it (lockPath), for the Store's life.
type fileLock struct {
	f *os.File
}

// lockPath is the lock file of the database file path.
func lockPath(path string) string { return path + ".lock" }

// lock takes the lock of the database file path, or fails with an error
// wrapping ErrInUse that names the file and the pid of the holder. The
// holder's pid is written into the lock file, which stays beside the
// database after Close (removing it would let a process lock a file that
// another one is opening).
func lock(path string) (*fileLock, error) {
	lp := lockPath(path)
	f, err := openLockFile(lp)
	if err != nil {
		if errors.Is(err, errLocked) {
			return nil, inUse(path, lp)
		}
		return nil, fmt.Errorf("sqlite: open %q: lock file: %w", path, err)
	}
	if err := tryLock(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, inUse(path, lp)
		}
		return nil, fmt.Errorf("sqlite: open %q: locking %s: %w", path, lp, err)
	}
	l := &fileLock{f: f}
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt(pid, 0)
	}
	if err != nil {
		_ = l.release()
		return nil, fmt.Errorf("sqlite: open %q: writing %s: %w", path, lp, err)
	}
	return l, nil
}

// inUse is the error of a lock held by another Store: it names the
// database file, the lock file and the holder's pid as the lock file says.
func inUse(path, lp string) error {
	holder := "another process"
	if b, err := os.ReadFile(lp); err == nil {
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			holder = "process " + strconv.Itoa(pid)
			if pid == os.Getpid() {
				holder += " (this process)"
			}
		}
	}
	return fmt.Errorf("%w: %q is open in %s, which holds the lock file %s: a SQLite database serves one process (use the PostgreSQL store for several)",
		ErrInUse, path, holder, lp)
}

// release empties the lock file, unlocks it and closes it.
func (l *fileLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	errT := l.f.Truncate(0)
	errU := unlock(l.f)
	errC := l.f.Close()
	l.f = nil
	return errors.Join(errT, errU, errC)
}
