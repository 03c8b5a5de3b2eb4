package httpadapter_test

import (
	"encoding/json"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// TestHTTPRealmSettings: PATCH /realm changes what /register shows, with
// Zulip's errors for bad values.
func TestHTTPRealmSettings(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	realm := func() map[string]any {
		t.Helper()
		res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
			params: params("fetch_event_types", `["realm"]`)})
		wantSuccess(t, res)
		return res.body
	}
	before := realm()
	res := e.do(t, request{method: "PATCH", path: "/realm", auth: &owner, enc: urlEncoded, params: params(
		"name", "Acme Two", "message_content_edit_limit_seconds", `"unlimited"`, "allow_message_editing", "false",
		"can_create_groups", `{"new":`+num2s(before["realm_can_manage_all_groups"])+`}`)})
	wantSuccess(t, res)
	after := realm()
	is.Equal(after["realm_name"], "Acme Two")                                         // renamed
	is.Equal(after["realm_message_content_edit_limit_seconds"], nil)                  // unlimited
	is.Equal(after["realm_allow_message_editing"], false)                             // editing off
	is.Equal(after["realm_can_create_groups"], before["realm_can_manage_all_groups"]) // role:owners now creates groups
	// Read receipts, stored inverted, follow enable_read_receipts.
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/realm", auth: &admin, enc: urlEncoded, params: params("enable_read_receipts", "false")}))
	is.Equal(realm()["realm_enable_read_receipts"], false)
	wantError(t, e.do(t, request{method: "GET", path: "/messages/1001/read_receipts", auth: &member}), 400, "BAD_REQUEST", "Read receipts are disabled in this organization.")
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/realm", auth: &admin, enc: urlEncoded, params: params("enable_read_receipts", "true")}))
	is.Equal(realm()["realm_enable_read_receipts"], true)
	wantSuccess(t, e.do(t, request{method: "GET", path: "/messages/1001/read_receipts", auth: &member}))
	// The member may no longer create a group.
	res = e.do(t, request{method: "POST", path: "/user_groups/create", auth: &member, enc: urlEncoded,
		params: params("name", "g", "description", "", "members", "[]")})
	wantError(t, res, 400, "BAD_REQUEST", "Insufficient permission")
	for _, tc := range []struct{ key, value, msg string }{
		{"message_content_edit_limit_seconds", "0", "Bad value for 'message_content_edit_limit_seconds': 0"},
		{"name", "This organization name is much longer than forty characters", "Organization name is too long."},
		{"can_add_custom_emoji_group", `{"new":999999}`, "Invalid user group ID: 999999"},
		{"can_delete_any_message_group", `{"new":{"direct_members":[11],"direct_subgroups":[]}}`, "Invalid can_delete_any_message_group"},
	} {
		res := e.do(t, request{method: "PATCH", path: "/realm", auth: &admin, enc: urlEncoded, params: params(tc.key, tc.value)})
		wantError(t, res, 400, "BAD_REQUEST", tc.msg)
	}
	res = e.do(t, request{method: "PATCH", path: "/realm", auth: &member, enc: urlEncoded, params: params("name", "x")})
	wantError(t, res, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
}

// num2s renders a JSON number decoded from a response.
func num2s(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
