package httpadapter

import (
	"bufio"
	"errors"
	"mime"
	"mime/multipart"
	"net/http"
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
