package httpadapter_test

import (
	"fmt"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

func TestHTTPReactions(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	id := postMessage(t, e, "ZulipPython/0.9")
	path := fmt.Sprintf("/messages/%d/reactions", id)

	res := e.do(t, request{method: "POST", path: path, auth: &member, enc: urlEncoded, params: params("emoji_name", "octopus")})
	wantSuccess(t, res)
	is.Equal(len(res.body), 2) // just result and msg
	res = e.do(t, request{method: "POST", path: path, auth: &member, enc: urlEncoded,
		params: params("emoji_name", "zulip", "emoji_code", "zulip", "reaction_type", "zulip_extra_emoji")})
	wantSuccess(t, res)

	res = e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", id), auth: &member})
	wantSuccess(t, res)
	checkServed(t, "GET", "/messages/{message_id}", res)
	msg, _ := res.body["message"].(map[string]any)
	reactions, _ := msg["reactions"].([]any)
	is.Equal(len(reactions), 2) // both reactions shown
	first, _ := reactions[0].(map[string]any)
	is.Equal(first["emoji_name"], "octopus")          // name
	is.Equal(first["emoji_code"], "1f419")            // code looked up
	is.Equal(first["reaction_type"], "unicode_emoji") // type looked up
	is.Equal(len(first), 4)                           // emoji_name, emoji_code, reaction_type, user_id

	res = e.do(t, request{method: "GET", path: "/messages", auth: &member, params: params("anchor", "newest", "num_before", "1", "num_after", "0")})
	wantSuccess(t, res)
	checkServed(t, "GET", "/messages", res)

	res = e.do(t, request{method: "DELETE", path: path, auth: &member, enc: urlEncoded, params: params("emoji_name", "octopus")})
	wantSuccess(t, res)
	res = e.do(t, request{method: "DELETE", path: path, auth: &member, enc: urlEncoded, params: params("emoji_code", "zulip", "reaction_type", "zulip_extra_emoji")})
	wantSuccess(t, res)

	for _, c := range []struct {
		method, path string
		params       []string
		status       int
		code, msg    string
	}{
		{"POST", path, nil, 400, "REQUEST_VARIABLE_MISSING", "Missing 'emoji_name' argument"},
		{"POST", path, []string{"emoji_name", "nosuchemoji"}, 400, "BAD_REQUEST", "Emoji 'nosuchemoji' does not exist"},
		{"POST", path, []string{"emoji_name", "octopus", "emoji_code", "1f600", "reaction_type", "unicode_emoji"}, 400, "BAD_REQUEST", "Invalid emoji name."},
		{"POST", "/messages/999999/reactions", []string{"emoji_name", "octopus"}, 400, "BAD_REQUEST", "Invalid message(s)"},
		{"DELETE", path, nil, 400, "BAD_REQUEST", "At least one of the following arguments must be present: emoji_name, emoji_code"},
		{"DELETE", path, []string{"emoji_name", "octopus"}, 400, "REACTION_DOES_NOT_EXIST", "Reaction doesn't exist."},
	} {
		res := e.do(t, request{method: c.method, path: c.path, auth: &member, enc: urlEncoded, params: params(c.params...)})
		wantError(t, res, c.status, c.code, c.msg)
	}
	res = e.do(t, request{method: "POST", path: path, auth: &member, enc: urlEncoded, params: params("emoji_name", "octopus")})
	wantSuccess(t, res)
	res = e.do(t, request{method: "POST", path: path, auth: &member, enc: urlEncoded, params: params("emoji_name", "octopus")})
	wantError(t, res, 400, "REACTION_ALREADY_EXISTS", "Reaction already exists.")
}
