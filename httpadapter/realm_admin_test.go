package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// TestHTTPRealmUserSettingsDefaults: an administrator's PATCH
// /realm/user_settings_defaults shows in /register, publishes Zulip's
// realm_user_settings_defaults events, is refused to others and with Zulip's
// errors for bad values, and gives accounts created afterwards the new
// defaults while existing accounts keep theirs.
func TestHTTPRealmUserSettingsDefaults(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
		params: params("event_types", `["realm_user_settings_defaults"]`)})
	wantSuccess(t, res)
	queue := res.body["queue_id"].(string)
	defaults := res.body["realm_user_settings_defaults"].(map[string]any)
	is.Equal(defaults["color_scheme"], json.Number("1")) // Zulip's default
	is.Equal(defaults["enter_sends"], false)             // Zulip's default
	is.Equal(defaults["default_language"], "en")         // the realm's language
	_, hasTimezone := defaults["timezone"]
	is.True(!hasTimezone) // the time zone is no realm default

	res = e.do(t, request{method: "PATCH", path: "/realm/user_settings_defaults", auth: &admin, enc: urlEncoded,
		params: params("color_scheme", "3", "enter_sends", "true", "emojiset", "text", "timezone", "Europe/Berlin", "full_name", "x")})
	wantSuccess(t, res)
	is.Equal(ignoredOf(res), []string{"full_name", "timezone"}) // Zulip's view takes neither
	res = e.do(t, request{method: "PATCH", path: "/realm/user_settings_defaults", auth: &admin, enc: urlEncoded,
		params: params("color_scheme", "3")})
	wantSuccess(t, res) // no change is no error

	is.Equal(queuedEvents(t, e, member, queue), []map[string]any{ // one event per changed setting, table order
		{"type": "realm_user_settings_defaults", "op": "update", "property": "color_scheme", "value": json.Number("3")},
		{"type": "realm_user_settings_defaults", "op": "update", "property": "emojiset", "value": "text"},
		{"type": "realm_user_settings_defaults", "op": "update", "property": "enter_sends", "value": true},
	})

	res = e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
		params: params("fetch_event_types", `["realm_user_settings_defaults","user_settings"]`)})
	wantSuccess(t, res)
	defaults = res.body["realm_user_settings_defaults"].(map[string]any)
	is.Equal(defaults["color_scheme"], json.Number("3"))                                   // changed
	is.Equal(defaults["emojiset"], "text")                                                 // changed
	is.Equal(res.body["user_settings"].(map[string]any)["color_scheme"], json.Number("1")) // the member keeps theirs

	for _, tc := range []struct{ key, value, msg string }{
		{"color_scheme", "7", "Invalid color_scheme: Value error, Not in the list of possible values"},
		{"emojiset", "wingdings", "Invalid emojiset: Value error, Not in the list of possible values"},
		{"notification_sound", "nope", "Invalid notification sound 'nope'"},
	} {
		res := e.do(t, request{method: "PATCH", path: "/realm/user_settings_defaults", auth: &admin, enc: urlEncoded, params: params(tc.key, tc.value)})
		wantError(t, res, 400, "BAD_REQUEST", tc.msg)
	}
	res = e.do(t, request{method: "PATCH", path: "/realm/user_settings_defaults", auth: &member, enc: urlEncoded, params: params("color_scheme", "2")})
	wantError(t, res, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")

	// An account created afterwards starts with the realm's defaults.
	res = e.do(t, request{method: "POST", path: "/users", auth: &admin, enc: urlEncoded,
		params: params("email", "newcomer@example.test", "password", strongPassword, "full_name", "New Comer")})
	wantSuccess(t, res)
	res = e.do(t, request{method: "POST", path: "/fetch_api_key", enc: urlEncoded,
		params: params("username", "newcomer@example.test", "password", strongPassword)})
	wantSuccess(t, res)
	newcomer := cred{"newcomer@example.test", res.body["api_key"].(string)}
	res = e.do(t, request{method: "POST", path: "/register", auth: &newcomer, enc: urlEncoded,
		params: params("fetch_event_types", `["user_settings"]`)})
	wantSuccess(t, res)
	mine := res.body["user_settings"].(map[string]any)
	is.Equal(mine["color_scheme"], json.Number("3")) // the realm's default
	is.Equal(mine["enter_sends"], true)              // the realm's default
	is.Equal(mine["emojiset"], "text")               // the realm's default
}

// TestHTTPRealmDeactivation: only an owner deactivates the realm; the realm
// deactivated event goes out, and then every request of its users and GET
// /events are refused (401), password logins with Zulip's
// REALM_DEACTIVATED, its invitation links with a page, while another realm goes on.
func TestHTTPRealmDeactivation(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
		params: params("event_types", `["realm"]`)})
	wantSuccess(t, res)
	queue := res.body["queue_id"].(string)
	wantSuccess(t, e.do(t, request{method: "POST", path: "/invites", auth: &admin, enc: urlEncoded,
		params: params("invitee_emails", "late@example.test", "stream_ids", "[61]")}))
	link := lastLink(t, e, "late@example.test")

	wantError(t, e.do(t, request{method: "POST", path: "/realm/deactivate", auth: &admin}), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner")
	wantError(t, e.do(t, request{method: "POST", path: "/realm/deactivate", auth: &member}), 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner")
	wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &member})) // refusals changed nothing
	wantSuccess(t, e.do(t, request{method: "POST", path: "/realm/deactivate", auth: &owner}))

	evs := e.w.Events.OfType("realm", "op", "deactivated")
	is.Equal(len(evs), 1)                                         // one deactivated event
	is.Equal(evs[0].Data["realm_id"], chatcore.RealmID(1))        // naming the realm
	is.True(slices.Contains(evs[0].UserIDs, chatcore.UserID(14))) // to its active users

	for _, c := range []*cred{&owner, &member, &bot} {
		// Over Basic auth Zulip answers the realm's refusal as 401 UNAUTHORIZED.
		wantError(t, e.do(t, request{method: "GET", path: "/users/me", auth: c}), 401, "UNAUTHORIZED", "This organization has been deactivated")
	}
	res = e.do(t, request{method: "GET", path: "/events", auth: &member, enc: urlEncoded,
		params: params("queue_id", queue, "last_event_id", "-1", "dont_block", "true")})
	wantError(t, res, 401, "UNAUTHORIZED", "This organization has been deactivated") // the queue ends
	res = e.do(t, request{method: "POST", path: "/fetch_api_key", enc: urlEncoded,
		params: params("username", "owner@acme.test", "password", "correct horse battery staple")})
	wantError(t, res, 401, "REALM_DEACTIVATED", "This organization has been deactivated")
	status, body := page(t, e, http.MethodGet, link, nil)
	is.Equal(status, 404)                                                                // the invitation link is refused
	is.True(strings.Contains(body, "This organization has been deactivated"))            // with a clear page
	wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &otherBoss})) // another realm goes on
}
