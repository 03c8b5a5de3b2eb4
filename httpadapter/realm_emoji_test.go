package httpadapter_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/matryer/is"
)

func TestHTTPRealmEmoji(t *testing.T) {
	is := is.New(t)
	e, _ := uploadEnv(t)
	img := pngBytes(t, 32, 32)
	wantSuccess(t, e.postFiles(t, member, "/api/v1/realm/emoji/party_parrot", filePart{field: "f", name: "parrot.png", data: img}))

	list := e.do(t, request{method: "GET", path: "/realm/emoji", auth: &guest})
	wantSuccess(t, list)
	emoji := list.body["emoji"].(map[string]any)
	is.Equal(len(emoji), 1)
	var id string
	var view map[string]any
	for k, v := range emoji {
		id, view = k, v.(map[string]any)
	}
	is.Equal(view["id"], id)
	is.Equal(view["name"], "party_parrot")
	is.Equal(view["deactivated"], false)
	is.Equal(num(t, view["author_id"]), int64(14)) // the member
	r, body := e.get(t, view["source_url"].(string), nil)
	is.Equal(r.StatusCode, http.StatusOK) // public, as in Zulip
	is.Equal(r.Header.Get("Content-Type"), "image/png")
	is.True(bytes.Equal(body, img))

	reg := e.do(t, request{method: "POST", path: "/register", auth: &admin, enc: urlEncoded, params: params("fetch_event_types", `["realm_emoji"]`)})
	wantSuccess(t, reg)
	is.Equal(len(reg.body["realm_emoji"].(map[string]any)), 1) // the section

	// A reaction by name finds the custom emoji.
	sent := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
		params: params("type", "stream", "to", "general", "topic", "emoji", "content", "hi")})
	wantSuccess(t, sent)
	msg := "/messages/" + sent.body["id"].(interface{ String() string }).String()
	wantSuccess(t, e.do(t, request{method: "POST", path: msg + "/reactions", auth: &admin, enc: urlEncoded, params: params("emoji_name", "party_parrot")}))
	got := e.do(t, request{method: "GET", path: msg, auth: &admin})
	reaction := got.body["message"].(map[string]any)["reactions"].([]any)[0].(map[string]any)
	is.Equal(reaction["reaction_type"], "realm_emoji")
	is.Equal(reaction["emoji_code"], id)
	sent2 := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
		params: params("type", "stream", "to", "general", "topic", "emoji", "content", "again")})
	msg2 := "/messages/" + sent2.body["id"].(interface{ String() string }).String()
	wantError(t, e.do(t, request{method: "POST", path: msg2 + "/reactions", auth: &owner, enc: urlEncoded,
		params: params("emoji_name", "parrot", "emoji_code", id, "reaction_type", "realm_emoji")}), 400, "BAD_REQUEST", "Invalid custom emoji name.")
	wantError(t, e.do(t, request{method: "POST", path: msg2 + "/reactions", auth: &owner, enc: urlEncoded,
		params: params("emoji_name", "parrot", "emoji_code", "999", "reaction_type", "realm_emoji")}), 400, "BAD_REQUEST", "Invalid custom emoji.")

	for _, c := range []struct {
		who  cred
		name string
		data []byte
		msg  string
	}{
		{member, "party_parrot", img, "A custom emoji with this name already exists."},
		{guest, "guest_emoji", img, "Insufficient permission"},
		{member, "Bad", img, "Emoji names must contain only lowercase English letters, digits, spaces, dashes, and underscores."},
		{member, "ends_", img, "Emoji names must end with either a letter or digit."},
		{member, "not_an_image", []byte("<svg onload=alert(1)>"), "Invalid image format"},
		{member, "bomb", pngHeader(50000, 50000), "Image size exceeds limit."},
	} {
		wantError(t, e.postFiles(t, c.who, "/api/v1/realm/emoji/"+c.name, filePart{field: "f", name: "x.png", data: c.data}), 400, "BAD_REQUEST", c.msg)
	}
	wantError(t, e.postFiles(t, member, "/api/v1/realm/emoji/nofile", filePart{field: "f", data: []byte("x")}), 400, "BAD_REQUEST", "You must upload exactly one file.")

	wantError(t, e.do(t, request{method: "DELETE", path: "/realm/emoji/party_parrot", auth: &moderator}), 400, "BAD_REQUEST", "Must be an organization administrator or emoji author")
	wantError(t, e.do(t, request{method: "DELETE", path: "/realm/emoji/nope", auth: &admin}), 400, "BAD_REQUEST", "Emoji 'nope' does not exist")
	wantSuccess(t, e.do(t, request{method: "DELETE", path: "/realm/emoji/party_parrot", auth: &admin}))
	list = e.do(t, request{method: "GET", path: "/realm/emoji", auth: &member})
	is.Equal(list.body["emoji"].(map[string]any)[id].(map[string]any)["deactivated"], true) // kept, deactivated
	r, _ = e.get(t, view["source_url"].(string), nil)
	is.Equal(r.StatusCode, http.StatusOK) // old reactions still show it
	wantError(t, e.do(t, request{method: "POST", path: msg2 + "/reactions", auth: &owner, enc: urlEncoded,
		params: params("emoji_name", "party_parrot", "emoji_code", id, "reaction_type", "realm_emoji")}), 400, "BAD_REQUEST", "This custom emoji has been deactivated.")
	wantSuccess(t, e.postFiles(t, member, "/api/v1/realm/emoji/party_parrot", filePart{field: "f", name: "again.png", data: img})) // the name is free again
}
