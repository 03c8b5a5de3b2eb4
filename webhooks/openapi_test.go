package webhooks_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/testenv"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/matryer/is"
	"github.com/oasdiff/yaml"
)

// webhookSchema returns the payload schema of /zulip-outgoing-webhook from the
// OpenAPI excerpt (next to the repository, never copied into it), with the
// $ref to MessagesBase, which the excerpt leaves out, made "any value".
func webhookSchema(t *testing.T) *openapi3.Schema {
	t.Helper()
	is := is.New(t)
	data, err := os.ReadFile(testenv.OpenAPIFile(t, "zulip-openapi.yaml"))
	is.NoErr(err) // the OpenAPI excerpt is readable
	j, err := yaml.YAMLToJSON(data)
	is.NoErr(err) // YAML converts
	var root map[string]any
	is.NoErr(json.Unmarshal(j, &root)) // JSON decodes
	op := root["paths"].(map[string]any)["/zulip-outgoing-webhook"].(map[string]any)["post"].(map[string]any)
	schema := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)["application/json"].(map[string]any)["schema"]
	b, err := json.Marshal(schema)
	is.NoErr(err) // schema re-encodes
	b = []byte(strings.ReplaceAll(string(b), `{"$ref":"#/components/schemas/MessagesBase"}`, `{}`))
	var s openapi3.Schema
	is.NoErr(json.Unmarshal(b, &s)) // a schema
	return &s
}

func TestWebhookPayloadMatchesOpenAPI(t *testing.T) {
	is := is.New(t)
	schema := webhookSchema(t)

	// The spec's field lists are the ones the golden tests hold the payload to.
	var top []string
	for k := range schema.Properties {
		top = append(top, k)
	}
	slices.Sort(top)
	is.Equal(top, payloadKeys) // payload fields as in the spec
	var msg []string
	for k := range schema.Properties["message"].Value.AllOf[1].Value.Properties {
		msg = append(msg, k)
	}
	slices.Sort(msg)
	all := slices.Sorted(slices.Values(append(slices.Clone(channelMessageKeys), "edit_history", "last_edit_timestamp", "last_moved_timestamp")))
	is.Equal(msg, all) // message fields as in the spec

	// A real channel and DM payload validate (additionalProperties: false at both levels).
	rec := newRecorder(t, answer(200, `""`))
	w, _ := newWebhookWorld(t, fast(), botServices{echoBot: generic(rec.srv.URL)})
	sendChannel(t, w, mark, "spec", "@**Echo Bot** validate me")
	sendDirect(t, w, mark, []chatcore.UserID{echoBot}, "and me")
	drain(t, w)
	reqs := rec.all()
	is.Equal(len(reqs), 2) // two payloads
	for _, r := range reqs {
		var v any
		is.NoErr(json.Unmarshal(r.body, &v)) // JSON
		is.NoErr(schema.VisitJSON(v))        // valid against the spec's payload schema
	}
	// An extra field is caught, so the check can fail.
	var v map[string]any
	is.NoErr(json.Unmarshal(reqs[0].body, &v)) // JSON
	v["message"].(map[string]any)["flags"] = []any{}
	is.True(schema.VisitJSON(any(v)) != nil) // unknown message fields are refused
}
