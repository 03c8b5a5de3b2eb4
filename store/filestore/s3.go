package filestore

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3PartSize is the part size of S3 uploads of unknown length: each Put
// of such a stream holds one part in memory (5 MiB, S3's minimum).
const S3PartSize = 5 << 20

// S3Config names an S3-compatible bucket.
type S3Config struct {
	// Endpoint is the server's host[:port] ("s3.amazonaws.com",
	// "127.0.0.1:9000").
	Endpoint string
	// Insecure talks plain HTTP instead of HTTPS.
	Insecure  bool
	Region    string
	AccessKey string
	SecretKey string
	Bucket    string
	// Prefix is put before every key ("uploads/"), "" for none.
	Prefix string
	// PathStyle addresses the bucket in the path rather than the host
	// name (MinIO and most self-hosted servers).
	PathStyle bool
}

// S3 stores files as objects of an S3-compatible bucket through the MinIO
// client (github.com/minio/minio-go/v7). An object appears whole or not at
// all (a streamed Put is a multipart upload, aborted on error), so a
// failed Put leaves nothing; an open file reads by ranged GETs, so
// seeking costs no download.
type S3 struct {
	c      *minio.Client
	bucket string
	prefix string
}

// OpenS3 returns an S3 storage on the bucket cfg names, which must exist.
func OpenS3(ctx context.Context, cfg S3Config) (*S3, error) {
	lookup := minio.BucketLookupAuto
	if cfg.PathStyle {
		lookup = minio.BucketLookupPath
	}
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure:       !cfg.Insecure,
		Region:       cfg.Region,
		BucketLookup: lookup,
	})
	if err != nil {
		return nil, fmt.Errorf("filestore: s3: %w", err)
	}
	ok, err := c.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("filestore: s3: bucket %q: %w", cfg.Bucket, err)
	}
	if !ok {
		return nil, fmt.Errorf("filestore: s3: bucket %q does not exist", cfg.Bucket)
	}
	return &S3{c: c, bucket: cfg.Bucket, prefix: cfg.Prefix}, nil
}

// Put implements [store.FileStorage].
func (s *S3) Put(ctx context.Context, key string, r io.Reader) (int64, error) {
	if err := store.CheckFileKey(key); err != nil {
		return 0, fmt.Errorf("filestore: s3: %q: %w", key, err)
	}
	br := bufio.NewReader(ctxReader{ctx, r})
	size := int64(-1)
	if _, err := br.Peek(1); err == io.EOF {
		size = 0 // an empty file: one PUT with a length
	} else if err != nil {
		return 0, fmt.Errorf("filestore: s3: put %q: %w", key, err)
	}
	counted := &countReader{r: br}
	_, err := s.c.PutObject(ctx, s.bucket, s.prefix+key, counted, size, minio.PutObjectOptions{
		PartSize: S3PartSize, ContentType: "application/octet-stream", DisableContentSha256: true,
	})
	if err != nil {
		if counted.err != nil {
			err = counted.err
		}
		return counted.n, fmt.Errorf("filestore: s3: put %q: %w", key, err)
	}
	return counted.n, nil
}

// Open implements [store.FileStorage].
func (s *S3) Open(ctx context.Context, key string) (store.StoredFile, error) {
	if err := store.CheckFileKey(key); err != nil {
		return nil, fmt.Errorf("filestore: s3: %q: %w", key, err)
	}
	info, err := s.c.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{})
	if err != nil {
		return nil, s3Error(key, err)
	}
	obj, err := s.c.GetObject(context.WithoutCancel(ctx), s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, s3Error(key, err)
	}
	return &s3File{Object: obj, size: info.Size, mod: info.LastModified}, nil
}

// Delete implements [store.FileStorage].
func (s *S3) Delete(ctx context.Context, key string) error {
	if err := store.CheckFileKey(key); err != nil {
		return fmt.Errorf("filestore: s3: %q: %w", key, err)
	}
	if _, err := s.c.StatObject(ctx, s.bucket, s.prefix+key, minio.StatObjectOptions{}); err != nil {
		return s3Error(key, err)
	}
	if err := s.c.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{}); err != nil {
		return s3Error(key, err)
	}
	return nil
}

// s3Error wraps err, as ErrNotFound for a missing object.
func s3Error(key string, err error) error {
	resp := minio.ToErrorResponse(err)
	if resp.Code == "NoSuchKey" || resp.StatusCode == http.StatusNotFound {
		return fmt.Errorf("filestore: s3: %q: %w", key, store.ErrNotFound)
	}
	return fmt.Errorf("filestore: s3: %q: %w", key, err)
}

// s3File is an open object.
type s3File struct {
	*minio.Object
	size int64
	mod  time.Time
}

func (f *s3File) Size() int64        { return f.size }
func (f *s3File) ModTime() time.Time { return f.mod }

// Seek implements io.Seeker, refusing a position before the start (the
// object does too, but only at the next Read).
func (f *s3File) Seek(offset int64, whence int) (int64, error) {
	if whence == io.SeekStart && offset < 0 {
		return 0, errors.New("filestore: s3: seek before the start")
	}
	return f.Object.Seek(offset, whence)
}

// Read implements io.Reader; an empty object reads as EOF at once.
func (f *s3File) Read(p []byte) (int, error) {
	if f.size == 0 {
		return 0, io.EOF
	}
	return f.Object.Read(p)
}

// countReader counts what it reads and keeps the source's error.
type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}
