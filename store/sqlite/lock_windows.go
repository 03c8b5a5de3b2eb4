//go:build windows

package sqlite

import (
	"errors"
	"os"
	"syscall"
)

// errLocked reports a lock another open file holds.
var errLocked = errors.New("locked")

// errorSharingViolation is Windows' ERROR_SHARING_VIOLATION.
const errorSharingViolation syscall.Errno = 32

// openLockFile opens (creating it) the lock file at path shared for
// reading only: while it is open, no other handle may write it, which is
// the lock (Windows releases it when the process ends), and others can
// still read the holder's pid.
func openLockFile(path string) (*os.File, error) {
	name, err := syscall.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	h, err := syscall.CreateFile(name, syscall.GENERIC_READ|syscall.GENERIC_WRITE, syscall.FILE_SHARE_READ,
		nil, syscall.OPEN_ALWAYS, syscall.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		if errors.Is(err, errorSharingViolation) {
			return nil, errLocked
		}
		return nil, err
	}
	return os.NewFile(uintptr(h), path), nil
}

// tryLock has nothing to do: openLockFile locked the file.
func tryLock(*os.File) error { return nil }

// unlock has nothing to do: closing the file unlocks it.
func unlock(*os.File) error { return nil }
