package store

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"
)

// FileStorage keeps the bytes of uploaded files (attachments, avatars,
// custom emoji) under keys such as "2/ab/Xy12.../photo.png". Its metadata
// (owner, name, type, which messages reference it) lives in the Store
// ([AttachmentStore]); a FileStorage holds bytes only. Implementations:
// package store/filestore (a local directory, S3-compatible object storage)
// and the PostgreSQL store's in-database storage (postgres.Store.Files).
// store/storetest.RunFileStorage is the conformance suite they pass. All
// methods are safe for concurrent use.
type FileStorage interface {
	// Put stores what r yields under key, replacing any file there, and
	// returns the number of bytes stored. It streams: memory does not grow
	// with the file. Readers never see a partial file: until Put returns nil,
	// Open gives the previous file (or ErrNotFound); after an error nothing
	// of the new file remains. An invalid key (see [CheckFileKey]) gives
	// ErrInvalidFileKey.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Open returns the file stored under key for reading, or an error
	// wrapping ErrNotFound. The caller closes it.
	Open(ctx context.Context, key string) (StoredFile, error)
	// Delete removes the file stored under key; a missing file gives an
	// error wrapping ErrNotFound.
	Delete(ctx context.Context, key string) error
}

// StoredFile is an open stored file: it reads and seeks (so
// http.ServeContent answers ranges from it) and knows its size and when it
// was stored.
type StoredFile interface {
	io.ReadSeekCloser
	// Size is the file's length in bytes.
	Size() int64
	// ModTime is when the file was stored.
	ModTime() time.Time
}

// ErrInvalidFileKey is returned for a file key [CheckFileKey] refuses.
var ErrInvalidFileKey = errors.New("store: invalid file key")

// MaxFileKeyLen bounds the length of a file key in bytes.
const MaxFileKeyLen = 1024

// CheckFileKey returns nil when key can name a stored file: at most
// MaxFileKeyLen bytes of '/'-separated segments, none empty, "." or "..",
// and no backslash, NUL or other control character. Such a key never
// escapes the directory or bucket it is stored under. Otherwise it returns
// an error wrapping ErrInvalidFileKey.
func CheckFileKey(key string) error {
	if key == "" || len(key) > MaxFileKeyLen {
		return ErrInvalidFileKey
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return ErrInvalidFileKey
		}
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return ErrInvalidFileKey
		}
	}
	return nil
}
