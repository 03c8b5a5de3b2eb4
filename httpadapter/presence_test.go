package httpadapter_test

import (
	"strings"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

func TestHTTPPresence(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	res := e.do(t, request{method: "POST", path: "/users/me/presence", auth: &member, enc: urlEncoded,
		params: params("status", "active", "ping_only", "true", "new_user_input", "true")})
	wantSuccess(t, res)
	is.Equal(len(res.body), 2) // ping_only: just result and msg
	is.NoErr(e.w.Svc.FlushPresence(t.Context()))

	res = e.do(t, request{method: "POST", path: "/users/me/presence", auth: &admin, enc: urlEncoded, params: params("status", "idle")})
	wantSuccess(t, res)
	is.True(res.body["server_timestamp"] != nil)                    // a float of seconds
	is.Equal(num(t, res.body["presence_last_update_id"]), int64(1)) // the member's row
	legacy, _ := res.body["presences"].(map[string]any)
	entry, _ := legacy["member@acme.test"].(map[string]any) // keyed by e-mail
	agg, _ := entry["aggregated"].(map[string]any)
	web, _ := entry["website"].(map[string]any)
	is.Equal(agg["status"], "active")
	is.Equal(agg["client"], "website")
	is.Equal(web["pushable"], false)
	is.Equal(len(agg), 3) // client, status, timestamp
	is.Equal(len(web), 4) // and pushable

	res = e.do(t, request{method: "POST", path: "/users/me/presence", auth: &admin, enc: urlEncoded,
		params: params("status", "idle", "last_update_id", "0")})
	wantSuccess(t, res)
	slim, _ := res.body["presences"].(map[string]any)
	for key, v := range slim {
		is.True(!strings.Contains(key, "@")) // keyed by user id
		p, _ := v.(map[string]any)
		is.Equal(len(p), 2) // active_timestamp, idle_timestamp
		is.True(p["active_timestamp"] != nil && p["idle_timestamp"] != nil)
	}

	res = e.do(t, request{method: "GET", path: "/realm/presence", auth: &guest})
	wantSuccess(t, res)
	_, hasID := res.body["presence_last_update_id"]
	is.True(!hasID) // GET /realm/presence leaves it out
	is.True(res.body["presences"] != nil && res.body["server_timestamp"] != nil)

	res = e.do(t, request{method: "GET", path: "/users/member@acme.test/presence", auth: &guest})
	wantSuccess(t, res)
	p, _ := res.body["presence"].(map[string]any)
	agg, _ = p["aggregated"].(map[string]any)
	is.Equal(len(agg), 2) // status and timestamp only
	is.Equal(agg["status"], "active")
	res = e.do(t, request{method: "GET", path: "/users/14/presence", auth: &guest, params: params("slim_presence", "true")})
	wantSuccess(t, res)
	p, _ = res.body["presence"].(map[string]any)
	is.True(p["active_timestamp"] != nil) // modern format

	res = e.do(t, request{method: "POST", path: "/register", auth: &guest, enc: urlEncoded,
		params: params("fetch_event_types", `["presence"]`, "slim_presence", "true")})
	wantSuccess(t, res)
	checkServed(t, "POST", "/register", withoutKeys(t, res, "event_queue_longpoll_timeout_seconds"))
	is.Equal(num(t, res.body["presence_last_update_id"]), int64(1))
	is.True(res.body["server_timestamp"] != nil)
	reg, _ := res.body["presences"].(map[string]any)
	_, ok := reg["14"]
	is.True(ok) // the member, by id

	for _, c := range []struct {
		method, path string
		auth         *cred
		params       []string
		code, msg    string
	}{
		{"POST", "/users/me/presence", &member, nil, "REQUEST_VARIABLE_MISSING", "Missing 'status' argument"},
		{"POST", "/users/me/presence", &member, []string{"status", "away"}, "BAD_REQUEST", "Invalid status: away"},
		{"POST", "/users/me/presence", &member, []string{"status", "idle", "ping_only", "yes"}, "BAD_REQUEST", "ping_only is not valid JSON"},
		{"POST", "/users/me/presence", &bot, []string{"status", "idle"}, "BAD_REQUEST", "This endpoint does not accept bot requests."},
		{"GET", "/users/nobody@acme.test/presence", &member, nil, "BAD_REQUEST", "No such user"},
		{"GET", "/users/guest@acme.test/presence", &member, nil, "BAD_REQUEST", "No presence data for guest@acme.test"},
	} {
		res := e.do(t, request{method: c.method, path: c.path, auth: c.auth, enc: urlEncoded, params: params(c.params...)})
		wantError(t, res, 400, c.code, c.msg)
	}
}
