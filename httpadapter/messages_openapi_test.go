package httpadapter_test

// GET /messages and GET /messages/{message_id} at feature level 467, checked
// against Zulip's description of the served routes.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/testenv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/matryer/is"
)

// served is the description of the served routes, read and parsed once.
var served struct {
	once sync.Once
	doc  *openapi3.T
	err  error
}

// checkServed validates a success response of method on template against
// zulip-openapi-served.yaml; tb skips unless testenv.OpenAPIDirVar is set.
func checkServed(tb testing.TB, method, template string, res *response) {
	tb.Helper()
	is := is.New(tb)
	path := testenv.OpenAPIFile(tb, "zulip-openapi-served.yaml")
	served.once.Do(func() {
		var data []byte
		if data, served.err = os.ReadFile(path); served.err == nil {
			served.doc, served.err = parseSpec(data)
		}
	})
	if served.err != nil {
		tb.Fatalf("loading %s: %v", path, served.err)
	}
	item := served.doc.Paths.Value(template)
	is.True(item != nil) // the path is served
	op := item.GetOperation(method)
	is.True(op != nil) // the operation is served
	req, err := http.NewRequest(method, "http://localhost/api/v1"+template, nil)
	is.NoErr(err)
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req,
			Route:   &routers.Route{Spec: served.doc, Path: template, PathItem: item, Method: method, Operation: op},
		},
		Status: res.status, Header: res.header, Body: io.NopCloser(bytes.NewReader(res.raw)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		tb.Logf("%s %s -> %d %s", method, template, res.status, res.raw)
		is.NoErr(err) // the response matches Zulip's description
	}
}

// TestMessagesLevel467Served sends the level-467 forms of GET /messages and
// GET /messages/{id}: each succeeds, carries no rendered_content, and
// validates against the served description.
func TestMessagesLevel467Served(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	res := e.do(t, request{method: "POST", path: "/messages", auth: &member,
		params: params("type", "stream", "to", "general", "topic", "✔ done", "content", "see https://example.com")})
	wantSuccess(t, res)
	id := num(t, res.body["id"])
	for _, tc := range []struct {
		name   string
		params []string
	}{
		{"anchor=date", []string{"anchor", "date", "anchor_date", "2000-01-01", "num_after", "5"}},
		{"message_ids", []string{"message_ids", fmt.Sprintf("[%d]", id)}},
		{"is:resolved", []string{"anchor", "newest", "num_before", "5", "narrow", `[{"operator":"is","operand":"resolved"}]`}},
		{"has:link", []string{"anchor", "newest", "num_before", "5", "narrow", `[{"operator":"has","operand":"link"}]`}},
		{"with", []string{"anchor", "newest", "num_before", "5", "narrow", fmt.Sprintf(`[{"operator":"with","operand":%d}]`, id)}},
		{"dm-including", []string{"anchor", "newest", "num_before", "5", "narrow", `[{"operator":"dm-including","operand":13}]`}},
		{"include_anchor=false", []string{"anchor", fmt.Sprint(id), "num_before", "5", "include_anchor", "false"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			res := e.do(t, request{method: "GET", path: "/messages", auth: &member, params: params(tc.params...)})
			wantSuccess(t, res)
			msgs, _ := res.body["messages"].([]any)
			for _, m := range msgs {
				_, has := m.(map[string]any)["rendered_content"]
				is.True(!has) // no rendered_content in the message-list object
			}
			_, hasAnchor := res.body["anchor"]
			is.Equal(hasAnchor, tc.name != "message_ids") // message_ids answers without an anchor
			checkServed(t, "GET", "/messages", res)
		})
	}
	t.Run("message_ids with an anchor", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/messages", auth: &member,
			params: params("message_ids", fmt.Sprintf("[%d]", id), "anchor", "newest")})
		wantError(t, res, http.StatusBadRequest, "INCOMPATIBLE_PARAMETERS",
			"Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor")
		is.Equal(res.body["parameters"], "num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor") // the group
	})
	t.Run("anchor=date without anchor_date", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/messages", auth: &member, params: params("anchor", "date")})
		wantError(t, res, http.StatusBadRequest, "REQUEST_VARIABLE_MISSING", "Missing 'anchor_date' argument")
	})
	t.Run("single message", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", id), auth: &member})
		wantSuccess(t, res)
		_, has := res.body["message"].(map[string]any)["rendered_content"]
		is.True(!has) // no rendered_content in GET /messages/{id}
		checkServed(t, "GET", "/messages/{message_id}", res)
	})
}
