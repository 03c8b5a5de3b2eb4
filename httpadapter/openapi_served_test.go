package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// servedCase is one request to one route, validated against Zulip's
// description of the operation.
type servedCase struct {
	route    string // the pattern in routes.go
	name     string
	template string // the operation's path in the excerpt; "" means the route's path
	auth     *cred
	// path builds the request path (below /api/v1) on the env; nil means
	// the route's path as is.
	path   func(tb testing.TB, e *env) string
	params func(tb testing.TB, e *env) url.Values
	status int
	// dropKeys are removed from the answer before the check: keys Zulip's
	// server sends that the description of the operation leaves out.
	dropKeys []string
}

// notDescribed are the routes the served excerpt does not describe.
var notDescribed = map[string]string{
	"GET /accounts/confirm_new_email/{key}":                     "the e-mail confirmation link is a web page of Zulip's, not an API operation",
	"POST /api/v1/messages/flags":                               "not in the served excerpt; TestHTTPMessageFlags checks its answer's fields",
	"POST /api/v1/messages/flags/narrow":                        "not in the served excerpt; TestHTTPMessageFlags checks its answer's fields",
	"GET /api/v1/streams":                                       "not in the served excerpt; TestHTTPChannels checks its answer's fields",
	"GET /api/v1/streams/{stream_id}":                           "not in the served excerpt; TestHTTPChannels checks its answer's fields",
	"GET /api/v1/users/me/subscriptions":                        "not in the served excerpt; TestHTTPSubscriptions checks its answer's fields",
	"POST /api/v1/users/me/subscriptions":                       "not in the served excerpt; TestHTTPSubscriptions checks its answer's fields",
	"DELETE /api/v1/users/me/subscriptions":                     "not in the served excerpt; TestHTTPSubscriptions checks its answer's fields",
	"POST /api/v1/users/me/subscriptions/properties":            "not in the served excerpt; TestHTTPSubscriptions checks its answer's fields",
	"GET /api/v1/users/me/{stream_id}/topics":                   "not in the served excerpt; TestHTTPChannels checks its answer's fields",
	"GET /api/v1/messages/{message_id}/history":                 "not in the served excerpt; TestHTTPMessageHistory checks its answer's fields",
	"POST /api/v1/messages/{message_id}/reactions":              "not in the served excerpt; TestHTTPReactions checks its answers",
	"DELETE /api/v1/messages/{message_id}/reactions":            "not in the served excerpt; TestHTTPReactions checks its answers",
	"GET /api/v1/messages/{message_id}/read_receipts":           "not in the served excerpt; TestHTTPReadReceipts checks its answers",
	"POST /api/v1/submessage":                                   "not in the served excerpt; TestHTTPSubmessages checks its answers and events",
	"GET /api/v1/drafts":                                        "not in the served excerpt; TestHTTPDrafts checks its answers",
	"POST /api/v1/drafts":                                       "not in the served excerpt; TestHTTPDrafts checks its answers and events",
	"PATCH /api/v1/drafts/{draft_id}":                           "not in the served excerpt; TestHTTPDrafts checks its answers and events",
	"DELETE /api/v1/drafts/{draft_id}":                          "not in the served excerpt; TestHTTPDrafts checks its answers and events",
	"POST /api/v1/users/me/presence":                            "not in the served excerpt; TestHTTPPresence checks its answers",
	"GET /api/v1/realm/presence":                                "not in the served excerpt; TestHTTPPresence checks its answers",
	"GET /api/v1/users/{user_id_or_email}/presence":             "not in the served excerpt; TestHTTPPresence checks its answers",
	"GET /api/v1/events":                                        "not in the served excerpt; TestHTTPEvents checks its answers and errors",
	"DELETE /api/v1/events":                                     "not in the served excerpt; TestHTTPEvents checks its answers and errors",
	"POST /api/v1/typing":                                       "not in the served excerpt; TestHTTPTyping checks its answers and errors",
	"GET /api/v1/streams/{stream_id}/members":                   "not in the served excerpt; TestHTTPChannelAdmin and the authorization matrix check its answers",
	"PATCH /api/v1/realm":                                       "not in the served excerpt; TestHTTPRealmSettings and the authorization matrix check its answers",
	"PATCH /api/v1/realm/user_settings_defaults":                "not in the served excerpt; TestHTTPRealmUserSettingsDefaults and the authorization matrix check its answers",
	"POST /api/v1/realm/deactivate":                             "not in the served excerpt; TestHTTPRealmDeactivation and the authorization matrix check its answers",
	"POST /api/v1/default_streams":                              "not in the served excerpt; TestHTTPDefaultChannels and the authorization matrix check its answers",
	"DELETE /api/v1/default_streams":                            "not in the served excerpt; TestHTTPDefaultChannels and the authorization matrix check its answers",
	"GET /api/v1/user_groups":                                   userGroupsUndescribed,
	"POST /api/v1/user_groups/create":                           userGroupsUndescribed,
	"PATCH /api/v1/user_groups/{user_group_id}":                 userGroupsUndescribed,
	"POST /api/v1/user_groups/{user_group_id}/deactivate":       userGroupsUndescribed,
	"POST /api/v1/user_groups/{user_group_id}/members":          userGroupsUndescribed,
	"GET /api/v1/user_groups/{user_group_id}/members":           userGroupsUndescribed,
	"GET /api/v1/user_groups/{user_group_id}/members/{user_id}": userGroupsUndescribed,
	"POST /api/v1/user_groups/{user_group_id}/subgroups":        userGroupsUndescribed,
	"GET /api/v1/user_groups/{user_group_id}/subgroups":         userGroupsUndescribed,
	"POST /api/v1/user_uploads":                                 "not in the served excerpt; TestHTTPUploads checks its answers and errors",
	"POST /api/v1/users/me/avatar":                              "not in the served excerpt; TestHTTPAvatars checks its answers, errors and events",
	"DELETE /api/v1/users/me/avatar":                            "not in the served excerpt; TestHTTPAvatars checks its answers and events",
	"GET /user_avatars/{realm_id}/{file}":                       "a served file, not an API operation; TestHTTPAvatars checks its bytes and headers",
	"POST /api/v1/realm/icon":                                   "not in the served excerpt; TestHTTPRealmIcon checks its answers, errors and events",
	"DELETE /api/v1/realm/icon":                                 "not in the served excerpt; TestHTTPRealmIcon checks its answers and events",
	"GET /user_avatars/{realm_id}/realm/icon.png":               "a served file, not an API operation; TestHTTPRealmIcon checks its bytes and headers",
	"GET /api/v1/user_uploads/{realm_id}/{path...}":             "not in the served excerpt; TestHTTPUploads checks its answers and errors",
	"GET /user_uploads/{realm_id}/{path...}":                    "serves the file itself, not JSON; TestHTTPUploads checks it",
	"GET /user_uploads/thumbnail/{realm_id}/{path...}":          "serves the image itself, not JSON; TestHTTPThumbnails checks it",
	"GET /user_uploads/temporary/{token}/{filename}":            "serves the file itself, not JSON; TestHTTPUploads checks it",
	"GET /api/v1/attachments":                                   "not in the served excerpt; TestHTTPUploads checks its answers",
	"GET /api/v1/realm/emoji":                                   "not in the served excerpt; TestHTTPRealmEmoji checks its answers",
	"POST /api/v1/realm/emoji/{emoji_name}":                     "not in the served excerpt; TestHTTPRealmEmoji checks its answers and errors",
	"DELETE /api/v1/realm/emoji/{emoji_name}":                   "not in the served excerpt; TestHTTPRealmEmoji checks its answers and errors",
	"GET /user_avatars/{realm_id}/emoji/images/{file}":          "serves the image itself, not JSON; TestHTTPRealmEmoji checks it",
	"DELETE /api/v1/attachments/{attachment_id}":                "not in the served excerpt; TestHTTPUploads checks its answers and errors",
	"POST /api/v1/users/{user_id}/reactivate":                   "not in the served excerpt; TestHTTPPeople checks its answers",
	"GET /api/v1/users/{user_id}/subscriptions/{stream_id}":     "not in the served excerpt; TestHTTPPeople checks its answers",
	"POST /api/v1/users/me/api_key/regenerate":                  "not in the served excerpt; TestHTTPPeople checks its answers",
	"GET /api/v1/bots":                                          "not in the served excerpt; TestHTTPBots checks its answers",
	"POST /api/v1/bots":                                         "not in the served excerpt; TestHTTPBots checks its answers",
	"PATCH /api/v1/bots/{bot_id}":                               "not in the served excerpt; TestHTTPBots checks its answers",
	"DELETE /api/v1/bots/{bot_id}":                              "not in the served excerpt; TestHTTPBots checks its answers",
	"POST /api/v1/bots/{bot_id}/api_key/regenerate":             "not in the served excerpt; TestHTTPBots checks its answers",
	"GET /api/v1/invites":                                       "not in the served excerpt; TestHTTPInvites checks its answers",
	"POST /api/v1/invites":                                      "not in the served excerpt; TestHTTPInvites checks its answers",
	"DELETE /api/v1/invites/{invite_id}":                        "not in the served excerpt; TestHTTPInvites checks its answers",
	"POST /api/v1/invites/{invite_id}/resend":                   "not in the served excerpt; TestHTTPInvites checks its answers",
	"POST /api/v1/invites/multiuse":                             "not in the served excerpt; TestHTTPInvites checks its answers",
	"DELETE /api/v1/invites/multiuse/{invite_id}":               "not in the served excerpt; TestHTTPInvites checks its answers",
	"GET /api/v1/messages/matches_narrow":                       "not in Zulip's OpenAPI description; TestHTTPSearch checks its answers and errors",
	"POST /api/v1/fetch_api_key":                                "not in the served excerpt; TestFetchAPIKey checks its answers",
}

// userGroupsUndescribed says why the user group routes are not validated
// against the served excerpt.
const userGroupsUndescribed = "not in the served excerpt; TestHTTPUserGroups and the authorization matrix check its answers"

// noError are the routes that answer every well-formed request with success,
// so no request of theirs can be an error of the operation.
var noError = map[string]string{
	"GET /api/v1/server_settings": "public and parameterless: Zulip describes no error for it",
}

// fixedPath returns a constant path.
func fixedPath(p string) func(testing.TB, *env) string {
	return func(testing.TB, *env) string { return p }
}

// with returns constant parameters.
func with(kv ...string) func(testing.TB, *env) url.Values {
	return func(testing.TB, *env) url.Values { return params(kv...) }
}

// created posts a request that must succeed and returns the id it answers
// under key.
func created(tb testing.TB, e *env, auth *cred, path, key string, kv ...string) int64 {
	tb.Helper()
	res := e.do(tb, request{method: "POST", path: path, auth: auth, enc: urlEncoded, params: params(kv...)})
	wantSuccess(tb, res)
	return num(tb, res.body[key])
}

// inAnHour is a delivery time an hour from now.
func inAnHour() string { return strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10) }

func scheduledID(tb testing.TB, e *env) int64 {
	return created(tb, e, &member, "/scheduled_messages", "scheduled_message_id",
		"type", "stream", "to", "61", "topic", "t", "content", "later", "scheduled_delivery_timestamp", inAnHour())
}

func messageID(tb testing.TB, e *env) int64 {
	return created(tb, e, &member, "/messages", "id", "type", "stream", "to", "general", "topic", "t", "content", "hi")
}

func linkifierID(tb testing.TB, e *env) int64 {
	return created(tb, e, &admin, "/realm/filters", "id", "pattern", `ZZ-(?P<id>[0-9]+)`, "url_template", "https://example.com/{id}")
}

// validationErrors is the "errors" key of Zulip's ValidationFailureError
// (code BAD_REQUEST), which linkifier refusals carry; the description of
// POST /realm/filters lists no 400, and the generic errors leave it out.
const validationErrors = "errors"

func servedCases() []servedCase {
	idPath := func(prefix string, id func(testing.TB, *env) int64) func(testing.TB, *env) string {
		return func(tb testing.TB, e *env) string { return fmt.Sprintf("%s/%d", prefix, id(tb, e)) }
	}
	return []servedCase{
		{route: "GET /api/v1/server_settings", name: "ok", status: 200},

		{route: "POST /api/v1/register", name: "ok, partial unquoted", auth: &member, status: 200,
			params: with("include_subscribers", "partial", "fetch_event_types", `["realm_linkifiers","scheduled_messages","reminders"]`)},
		{route: "POST /api/v1/register", name: "bad include_subscribers", auth: &member, status: 400,
			params: with("include_subscribers", `"all"`)},

		{route: "PATCH /api/v1/settings", name: "ok", auth: &member, status: 200, params: with("twenty_four_hour_time", "true")},
		{route: "PATCH /api/v1/settings", name: "bad value", auth: &member, status: 400, params: with("color_scheme", "9")},
		{route: "PATCH /api/v1/settings/display", template: "/settings", name: "ok", auth: &member, status: 200, params: with("color_scheme", "2")},
		{route: "PATCH /api/v1/settings/display", template: "/settings", name: "bad value", auth: &member, status: 400, params: with("color_scheme", "9")},
		{route: "PATCH /api/v1/settings/notifications", template: "/settings", name: "ok", auth: &member, status: 200, params: with("enable_sounds", "false")},
		{route: "PATCH /api/v1/settings/notifications", template: "/settings", name: "bad value", auth: &member, status: 400, params: with("enable_sounds", "maybe")},

		{route: "POST /api/v1/streams/{stream_id}/delete_topic", name: "ok", auth: &admin, path: fixedPath("/streams/61/delete_topic"), status: 200, params: with("topic_name", "nothing here")},
		{route: "POST /api/v1/streams/{stream_id}/delete_topic", name: "missing topic_name", auth: &admin, path: fixedPath("/streams/61/delete_topic"), status: 400},

		{route: "POST /api/v1/messages", name: "ok", auth: &member, status: 200, params: with("type", "stream", "to", "general", "topic", "t", "content", "hi")},
		{route: "POST /api/v1/messages", name: "missing content", auth: &member, status: 400, params: with("type", "stream", "to", "general", "topic", "t")},
		{route: "GET /api/v1/messages", name: "ok", auth: &member, status: 200,
			params: func(tb testing.TB, e *env) url.Values {
				messageID(tb, e)
				return params("anchor", "newest", "num_before", "5", "num_after", "0")
			}},
		{route: "GET /api/v1/messages", name: "bad num_before", auth: &member, status: 400, params: with("num_before", "x")},
		{route: "GET /api/v1/messages/{message_id}", name: "ok", auth: &member, status: 200, path: idPath("/messages", messageID)},
		{route: "GET /api/v1/messages/{message_id}", name: "unknown", auth: &member, status: 400, path: fixedPath("/messages/999999")},
		{route: "PATCH /api/v1/messages/{message_id}", name: "ok", auth: &member, status: 200, path: idPath("/messages", messageID),
			params: with("content", "edited", "topic", "moved")},
		{route: "PATCH /api/v1/messages/{message_id}", name: "nothing to change", auth: &member, status: 400, path: idPath("/messages", messageID)},
		{route: "DELETE /api/v1/messages/{message_id}", name: "ok", auth: &member, status: 200, path: idPath("/messages", messageID)},
		{route: "DELETE /api/v1/messages/{message_id}", name: "unknown", auth: &member, status: 400, path: fixedPath("/messages/999999")},

		{route: "GET /api/v1/users/me", name: "ok", auth: &member, status: 200},
		{route: "GET /api/v1/users/me", name: "ok, bot", auth: &bot, status: 200},
		{route: "GET /api/v1/users/me", name: "deactivated", auth: &gone, status: 401},
		{route: "GET /api/v1/users", name: "ok", auth: &member, status: 200, params: with("include_custom_profile_fields", "true")},
		{route: "GET /api/v1/users", name: "ok, user_ids", auth: &guest, status: 200, params: with("user_ids", "[11,31,999]")},
		{route: "GET /api/v1/users", name: "bad user_ids", auth: &member, status: 400, params: with("user_ids", "11")},
		{route: "GET /api/v1/users/{user_id}", name: "ok", auth: &member, status: 200, path: fixedPath("/users/14")},
		{route: "GET /api/v1/users/{user_id}", name: "unknown", auth: &member, status: 400, path: fixedPath("/users/999")},
		{route: "GET /api/v1/users/{email}", name: "ok", auth: &member, status: 200, path: fixedPath("/users/target@acme.test")},
		{route: "GET /api/v1/users/{email}", name: "unknown", auth: &member, status: 400, path: fixedPath("/users/nobody@acme.test")},
		{route: "DELETE /api/v1/users/{user_id}", name: "ok", auth: &admin, status: 200, path: fixedPath("/users/17")},
		{route: "DELETE /api/v1/users/{user_id}", name: "unknown", auth: &admin, status: 400, path: fixedPath("/users/999")},

		{route: "GET /api/v1/scheduled_messages", name: "ok", auth: &member, status: 200,
			params: func(tb testing.TB, e *env) url.Values { scheduledID(tb, e); return nil }},
		{route: "GET /api/v1/scheduled_messages", name: "deactivated", auth: &gone, status: 401},
		{route: "POST /api/v1/scheduled_messages", name: "ok", auth: &member, status: 200,
			params: func(testing.TB, *env) url.Values {
				return params("type", "direct", "to", "[13]", "content", "later", "scheduled_delivery_timestamp", inAnHour())
			}},
		{route: "POST /api/v1/scheduled_messages", name: "missing to", auth: &member, status: 400,
			params: with("type", "direct", "content", "later", "scheduled_delivery_timestamp", "1")},
		{route: "DELETE /api/v1/scheduled_messages/{scheduled_message_id}", name: "ok", auth: &member, status: 200, path: idPath("/scheduled_messages", scheduledID)},
		{route: "DELETE /api/v1/scheduled_messages/{scheduled_message_id}", name: "unknown", auth: &member, status: 404, path: fixedPath("/scheduled_messages/999999")},
		{route: "PATCH /api/v1/scheduled_messages/{scheduled_message_id}", name: "ok", auth: &member, status: 200, path: idPath("/scheduled_messages", scheduledID),
			params: with("content", "edited", "type", "direct", "to", "[13,14]")},
		{route: "PATCH /api/v1/scheduled_messages/{scheduled_message_id}", name: "nothing to change", auth: &member, status: 400, path: idPath("/scheduled_messages", scheduledID)},
		{route: "PATCH /api/v1/scheduled_messages/{scheduled_message_id}", name: "unknown", auth: &member, status: 404, path: fixedPath("/scheduled_messages/999999"), params: with("content", "x")},

		{route: "GET /api/v1/reminders", name: "ok", auth: &member, status: 200},
		{route: "GET /api/v1/reminders", name: "deactivated", auth: &gone, status: 401},
		{route: "POST /api/v1/reminders", name: "ok", auth: &member, status: 200,
			params: func(tb testing.TB, e *env) url.Values {
				return params("message_id", strconv.FormatInt(messageID(tb, e), 10), "scheduled_delivery_timestamp", inAnHour())
			}},
		{route: "POST /api/v1/reminders", name: "missing message_id", auth: &member, status: 400, params: func(testing.TB, *env) url.Values {
			return params("scheduled_delivery_timestamp", inAnHour())
		}},
		{route: "DELETE /api/v1/reminders/{reminder_id}", name: "ok", auth: &member, status: 200,
			path: idPath("/reminders", func(tb testing.TB, e *env) int64 {
				return created(tb, e, &member, "/reminders", "reminder_id", "message_id", strconv.FormatInt(messageID(tb, e), 10), "scheduled_delivery_timestamp", inAnHour())
			})},
		{route: "DELETE /api/v1/reminders/{reminder_id}", name: "unknown", auth: &member, status: 404, path: fixedPath("/reminders/999999")},

		{route: "GET /api/v1/realm/linkifiers", name: "ok", auth: &member, status: 200,
			params: func(tb testing.TB, e *env) url.Values { linkifierID(tb, e); return nil }},
		{route: "GET /api/v1/realm/linkifiers", name: "deactivated", auth: &gone, status: 401},
		{route: "PATCH /api/v1/realm/linkifiers", name: "ok", auth: &admin, status: 200,
			params: func(tb testing.TB, e *env) url.Values {
				linkifierID(tb, e)
				res := e.do(tb, request{method: "GET", path: "/realm/linkifiers", auth: &admin})
				wantSuccess(tb, res)
				var ids []string
				for _, l := range res.body["linkifiers"].([]any) {
					ids = append(ids, strconv.FormatInt(num(tb, l.(map[string]any)["id"]), 10))
				}
				slices.Reverse(ids)
				return params("ordered_linkifier_ids", "["+strings.Join(ids, ",")+"]")
			}},
		{route: "PATCH /api/v1/realm/linkifiers", name: "bad list", auth: &admin, status: 400, params: with("ordered_linkifier_ids", "x")},
		{route: "POST /api/v1/realm/filters", name: "ok", auth: &admin, status: 200, params: with("pattern", `ZZ-(?P<id>[0-9]+)`, "url_template", "https://example.com/{id}")},
		{route: "POST /api/v1/realm/filters", name: "bad pattern", auth: &admin, status: 400, dropKeys: []string{validationErrors}, params: with("pattern", "(", "url_template", "https://example.com/")},
		{route: "PATCH /api/v1/realm/filters/{filter_id}", name: "ok", auth: &admin, status: 200, path: idPath("/realm/filters", linkifierID),
			params: with("pattern", `!(?P<id>[0-9]+)`, "url_template", "https://example.com/{id}")},
		{route: "PATCH /api/v1/realm/filters/{filter_id}", name: "unknown", auth: &admin, status: 400, path: fixedPath("/realm/filters/999999"),
			params: with("pattern", `!(?P<id>[0-9]+)`, "url_template", "https://example.com/{id}")},
		{route: "DELETE /api/v1/realm/filters/{filter_id}", name: "ok", auth: &admin, status: 200, path: idPath("/realm/filters", linkifierID)},
		{route: "DELETE /api/v1/realm/filters/{filter_id}", name: "unknown", auth: &admin, status: 400, path: fixedPath("/realm/filters/999999")},
		{route: "PATCH /api/v1/streams/{stream_id}", name: "ok", auth: &admin, status: 200, path: fixedPath("/streams/61"),
			params: with("new_name", "renamed", "description", "about")},
		{route: "PATCH /api/v1/streams/{stream_id}", name: "unknown", auth: &admin, status: 400, path: fixedPath("/streams/999999"),
			params: with("description", "about")},
		{route: "PATCH /api/v1/streams/{stream_id}", name: "not an administrator", auth: &member, status: 400, path: fixedPath("/streams/61"),
			params: with("description", "about")},
		{route: "DELETE /api/v1/streams/{stream_id}", name: "ok", auth: &admin, status: 200, path: fixedPath("/streams/61")},
		{route: "DELETE /api/v1/streams/{stream_id}", name: "unknown", auth: &admin, status: 400, path: fixedPath("/streams/999999")},

		{route: "POST /api/v1/users", name: "ok", auth: &admin, status: 200,
			params: with("email", "served@example.test", "password", "Correct-Horse-Battery-42", "full_name", "Served Person")},
		{route: "PATCH /api/v1/users/{user_id}", name: "ok", auth: &admin, status: 200, path: fixedPath("/users/17"), params: with("full_name", "Pat Renamed")},
		{route: "PATCH /api/v1/users/{user_id}", name: "unknown", auth: &admin, status: 400, path: fixedPath("/users/999"), params: with("full_name", "Pat Renamed")},
		{route: "POST /api/v1/users", name: "not allowed", auth: &member, status: 400,
			params: with("email", "served@example.test", "password", "Correct-Horse-Battery-42", "full_name", "Served Person")},
	}
}

// TestServedRoutesMatchOpenAPI drives every route the adapter serves with at
// least one successful and one refused request (or says why it has none) and
// validates each answer against Zulip's description of the operation in the
// served excerpt.
func TestServedRoutesMatchOpenAPI(t *testing.T) {
	doc := servedSpec(t)
	cases := servedCases()
	t.Run("every route is covered", func(t *testing.T) {
		is := is.New(t)
		ok, refused := map[string]bool{}, map[string]bool{}
		for _, c := range cases {
			if c.status == 200 {
				ok[c.route] = true
			} else {
				refused[c.route] = true
			}
		}
		for _, route := range httpadapter.RoutePatterns() {
			if reason, skip := notDescribed[route]; skip {
				t.Logf("%s: not described (%s)", route, reason)
				continue
			}
			_, noErr := noError[route]
			if !ok[route] || !refused[route] && !noErr {
				t.Errorf("%s: success %v, error %v", route, ok[route], refused[route])
			}
			is.True(ok[route] && (refused[route] || noErr)) // the route is driven both ways
		}
	})
	for _, c := range cases {
		t.Run(c.route+"/"+c.name, func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, httpadapter.Options{})
			method, pattern, _ := strings.Cut(c.route, " ")
			template := c.template
			if template == "" {
				template = strings.TrimPrefix(pattern, "/api/v1")
			}
			path := template
			if c.path != nil {
				path = c.path(t, e)
			}
			var p url.Values
			if c.params != nil {
				p = c.params(t, e)
			}
			res := e.do(t, request{method: method, path: path, auth: c.auth, enc: urlEncoded, params: p})
			if res.status != c.status {
				t.Logf("%s %s: %s", method, path, res.raw)
			}
			is.Equal(res.status, c.status) // the expected outcome
			if len(c.dropKeys) > 0 {
				var body map[string]any
				is.NoErr(json.Unmarshal(res.raw, &body)) // a JSON object
				for _, k := range c.dropKeys {
					delete(body, k)
				}
				raw, err := json.Marshal(body)
				is.NoErr(err)
				res.raw = raw
			}
			checkDoc(t, doc, method, template, res)
		})
	}
}
