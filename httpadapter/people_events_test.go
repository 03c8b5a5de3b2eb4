package httpadapter_test

import (
	"encoding/json"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// The events of people, bots and invitations, as GET /events delivers
// them, match Zulip's description of the events.
func TestPeopleEventsMatchOpenAPI(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	is := is.New(t)
	res := e.do(t, request{method: "POST", path: "/register", auth: &admin, enc: urlEncoded,
		params: params("event_types", `["realm_bot","realm_user","invites_changed"]`)})
	wantSuccess(t, res)
	queue := res.body["queue_id"].(string)

	res = e.do(t, request{method: "POST", path: "/bots", auth: &member, enc: urlEncoded, params: params("full_name", "Ev Bot", "short_name", "ev")})
	wantSuccess(t, res)
	bot := strconv64(num(t, res.body["user_id"]))
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/bots/" + bot, auth: &member, enc: urlEncoded, params: params("full_name", "Ev Bot 2")}))
	wantSuccess(t, e.do(t, request{method: "POST", path: "/bots/" + bot + "/api_key/regenerate", auth: &member}))
	wantSuccess(t, e.do(t, request{method: "DELETE", path: "/bots/" + bot, auth: &member}))
	wantSuccess(t, e.do(t, request{method: "POST", path: "/users", auth: &admin, enc: urlEncoded,
		params: params("email", "ev@example.test", "password", strongPassword, "full_name", "Ev Person")}))
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/users/17", auth: &admin, enc: urlEncoded, params: params("role", "300")}))
	wantSuccess(t, e.do(t, request{method: "POST", path: "/users/16/reactivate", auth: &admin}))
	wantSuccess(t, e.do(t, request{method: "POST", path: "/invites", auth: &member, enc: urlEncoded,
		params: params("invitee_emails", "evi@example.test", "stream_ids", "[61]")}))

	res = e.do(t, request{method: "GET", path: "/events", auth: &admin, enc: urlEncoded,
		params: params("queue_id", queue, "last_event_id", "-1", "dont_block", "true")})
	wantSuccess(t, res)
	// invites_changed is missing from the excerpt: the others are checked.
	var described []any
	for _, ev := range res.body["events"].([]any) {
		if ev.(map[string]any)["type"] != "invites_changed" {
			described = append(described, ev)
		}
	}
	body := map[string]any{"result": "success", "msg": "", "queue_id": queue, "events": described}
	raw, err := json.Marshal(body)
	is.NoErr(err)
	checkDoc(t, servedSpec(t), "GET", "/events", &response{status: res.status, header: res.header, raw: raw, body: body}) // as Zulip describes them
	kinds := map[string]int{}
	for _, ev := range res.body["events"].([]any) {
		m := ev.(map[string]any)
		op, _ := m["op"].(string)
		kinds[m["type"].(string)+"/"+op]++
	}
	is.Equal(kinds["realm_bot/add"], 1)      // the bot's creation
	is.Equal(kinds["realm_bot/update"], 3)   // its rename, key and deactivation
	is.Equal(kinds["realm_user/add"], 2)     // the bot and the person
	is.True(kinds["realm_user/update"] >= 4) // rename, deactivation, role, reactivation
	is.Equal(kinds["invites_changed/"], 1)   // the invitation
}

func strconv64(n int64) string {
	b := []byte{}
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}
