package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// FileChunkSize is the size of the chunks [Store.Files] keeps files in.
const FileChunkSize = 256 << 10

// Files returns a [store.FileStorage] that keeps files in the store's
// database (tables stored_files and stored_file_chunks), so every instance
// on the database serves every upload with nothing else to run. Files are
// written and read one chunk of FileChunkSize bytes at a time: a Put first
// spools what its reader yields to a temporary file (in [os.TempDir]; the
// caller bounds the reader, as uploads do with the upload size limit), so no
// connection is held while a slow client sends its body, then writes the
// whole file from the spool in one short transaction (so a failed Put
// leaves nothing), holding one chunk in memory; an open file reads the
// chunk a Read needs with a statement of its own.
func (s *Store) Files() store.FileStorage { return &dbFiles{pool: s.pool} }

// dbFiles is the in-database FileStorage.
type dbFiles struct{ pool *pgxpool.Pool }

// Put implements [store.FileStorage].
func (f *dbFiles) Put(ctx context.Context, key string, r io.Reader) (n int64, err error) {
	if err := store.CheckFileKey(key); err != nil {
		return 0, fmt.Errorf("postgres: put file %q: %w", key, err)
	}
	spool, err := spoolBody(ctx, r)
	if spool != nil {
		defer func() { _ = spool.Close(); _ = os.Remove(spool.Name()) }()
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: put file %q: %w", key, err)
	}
	r = spool
	tx, err := f.pool.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("postgres: put file %q: %w", key, err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	var id int64
	if err := tx.QueryRow(ctx, "SELECT nextval('stored_file_ids')").Scan(&id); err != nil {
		return 0, fmt.Errorf("postgres: put file %q: %w", key, err)
	}
	buf := make([]byte, FileChunkSize)
	for seq := 0; ; seq++ {
		k, rerr := io.ReadFull(r, buf)
		if k > 0 {
			if _, err := tx.Exec(ctx, "INSERT INTO stored_file_chunks (file_id, seq, data) VALUES ($1, $2, $3)", id, seq, buf[:k]); err != nil {
				return n, fmt.Errorf("postgres: put file %q: %w", key, err)
			}
			n += int64(k)
		}
		if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
			break
		}
		if rerr != nil {
			return n, fmt.Errorf("postgres: put file %q: %w", key, rerr)
		}
	}
	var old int64
	err = tx.QueryRow(ctx, "SELECT file_id FROM stored_files WHERE key = $1 FOR UPDATE", key).Scan(&old)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		_, err = tx.Exec(ctx, "INSERT INTO stored_files (key, file_id, size, chunk_size, stored_at) VALUES ($1, $2, $3, $4, now())",
			key, id, n, FileChunkSize)
	case err == nil:
		if _, err = tx.Exec(ctx, "DELETE FROM stored_file_chunks WHERE file_id = $1", old); err == nil {
			_, err = tx.Exec(ctx, "UPDATE stored_files SET file_id = $2, size = $3, chunk_size = $4, stored_at = now() WHERE key = $1",
				key, id, n, FileChunkSize)
		}
	}
	if err != nil {
		return n, fmt.Errorf("postgres: put file %q: %w", key, err)
	}
	if err = tx.Commit(ctx); err != nil {
		return n, fmt.Errorf("postgres: put file %q: %w", key, err)
	}
	return n, nil
}

// spoolBody copies what r yields to a new temporary file, checking ctx
// between chunks, and returns the file positioned at its start. On error
// the file returned, if any, is still to be closed and removed.
func spoolBody(ctx context.Context, r io.Reader) (*os.File, error) {
	tmp, err := os.CreateTemp("", "chatcore-put-*")
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 32<<10)
	for {
		if err := ctx.Err(); err != nil {
			return tmp, err
		}
		k, rerr := r.Read(buf)
		if k > 0 {
			if _, err := tmp.Write(buf[:k]); err != nil {
				return tmp, err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return tmp, rerr
		}
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return tmp, err
	}
	return tmp, nil
}

// Open implements [store.FileStorage].
func (f *dbFiles) Open(ctx context.Context, key string) (store.StoredFile, error) {
	if err := store.CheckFileKey(key); err != nil {
		return nil, fmt.Errorf("postgres: open file %q: %w", key, err)
	}
	df := &dbFile{pool: f.pool, ctx: context.WithoutCancel(ctx), seq: -1}
	err := f.pool.QueryRow(ctx, "SELECT file_id, size, chunk_size, stored_at FROM stored_files WHERE key = $1", key).
		Scan(&df.id, &df.size, &df.chunk, &df.mod)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("postgres: open file %q: %w", key, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: open file %q: %w", key, err)
	}
	return df, nil
}

// Delete implements [store.FileStorage].
func (f *dbFiles) Delete(ctx context.Context, key string) error {
	if err := store.CheckFileKey(key); err != nil {
		return fmt.Errorf("postgres: delete file %q: %w", key, err)
	}
	var id int64
	err := f.pool.QueryRow(ctx, `WITH gone AS (DELETE FROM stored_files WHERE key = $1 RETURNING file_id),
		chunks AS (DELETE FROM stored_file_chunks WHERE file_id IN (SELECT file_id FROM gone))
		SELECT file_id FROM gone`, key).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("postgres: delete file %q: %w", key, store.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("postgres: delete file %q: %w", key, err)
	}
	return nil
}

// dbFile is an open in-database file. It reads one chunk at a time; the
// chunk last read is kept for the Reads that follow.
type dbFile struct {
	pool  *pgxpool.Pool
	ctx   context.Context
	id    int64
	size  int64
	chunk int64
	mod   time.Time
	pos   int64
	seq   int64 // of data; -1 before the first read
	data  []byte
}

func (f *dbFile) Size() int64        { return f.size }
func (f *dbFile) ModTime() time.Time { return f.mod }
func (f *dbFile) Close() error       { f.data = nil; return nil }

// Read implements io.Reader.
func (f *dbFile) Read(p []byte) (int, error) {
	if f.pos >= f.size {
		return 0, io.EOF
	}
	seq := f.pos / f.chunk
	if seq != f.seq {
		f.data = f.data[:0]
		if err := f.pool.QueryRow(f.ctx, "SELECT data FROM stored_file_chunks WHERE file_id = $1 AND seq = $2", f.id, seq).Scan(&f.data); err != nil {
			if errors.Is(err, pgx.ErrNoRows) {
				return 0, fmt.Errorf("postgres: read file: chunk %d gone (the file was replaced or deleted)", seq)
			}
			return 0, fmt.Errorf("postgres: read file: %w", err)
		}
		f.seq = seq
	}
	off := f.pos - seq*f.chunk
	if off >= int64(len(f.data)) {
		return 0, io.ErrUnexpectedEOF
	}
	n := copy(p, f.data[off:])
	f.pos += int64(n)
	return n, nil
}

// Seek implements io.Seeker.
func (f *dbFile) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = f.pos + offset
	case io.SeekEnd:
		abs = f.size + offset
	default:
		return 0, errors.New("postgres: seek: invalid whence")
	}
	if abs < 0 {
		return 0, errors.New("postgres: seek: negative position")
	}
	f.pos = abs
	return abs, nil
}
