package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/chatcore/chatcore/internal/testsupport/testenv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/matryer/is"
	"github.com/oasdiff/yaml"
)

// loadedSpec is one OpenAPI excerpt, read and parsed once.
type loadedSpec struct {
	once sync.Once
	doc  *openapi3.T
	err  error
}

// loaded holds the excerpts by file name.
var loaded = map[string]*loadedSpec{
	"zulip-openapi.yaml":        {},
	"zulip-openapi-served.yaml": {},
}

// spec returns Zulip's OpenAPI excerpt, which is not part of the repository:
// tb skips unless testenv.OpenAPIDirVar names the directory holding it.
func spec(tb testing.TB) *openapi3.T {
	tb.Helper()
	return specFile(tb, "zulip-openapi.yaml")
}

// servedSpec returns the excerpt with the response schemas of every
// operation chatcore serves (skipping like spec).
func servedSpec(tb testing.TB) *openapi3.T {
	tb.Helper()
	return specFile(tb, "zulip-openapi-served.yaml")
}

// specFile returns the named excerpt, read and parsed once.
func specFile(tb testing.TB, name string) *openapi3.T {
	tb.Helper()
	path := testenv.OpenAPIFile(tb, name)
	l := loaded[name]
	l.once.Do(func() {
		var data []byte
		if data, l.err = os.ReadFile(path); l.err == nil {
			l.doc, l.err = parseSpec(data)
		}
	})
	if l.err != nil {
		tb.Fatalf("loading the OpenAPI excerpt %s: %v", path, l.err)
	}
	return l.doc
}

// parseSpec loads the excerpt after patching what an excerpt of a larger file
// gets wrong: $refs to components it leaves out (they become "any value"),
// the Zulip Cloud servers entry (replaced by /api/v1) and the security
// requirement named basicAuth while the scheme is BasicAuth.
func parseSpec(data []byte) (*openapi3.T, error) {
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(j, &root); err != nil {
		return nil, err
	}
	comps, _ := root["components"].(map[string]any)
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				if name, ok := strings.CutPrefix(ref, "#/components/"); ok {
					kind, key, _ := strings.Cut(name, "/")
					section, _ := comps[kind].(map[string]any)
					if _, ok := section[key]; !ok {
						return map[string]any{}
					}
				}
			}
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	walk(root)
	root["servers"] = []any{map[string]any{"url": "/api/v1"}}
	root["security"] = []any{map[string]any{"BasicAuth": []any{}}}
	j, err = json.Marshal(root)
	if err != nil {
		return nil, err
	}
	loader := openapi3.NewLoader()
	return loader.LoadFromData(j)
}

// checkSpec validates a response of method on the spec path template (such
// as "/reminders/{reminder_id}") against the OpenAPI excerpt, status included.
func checkSpec(tb testing.TB, method, template string, res *response) {
	tb.Helper()
	checkDoc(tb, spec(tb), method, template, res)
}

// checkDoc is checkSpec against the excerpt doc.
func checkDoc(tb testing.TB, doc *openapi3.T, method, template string, res *response) {
	tb.Helper()
	is := is.New(tb)
	item := doc.Paths.Value(template)
	is.True(item != nil) // the path is in the excerpt
	op := item.GetOperation(method)
	is.True(op != nil) // the operation is in the excerpt
	if op.Responses.Status(res.status) == nil && op.Responses.Default() == nil {
		// Errors an operation does not list are the generic ones, which the
		// excerpt describes under /rest-error-handling.
		checkGenericError(tb, doc, res)
		return
	}
	req, err := http.NewRequest(method, "http://localhost/api/v1"+template, nil)
	is.NoErr(err)
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{
			Request: req,
			Route:   &routers.Route{Spec: doc, Path: template, PathItem: item, Method: method, Operation: op},
		},
		Status:  res.status,
		Header:  res.header,
		Body:    io.NopCloser(bytes.NewReader(res.raw)),
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	err = openapi3filter.ValidateResponse(context.Background(), in)
	if err != nil && res.status >= 400 && (matchesAnyAlternative(op.Responses.Status(res.status), res.raw) ||
		matchesAnyAlternative(doc.Paths.Value("/rest-error-handling").Post.Responses.Status(res.status), res.raw)) {
		// Zulip lists an operation's errors as a oneOf of loose schemas
		// that overlap (an error with var_name fits several), so an error
		// matching one alternative matches the description; the errors
		// common to every operation (such as a missing argument) are
		// described once, under /rest-error-handling.
		err = nil
	}
	if err != nil {
		tb.Logf("%s %s -> %d %s", method, template, res.status, res.raw)
	}
	is.NoErr(err) // the response matches the OpenAPI description
}

// matchesAnyAlternative reports whether the JSON body matches at least one
// alternative of the oneOf schema of ref (nil ref, or no oneOf: false).
func matchesAnyAlternative(ref *openapi3.ResponseRef, raw []byte) bool {
	if ref == nil || ref.Value == nil || ref.Value.Content.Get("application/json") == nil {
		return false
	}
	schema := ref.Value.Content.Get("application/json").Schema.Value
	var body any
	if json.Unmarshal(raw, &body) != nil || len(schema.OneOf) == 0 {
		return false
	}
	for _, alt := range schema.OneOf {
		if alt.Value.VisitJSON(body) == nil {
			return true
		}
	}
	return false
}

// checkGenericError validates an error response against the generic errors
// of /rest-error-handling. Those are a oneOf of loose schemas that often
// overlap, so the response must match at least one alternative (anyOf).
func checkGenericError(tb testing.TB, doc *openapi3.T, res *response) {
	tb.Helper()
	is := is.New(tb)
	ref := doc.Paths.Value("/rest-error-handling").Post.Responses.Status(res.status)
	is.True(ref != nil) // the error status is described in the excerpt
	schema := ref.Value.Content.Get("application/json").Schema.Value
	alts := schema.OneOf
	if len(alts) == 0 {
		alts = openapi3.SchemaRefs{&openapi3.SchemaRef{Value: schema}}
	}
	var body any
	is.NoErr(json.Unmarshal(res.raw, &body)) // the body is JSON
	var errs []error
	for _, alt := range alts {
		err := alt.Value.VisitJSON(body)
		if err == nil {
			return
		}
		errs = append(errs, err)
	}
	tb.Logf("%d %s: %v", res.status, res.raw, errs)
	tb.Fatal("the error response matches none of the generic error schemas")
}
