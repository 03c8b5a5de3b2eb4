package httpadapter

import (
	"bufio"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"

	"github.com/chatcore/chatcore"
)

// multipartBuffer is the read-ahead of a streamed multipart body. The
// multipart reader reuses a buffered reader at least this large instead
// of its own 4 KiB one, so a file part is read from the connection in
// reads of up to this size rather than thousands of small ones.
const multipartBuffer = 256 << 10

// errNotMultipart is returned for a request that is not multipart/form-data.
var errNotMultipart = errors.New("httpadapter: not a multipart/form-data body")

// multipartReader returns a reader of r's multipart/form-data body, read
// ahead by multipartBuffer bytes at a time (see [http.Request.MultipartReader]).
func multipartReader(r *http.Request) (*multipart.Reader, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, errNotMultipart
	}
	return multipart.NewReader(bufio.NewReaderSize(r.Body, multipartBuffer), params["boundary"]), nil
}

// oneFile is a multipart request that carries exactly one file (under any
// field name; other fields are skipped), as Zulip's avatar and custom-emoji
// uploads do.
type oneFile struct {
	// maxMiB bounds the file; the body may be uploadFormSlack larger.
	maxMiB int64
	// wrongCount is the refusal of a body with no file or several.
	wrongCount string
	// readError answers a body that could not be read (over the bound or
	// malformed).
	readError func(error) error
	// store keeps the file; undo takes it back when a second file follows
	// (Zulip refuses several files before storing any, here the first is
	// stored already).
	store func(ctx context.Context, file io.Reader) error
	undo  func(ctx context.Context)
}

// read reads r's body as f describes, storing its one file.
func (f oneFile) read(w http.ResponseWriter, r *http.Request) error {
	limit := f.maxMiB<<20 + uploadFormSlack
	if r.ContentLength > limit {
		return chatcore.BadRequestf("Uploaded file is larger than the allowed limit of %d MiB", f.maxMiB)
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	mr, err := multipartReader(r)
	if err != nil {
		return chatcore.BadRequest(f.wrongCount)
	}
	done := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return f.readError(err)
		}
		if part.FileName() == "" {
			_, _ = io.Copy(io.Discard, part)
			continue
		}
		if done {
			f.undo(context.WithoutCancel(r.Context()))
			return chatcore.BadRequest(f.wrongCount)
		}
		if err := f.store(r.Context(), part); err != nil {
			if errors.As(err, new(*http.MaxBytesError)) {
				return f.readError(err)
			}
			return err
		}
		done = true
	}
	if !done {
		return chatcore.BadRequest(f.wrongCount)
	}
	return nil
}
