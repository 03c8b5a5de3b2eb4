package httpadapter

import (
	"errors"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"

	"github.com/chatcore/chatcore"
)

// collectParams returns the request's parameters: the query string merged
// with a urlencoded or multipart body, for every method (DELETE included), the
// body winning when a name appears in both. Other body types are not read, as
// in Zulip. A body over limit gives a *bodyTooLargeError.
func collectParams(w http.ResponseWriter, r *http.Request, limit int64) (url.Values, error) {
	params, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, chatcore.BadRequest("Malformed query string")
	}
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		return params, nil
	}
	if r.ContentLength > limit {
		return nil, &bodyTooLargeError{limit: limit}
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return params, nil
	}
	mediaType, mparams, err := mime.ParseMediaType(ct)
	if err != nil {
		return nil, chatcore.BadRequest("Malformed Content-Type header")
	}
	body := http.MaxBytesReader(w, r.Body, limit)
	defer body.Close()
	var form url.Values
	switch mediaType {
	case "application/x-www-form-urlencoded":
		form, err = readURLEncoded(body)
	case "multipart/form-data":
		form, err = readMultipart(body, mparams["boundary"])
	default:
		return params, nil
	}
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return nil, &bodyTooLargeError{limit: limit}
		}
		if _, ok := errors.AsType[*chatcore.Error](err); ok {
			return nil, err
		}
		return nil, chatcore.BadRequest("Malformed request body")
	}
	maps.Copy(params, form)
	return params, nil
}

func readURLEncoded(body io.Reader) (url.Values, error) {
	data, err := io.ReadAll(body)
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(data))
	if err != nil {
		return nil, chatcore.BadRequest("Malformed request body")
	}
	return form, nil
}

// readMultipart reads the form fields of a multipart body; file parts are
// skipped (no endpoint here takes uploads), their names reported like any
// other parameter.
func readMultipart(body io.Reader, boundary string) (url.Values, error) {
	if boundary == "" {
		return nil, chatcore.BadRequest("Malformed request body")
	}
	mr := multipart.NewReader(body, boundary)
	form := url.Values{}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return form, nil
		}
		if err != nil {
			return nil, err
		}
		name := part.FormName()
		if name == "" {
			_ = part.Close()
			continue
		}
		data, err := io.ReadAll(part)
		_ = part.Close()
		if err != nil {
			return nil, err
		}
		if part.FileName() != "" {
			data = nil
		}
		form[name] = append(form[name], string(data))
	}
}
