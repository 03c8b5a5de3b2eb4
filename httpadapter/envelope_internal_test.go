package httpadapter

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// TestWriteErrorKinds checks the Kind → status table and the envelope for
// kinds no route produces today (Forbidden, Conflict) as well as the others.
func TestWriteErrorKinds(t *testing.T) {
	var logs strings.Builder
	h := &handler{log: slog.New(slog.NewTextHandler(&logs, nil))}
	tests := []struct {
		name   string
		err    error
		status int
		header map[string]string
		body   map[string]any
	}{
		{"invalid", chatcore.BadRequest("Bad"), 400, nil,
			map[string]any{"result": "error", "msg": "Bad", "code": "BAD_REQUEST"}},
		{"not found", chatcore.NotFound("Gone"), 404, nil,
			map[string]any{"result": "error", "msg": "Gone", "code": "BAD_REQUEST"}},
		{"forbidden", &chatcore.Error{Code: chatcore.CodeBadRequest, Kind: chatcore.KindForbidden, Msg: "Access denied"}, 403, nil,
			map[string]any{"result": "error", "msg": "Access denied", "code": "BAD_REQUEST"}},
		{"unauthenticated", chatcore.Unauthorized("Invalid API key"), 401, map[string]string{"WWW-Authenticate": `Basic realm="zulip"`},
			map[string]any{"result": "error", "msg": "Invalid API key", "code": "UNAUTHORIZED"}},
		{"rate limited", &chatcore.Error{Code: chatcore.CodeRateLimitHit, Kind: chatcore.KindRateLimited, Msg: "API usage exceeded rate limit",
			RetryAfter: 2200 * time.Millisecond}, 429, map[string]string{"Retry-After": "3"},
			map[string]any{"result": "error", "msg": "API usage exceeded rate limit", "code": "RATE_LIMIT_HIT", "retry-after": 3.0}},
		{"rate limited, sub-second wait", &chatcore.Error{Code: chatcore.CodeRateLimitHit, Kind: chatcore.KindRateLimited, Msg: "API usage exceeded rate limit",
			RetryAfter: time.Millisecond}, 429, map[string]string{"Retry-After": "1"},
			map[string]any{"result": "error", "msg": "API usage exceeded rate limit", "code": "RATE_LIMIT_HIT", "retry-after": 1.0}},
		{"conflict", &chatcore.Error{Code: chatcore.CodeBadRequest, Kind: chatcore.KindConflict, Msg: "Taken"}, 409, nil,
			map[string]any{"result": "error", "msg": "Taken", "code": "BAD_REQUEST"}},
		{"data keys, envelope protected", &chatcore.Error{Code: chatcore.CodeRequestVariableMissing, Kind: chatcore.KindInvalid,
			Msg: "Missing 'x' argument", Data: map[string]any{"var_name": "x", "result": "success", "msg": "no"}}, 400, nil,
			map[string]any{"result": "error", "msg": "Missing 'x' argument", "code": "REQUEST_VARIABLE_MISSING", "var_name": "x"}},
		{"wrapped chatcore error", fmt.Errorf("context: %w", chatcore.BadRequest("Inner")), 400, nil,
			map[string]any{"result": "error", "msg": "Inner", "code": "BAD_REQUEST"}},
		{"body too large", &bodyTooLargeError{limit: 10}, 413, nil,
			map[string]any{"result": "error", "msg": "Request body too large (limit: 10 bytes)", "code": "BAD_REQUEST"}},
		{"method not allowed", &methodNotAllowedError{allowed: []string{"GET", "HEAD"}}, 405, map[string]string{"Allow": "GET, HEAD"},
			map[string]any{"result": "error", "msg": "Method Not Allowed", "allowed_methods": []any{"GET", "HEAD"}}},
		{"unavailable", chatcore.Unavailable(fmt.Errorf("postgres: conn closed: %w", chatcore.ErrUnavailable)), 503, map[string]string{"Retry-After": "1"},
			map[string]any{"result": "error", "msg": "The server is temporarily unable to reach its database; try again shortly", "code": "BAD_REQUEST", "retry-after": 1.0}},
		{"unavailable store error outside the Service", fmt.Errorf("eventqueue: %w", fmt.Errorf("sqlite: database is locked: %w", chatcore.ErrUnavailable)), 503, map[string]string{"Retry-After": "1"},
			map[string]any{"result": "error", "msg": "The server is temporarily unable to reach its database; try again shortly", "code": "BAD_REQUEST", "retry-after": 1.0}},
		{"unavailable cause under another kind", &chatcore.Error{Code: chatcore.CodeBadRequest, Kind: chatcore.KindNotFound, Msg: "No such user",
			Err: chatcore.ErrUnavailable}, 503, map[string]string{"Retry-After": "1"},
			map[string]any{"result": "error", "msg": "The server is temporarily unable to reach its database; try again shortly", "code": "BAD_REQUEST", "retry-after": 1.0}},
		{"internal", errors.New("disk on fire at /var/db"), 500, nil,
			map[string]any{"result": "error", "msg": "Internal server error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			rec := httptest.NewRecorder()
			h.writeError(rec, httptest.NewRequest("GET", "/api/v1/x", nil), tt.err)
			is.Equal(rec.Code, tt.status)                                  // the Kind's status
			is.Equal(rec.Header().Get("Content-Type"), "application/json") // JSON
			for k, v := range tt.header {
				is.Equal(rec.Header().Get(k), v) // the status's header
			}
			var body map[string]any
			is.NoErr(json.Unmarshal(rec.Body.Bytes(), &body))
			is.Equal(body, tt.body) // exactly the envelope, nothing more
		})
	}
	is := is.New(t)
	is.True(strings.Contains(logs.String(), "disk on fire")) // internal errors are logged, not shown
}

func TestKindTableComplete(t *testing.T) {
	is := is.New(t)
	for k := chatcore.KindInvalid; k <= chatcore.KindConflict; k++ {
		_, ok := statusByKind[k]
		is.True(ok) // every Kind has a status
	}
	is.Equal(statusByKind[chatcore.KindInvalid], http.StatusBadRequest) // Zulip's default
}

// TestWriteSuccessFieldsOf checks that a response struct's fields, encoded
// once by fieldsOf, reach the envelope whole: beside result and msg, with
// the ignored parameters, exact numbers, no HTML escapes, and an empty
// struct giving the bare envelope.
func TestWriteSuccessFieldsOf(t *testing.T) {
	type answer struct {
		ID      int64    `json:"id"`
		HTML    string   `json:"html"`
		List    []string `json:"list"`
		Omitted string   `json:"omitted,omitempty"`
	}
	h := &handler{log: slog.New(slog.DiscardHandler)}
	for _, tc := range []struct {
		name    string
		v       any
		ignored []string
		want    string
	}{
		{"fields", answer{ID: 1<<53 + 1, HTML: "<p>a & b</p>", List: []string{"x"}}, nil,
			`{"msg":"","result":"success","id":9007199254740993,"html":"<p>a & b</p>","list":["x"]}`},
		{"ignored too", answer{List: []string{}}, []string{"b", "a", "b"},
			`{"ignored_parameters_unsupported":["a","b"],"msg":"","result":"success","id":0,"html":"","list":[]}`},
		{"empty struct", struct{}{}, nil, `{"msg":"","result":"success"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			fields, err := fieldsOf(tc.v)
			is.NoErr(err)
			rec := httptest.NewRecorder()
			h.writeSuccess(rec, httptest.NewRequest(http.MethodGet, "/", nil), fields, tc.ignored)
			is.Equal(rec.Code, http.StatusOK)
			is.Equal(strings.TrimSpace(rec.Body.String()), tc.want) // one object, every field once
			is.Equal(rec.Header().Get("Content-Length"), fmt.Sprint(rec.Body.Len()))
			var decoded map[string]any
			is.NoErr(json.Unmarshal(rec.Body.Bytes(), &decoded)) // valid JSON
		})
	}
	_, err := fieldsOf([]int{1})
	is.New(t).True(err != nil) // a response that is not an object is refused
}
