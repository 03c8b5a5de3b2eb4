package httpadapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/ratelimit"
)

// statusByKind maps an error kind to the HTTP status Zulip uses for it.
var statusByKind = map[chatcore.Kind]int{
	chatcore.KindInvalid:         http.StatusBadRequest,
	chatcore.KindNotFound:        http.StatusNotFound,
	chatcore.KindForbidden:       http.StatusForbidden,
	chatcore.KindUnauthenticated: http.StatusUnauthorized,
	chatcore.KindRateLimited:     http.StatusTooManyRequests,
	chatcore.KindConflict:        http.StatusConflict,
	chatcore.KindUnavailable:     http.StatusServiceUnavailable,
}

// envelopeKeys are the keys of the envelope itself; error Data never overrides them.
var envelopeKeys = map[string]bool{"result": true, "msg": true, "code": true}

// bodyTooLargeError reports a request body over the configured limit.
type bodyTooLargeError struct{ limit int64 }

func (e *bodyTooLargeError) Error() string {
	return fmt.Sprintf("request body larger than %d bytes", e.limit)
}

// writeJSON writes v as the JSON response body with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	return writeJSONWith(w, status, v, nil)
}

// writeJSONWith is writeJSON of the object v (a map) with the encoded
// members of another object added after v's own: one object with both.
func writeJSONWith(w http.ResponseWriter, status int, v any, members encodedMembers) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	if len(members) > 0 {
		// Encode ends the object with "}\n": the members go before the "}".
		b := bytes.TrimRight(buf.Bytes(), "\n")
		if len(b) < 2 || b[len(b)-1] != '}' {
			return fmt.Errorf("httpadapter: response %T does not encode as a JSON object", v)
		}
		buf.Truncate(len(b) - 1)
		if len(b) > 2 { // v has members of its own
			buf.WriteByte(',')
		}
		buf.Write(members)
		buf.WriteString("}\n")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	_, err := w.Write(buf.Bytes())
	return err
}

// writeSuccess writes Zulip's success envelope: {"result":"success","msg":""}
// plus fields at the top level and, when there are any, the sorted names of
// the parameters the endpoint ignored.
func (h *handler) writeSuccess(w http.ResponseWriter, r *http.Request, fields map[string]any, ignored []string) {
	body := make(map[string]any, len(fields)+3)
	maps.Copy(body, fields)
	body["result"] = "success"
	body["msg"] = ""
	if len(ignored) > 0 {
		ignored = slices.Clone(ignored)
		slices.Sort(ignored)
		body["ignored_parameters_unsupported"] = slices.Compact(ignored)
	}
	var err error
	if members, ok := body[encodedKey].(encodedMembers); ok {
		delete(body, encodedKey)
		err = writeJSONWith(w, http.StatusOK, body, members)
	} else {
		err = writeJSON(w, http.StatusOK, body)
	}
	if err != nil {
		// The fields did not encode: a programming error, never the client's.
		h.writeError(w, r, fmt.Errorf("httpadapter: encoding response: %w", err))
	}
}

// writeError writes err in Zulip's error envelope. It is the only place that
// turns errors into responses: a [*chatcore.Error] gets the status of its Kind,
// its code, message and Data keys; the adapter's own 405 and 413 errors get
// their status; an error wrapping [chatcore.ErrUnavailable] is logged and
// answered as [chatcore.Unavailable] (503 with Retry-After); anything else is
// logged and answered with a bare 500 "Internal server error" that reveals
// nothing about the cause.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if mna, ok := errors.AsType[*methodNotAllowedError](err); ok {
		// Zulip's 405 has no code, and lists the allowed methods.
		w.Header().Set("Allow", strings.Join(mna.allowed, ", "))
		_ = writeJSON(w, http.StatusMethodNotAllowed, map[string]any{
			"result":          "error",
			"msg":             "Method Not Allowed",
			"allowed_methods": mna.allowed,
		})
		return
	}
	if tl, ok := errors.AsType[*bodyTooLargeError](err); ok {
		_ = writeJSON(w, http.StatusRequestEntityTooLarge, map[string]any{
			"result": "error",
			"msg":    fmt.Sprintf("Request body too large (limit: %d bytes)", tl.limit),
			"code":   string(chatcore.CodeBadRequest),
		})
		return
	}
	e, ok := errors.AsType[*chatcore.Error](err)
	if errors.Is(err, chatcore.ErrUnavailable) && (!ok || e.Kind != chatcore.KindUnavailable) {
		// Passing database trouble met outside the Service's Update and
		// View (the event queues' own store calls): retryable, never a 500.
		e, ok = chatcore.Unavailable(err), true
	}
	if ok && e.Kind == chatcore.KindUnavailable {
		h.log.WarnContext(r.Context(), "httpadapter: database unavailable", "method", r.Method, "path", r.URL.Path, "err", e.Err)
	}
	if !ok {
		h.log.ErrorContext(r.Context(), "httpadapter: internal error", "method", r.Method, "path", r.URL.Path, "err", err)
		_ = writeJSON(w, http.StatusInternalServerError, map[string]any{
			"result": "error",
			"msg":    "Internal server error",
		})
		return
	}
	status, ok := statusByKind[e.Kind]
	if !ok {
		status = http.StatusBadRequest
	}
	body := make(map[string]any, len(e.Data)+3)
	for k, v := range e.Data {
		if !envelopeKeys[k] {
			body[k] = v
		}
	}
	body["result"] = "error"
	body["msg"] = e.Msg
	body["code"] = string(e.Code)
	switch e.Kind {
	case chatcore.KindUnauthenticated:
		w.Header().Set("WWW-Authenticate", `Basic realm="zulip"`)
	case chatcore.KindRateLimited, chatcore.KindUnavailable:
		// Zulip sends fractional seconds, but its OpenAPI schema declares an
		// integer: whole seconds, rounded up, satisfy both readings.
		if e.RetryAfter > 0 {
			secs := ratelimit.Seconds(e.RetryAfter)
			body["retry-after"] = secs
			w.Header().Set("Retry-After", strconv.Itoa(secs))
		}
	}
	_ = writeJSON(w, status, body)
}

// notFound is the JSON answer for a path no route matches.
func notFound() *chatcore.Error {
	return chatcore.NotFound("Not Found")
}

// methodNotAllowedError is a known path requested with another method.
type methodNotAllowedError struct{ allowed []string }

func (e *methodNotAllowedError) Error() string {
	return "method not allowed; allowed: " + strings.Join(e.allowed, ", ")
}

// fieldsOf turns a response struct into top-level envelope fields by its JSON
// encoding: v is encoded once, without HTML escapes, and writeSuccess writes
// the members of that object into the envelope as they are (decoding them
// into a map to encode them again cost more than the rest of a GET /messages
// of 100 messages). v must encode as a JSON object.
func fieldsOf(v any) (map[string]any, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := bytes.TrimSpace(buf.Bytes())
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("httpadapter: response %T does not encode as a JSON object", v)
	}
	return map[string]any{encodedKey: encodedMembers(bytes.TrimSpace(b[1 : len(b)-1]))}, nil
}

// encodedMembers are the members of a JSON object, encoded, without its
// braces: what fieldsOf returns under encodedKey.
type encodedMembers []byte

// encodedKey is the key of fieldsOf's encoded members among a handler's
// fields. JSON field names of Go structs are never empty, so it cannot
// collide with a field.
const encodedKey = ""
