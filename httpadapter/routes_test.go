package httpadapter_test

import (
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

func TestUsers(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("me", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users/me", auth: &member})
		wantSuccess(t, res)
		is.Equal(num(t, res.body["user_id"]), int64(14))               // the caller
		is.Equal(res.body["full_name"], "Mia Member")                  // their name
		is.Equal(res.body["delivery_email"], "member@acme.test")       // their own address
		is.Equal(num(t, res.body["role"]), int64(chatcore.RoleMember)) // member role number
		is.Equal(res.body["is_bot"], false)                            // a human
		for _, k := range []string{"email", "is_admin", "is_owner", "is_guest", "is_active", "timezone", "avatar_url", "date_joined"} {
			_, ok := res.body[k]
			is.True(ok) // every field clients read is present
		}
	})
	t.Run("bot as caller", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users/me", auth: &bot})
		wantSuccess(t, res)
		is.Equal(res.body["is_bot"], true) // bots authenticate like humans
	})
	t.Run("one user", func(t *testing.T) {
		is := is.New(t)
		for _, id := range []string{"31", "16", "12"} {
			res := e.do(t, request{method: "GET", path: "/users/" + id, auth: &member})
			wantSuccess(t, res)
			u := res.body["user"].(map[string]any)
			is.Equal(strconv.FormatInt(num(t, u["user_id"]), 10), id) // bots and deactivated users included
		}
	})
	t.Run("unknown or other realm", func(t *testing.T) {
		for _, id := range []string{"9999", "21"} {
			res := e.do(t, request{method: "GET", path: "/users/" + id, auth: &member})
			wantError(t, res, 400, "BAD_REQUEST", "No such user")
		}
	})
	t.Run("all", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users", auth: &member})
		wantSuccess(t, res)
		var ids []int64
		for _, m := range res.body["members"].([]any) {
			ids = append(ids, num(t, m.(map[string]any)["user_id"]))
		}
		is.Equal(ids, []int64{11, 12, 13, 14, 15, 16, 17, 31, 32}) // every user and bot of the realm, by id
	})
}

func TestUpdateSettings(t *testing.T) {
	for _, enc := range encodings {
		t.Run(enc.String(), func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, httpadapter.Options{})
			res := e.do(t, request{method: "PATCH", path: "/settings", auth: &member, enc: enc,
				params: params("color_scheme", "2", "enter_sends", "true", "default_language", "de", "dense_mode", "true", "zzz", "1")})
			wantSuccess(t, res)
			checkSpec(t, "PATCH", "/settings", res)
			is.Equal(ignoredOf(res), []string{"dense_mode", "zzz"}) // unknown names reported, sorted

			reg := e.do(t, request{method: "POST", path: "/register", auth: &member})
			wantSuccess(t, reg)
			s := reg.body["user_settings"].(map[string]any)
			is.Equal(num(t, s["color_scheme"]), int64(2)) // stored
			is.Equal(s["enter_sends"], true)              // stored
			is.Equal(s["default_language"], "de")         // stored
		})
	}
	e := newEnv(t, httpadapter.Options{})
	t.Run("aliases", func(t *testing.T) {
		for _, p := range []string{"/settings/display", "/settings/notifications"} {
			res := e.do(t, request{method: "PATCH", path: p, auth: &member, params: params("enable_sounds", "false")})
			wantSuccess(t, res)
		}
	})
	t.Run("bots refused", func(t *testing.T) {
		res := e.do(t, request{method: "PATCH", path: "/settings", auth: &bot, params: params("color_scheme", "9")})
		wantError(t, res, 400, "BAD_REQUEST", "This endpoint does not accept bot requests.")
	})
	t.Run("strict JSON", func(t *testing.T) {
		res := e.do(t, request{method: "PATCH", path: "/settings", auth: &member, params: params("enter_sends", "1")})
		wantError(t, res, 400, "BAD_REQUEST", "enter_sends is not a boolean")
		checkSpec(t, "PATCH", "/settings", res)
	})
	t.Run("value set", func(t *testing.T) {
		res := e.do(t, request{method: "PATCH", path: "/settings", auth: &member, enc: urlEncoded, params: params("color_scheme", "9")})
		wantError(t, res, 400, "BAD_REQUEST", "Invalid color_scheme: Value error, Not in the list of possible values")
	})
	t.Run("body wins over query", func(t *testing.T) {
		is := is.New(t)
		req, err := http.NewRequest("PATCH", e.srv.URL+"/api/v1/settings?web_font_size_px=20", stringsReader("web_font_size_px=18"))
		is.NoErr(err)
		req.Header.Set("Authorization", member.basic())
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		wantSuccess(t, e.send(t, req))
		reg := e.do(t, request{method: "POST", path: "/register", auth: &member})
		is.Equal(num(t, reg.body["user_settings"].(map[string]any)["web_font_size_px"]), int64(18)) // the body's value
	})
	t.Run("bulk edit needs an administrator", func(t *testing.T) {
		res := e.do(t, request{method: "PATCH", path: "/settings", auth: &member,
			params: params("target_users", `{"user_ids":[13],"skip_if_already_edited":false}`, "color_scheme", "3")})
		wantError(t, res, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
	})
}

func TestEmailChangeConfirmation(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	mail := e.w.Mail
	res := e.do(t, request{method: "PATCH", path: "/settings", auth: &member, enc: urlEncoded,
		params: params("email", "mia@acme.test")})
	wantSuccess(t, res)
	sent := mail.All()
	is.Equal(len(sent), 1)                // one confirmation mail
	is.Equal(sent[0].To, "mia@acme.test") // to the new address
	link := regexp.MustCompile(`/accounts/confirm_new_email/[A-Za-z0-9]+`).FindString(sent[0].Body)
	is.True(link != "") // the mail carries the confirmation link

	wrong := e.do(t, request{method: "GET", path: "/accounts/confirm_new_email/nope"})
	wantError(t, wrong, 404, "BAD_REQUEST", "The confirmation link has expired or been deactivated.")

	ok := e.do(t, request{method: "GET", path: link})
	wantSuccess(t, ok)
	me := e.do(t, request{method: "GET", path: "/users/me", auth: &cred{"mia@acme.test", member.key}})
	wantSuccess(t, me)
	is.Equal(me.body["delivery_email"], "mia@acme.test") // the address changed
}

func TestDeleteTopic(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("role before parameters", func(t *testing.T) {
		for _, c := range []cred{member, moderator, guest, bot} {
			res := e.do(t, request{method: "POST", path: "/streams/61/delete_topic", auth: &c})
			wantError(t, res, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
			checkSpec(t, "POST", "/streams/{stream_id}/delete_topic", res)
		}
	})
	t.Run("missing topic", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "POST", path: "/streams/61/delete_topic", auth: &admin})
		wantError(t, res, 400, "REQUEST_VARIABLE_MISSING", "Missing 'topic_name' argument")
		is.Equal(res.body["var_name"], "topic_name") // names the parameter
	})
	t.Run("unknown and other realm's channel", func(t *testing.T) {
		for _, id := range []string{"9999", "71"} {
			res := e.do(t, request{method: "POST", path: "/streams/" + id + "/delete_topic", auth: &admin, enc: multiPart,
				params: params("topic_name", "x")})
			wantError(t, res, 400, "BAD_REQUEST", "Invalid channel ID")
		}
	})
	t.Run("deletes case-insensitively", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "POST", path: "/streams/61/delete_topic", auth: &admin, enc: multiPart,
			params: params("topic_name", "DOOMED")})
		wantSuccess(t, res)
		checkSpec(t, "POST", "/streams/{stream_id}/delete_topic", res)
		is.Equal(res.body["complete"], true) // all deleted in one go
		for _, id := range []string{"1002", "1003"} {
			gone := e.do(t, request{method: "GET", path: "/messages/" + id, auth: &admin})
			wantError(t, gone, 400, "BAD_REQUEST", "Invalid message(s)")
		}
		kept := e.do(t, request{method: "GET", path: "/messages/1001", auth: &admin})
		wantSuccess(t, kept)
	})
}

func TestDeactivateUser(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	mail := e.w.Mail
	tests := []struct {
		name      string
		caller    cred
		target    string
		code, msg string
	}{
		{"member may not", member, "17", "BAD_REQUEST", "Insufficient permission"},
		{"unknown user", admin, "9999", "BAD_REQUEST", "No such user"},
		{"other realm's user", admin, "21", "BAD_REQUEST", "No such user"},
		{"a bot", admin, "31", "BAD_REQUEST", "No such user"},
		{"already deactivated", admin, "16", "BAD_REQUEST", "User is deactivated"},
		{"admin on owner", admin, "11", "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner"},
		{"only owner", owner, "11", "BAD_REQUEST", "Cannot deactivate the only organization owner"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := e.do(t, request{method: "DELETE", path: "/users/" + tt.target, auth: &tt.caller})
			wantError(t, res, 400, tt.code, tt.msg)
			checkSpec(t, "DELETE", "/users/{user_id}", res)
		})
	}
	t.Run("Python client: urlencoded DELETE body", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "DELETE", path: "/users/17", auth: &admin, enc: urlEncoded,
			params: params("deactivation_notification_comment", "Bye!", "actions", `{"delete_profile":false}`)})
		wantSuccess(t, res)
		checkSpec(t, "DELETE", "/users/{user_id}", res)
		is.Equal(len(mail.All()), 1)                   // the comment makes the user get a notice
		is.Equal(mail.All()[0].To, "target@acme.test") // sent to the deactivated user
		after := e.do(t, request{method: "GET", path: "/users/17", auth: &admin})
		is.Equal(after.body["user"].(map[string]any)["is_active"], false) // deactivated
		again := e.do(t, request{method: "DELETE", path: "/users/17", auth: &admin})
		wantError(t, again, 400, "BAD_REQUEST", "User is deactivated")
	})
	t.Run("strict JSON in actions", func(t *testing.T) {
		res := e.do(t, request{method: "DELETE", path: "/users/15", auth: &admin, params: params("actions", "nope")})
		wantError(t, res, 400, "BAD_REQUEST", "actions is not valid JSON")
	})
}

func TestScheduledMessages(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("list", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/scheduled_messages", auth: &member})
		wantSuccess(t, res)
		list := res.body["scheduled_messages"].([]any)
		is.Equal(len(list), 1)                                                          // only the caller's
		is.Equal(num(t, list[0].(map[string]any)["scheduled_message_id"]), int64(2001)) // the fixture's
	})
	t.Run("create (zulip-js multipart)", func(t *testing.T) {
		is := is.New(t)
		at := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
		res := e.do(t, request{method: "POST", path: "/scheduled_messages", auth: &member, enc: multiPart,
			params: params("type", "stream", "to", "61", "topic", "plans", "content", "Later!", "scheduled_delivery_timestamp", at)})
		wantSuccess(t, res)
		id := num(t, res.body["scheduled_message_id"])
		is.True(id > 2001) // a new id
		list := e.do(t, request{method: "GET", path: "/scheduled_messages", auth: &member})
		is.Equal(len(list.body["scheduled_messages"].([]any)), 2) // listed
	})
	t.Run("missing timestamp", func(t *testing.T) {
		res := e.do(t, request{method: "POST", path: "/scheduled_messages", auth: &member,
			params: params("type", "stream", "to", "61", "topic", "plans", "content", "x")})
		wantError(t, res, 400, "REQUEST_VARIABLE_MISSING", "Missing 'scheduled_delivery_timestamp' argument")
	})
	t.Run("delete", func(t *testing.T) {
		for _, tt := range []struct {
			name   string
			caller cred
			id     string
		}{
			{"someone else's", member, "2002"},
			{"a reminder id", member, "3001"},
			{"other realm's", member, "2101"},
			{"unknown", member, "999999"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				res := e.do(t, request{method: "DELETE", path: "/scheduled_messages/" + tt.id, auth: &tt.caller})
				wantError(t, res, 404, "BAD_REQUEST", "Scheduled message does not exist")
				checkSpec(t, "DELETE", "/scheduled_messages/{scheduled_message_id}", res)
			})
		}
		t.Run("own, then again", func(t *testing.T) {
			res := e.do(t, request{method: "DELETE", path: "/scheduled_messages/2001", auth: &member})
			wantSuccess(t, res)
			checkSpec(t, "DELETE", "/scheduled_messages/{scheduled_message_id}", res)
			again := e.do(t, request{method: "DELETE", path: "/scheduled_messages/2001", auth: &member, enc: urlEncoded,
				params: params("dont_block", "true")})
			wantError(t, again, 404, "BAD_REQUEST", "Scheduled message does not exist")
		})
	})
}

func TestReminders(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("list", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/reminders", auth: &member})
		wantSuccess(t, res)
		checkSpec(t, "GET", "/reminders", res)
		list := res.body["reminders"].([]any)
		is.Equal(len(list), 1) // the member's reminder
		r := list[0].(map[string]any)
		is.Equal(num(t, r["reminder_id"]), int64(3001))                // the fixture's id
		is.Equal(num(t, r["reminder_target_message_id"]), int64(1001)) // about message 1001
		empty := e.do(t, request{method: "GET", path: "/reminders", auth: &bot})
		wantSuccess(t, empty)
		checkSpec(t, "GET", "/reminders", empty)
		is.Equal(len(empty.body["reminders"].([]any)), 0) // an empty list, not null
	})
	var created string
	t.Run("create", func(t *testing.T) {
		is := is.New(t)
		at := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
		res := e.do(t, request{method: "POST", path: "/reminders", auth: &member, enc: multiPart,
			params: params("message_id", "1001", "scheduled_delivery_timestamp", at, "note", "don't forget")})
		wantSuccess(t, res)
		checkSpec(t, "POST", "/reminders", res)
		created = strconv.FormatInt(num(t, res.body["reminder_id"]), 10)
		list := e.do(t, request{method: "GET", path: "/reminders", auth: &member})
		is.Equal(len(list.body["reminders"].([]any)), 2) // now two
	})
	t.Run("create errors", func(t *testing.T) {
		past := strconv.FormatInt(time.Now().Add(-time.Hour).Unix(), 10)
		res := e.do(t, request{method: "POST", path: "/reminders", auth: &member,
			params: params("message_id", "1001", "scheduled_delivery_timestamp", past)})
		wantError(t, res, 400, "BAD_REQUEST", "Scheduled delivery time must be in the future.")
		checkSpec(t, "POST", "/reminders", res)
		at := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
		res = e.do(t, request{method: "POST", path: "/reminders", auth: &member,
			params: params("message_id", "1101", "scheduled_delivery_timestamp", at)})
		wantError(t, res, 400, "BAD_REQUEST", "Invalid message(s)")
		res = e.do(t, request{method: "POST", path: "/reminders", auth: &member,
			params: params("message_id", `"1001"`, "scheduled_delivery_timestamp", at)})
		wantError(t, res, 400, "BAD_REQUEST", "message_id is not an integer")
	})
	t.Run("delete", func(t *testing.T) {
		for _, id := range []string{"2001", "999999"} {
			res := e.do(t, request{method: "DELETE", path: "/reminders/" + id, auth: &member})
			wantError(t, res, 404, "BAD_REQUEST", "Reminder does not exist")
			checkSpec(t, "DELETE", "/reminders/{reminder_id}", res)
		}
		notMine := e.do(t, request{method: "DELETE", path: "/reminders/" + created, auth: &admin})
		wantError(t, notMine, 404, "BAD_REQUEST", "Reminder does not exist")
		res := e.do(t, request{method: "DELETE", path: "/reminders/" + created, auth: &member})
		wantSuccess(t, res)
		checkSpec(t, "DELETE", "/reminders/{reminder_id}", res)
	})
}

func TestLinkifiers(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("list", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/realm/linkifiers", auth: &guest})
		wantSuccess(t, res)
		checkSpec(t, "GET", "/realm/linkifiers", res)
		var ids []int64
		for _, l := range res.body["linkifiers"].([]any) {
			ids = append(ids, num(t, l.(map[string]any)["id"]))
		}
		is.Equal(ids, []int64{4001, 4002}) // the realm's, in order
	})
	t.Run("add", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "POST", path: "/realm/filters", auth: &member, enc: multiPart,
			params: params("pattern", "T-(?P<n>[0-9]+)", "url_template", "https://t.example/{n}")})
		wantError(t, res, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
		checkSpec(t, "POST", "/realm/filters", res)
		res = e.do(t, request{method: "POST", path: "/realm/filters", auth: &admin, enc: multiPart,
			params: params("pattern", "T-(?P<n>[0-9]+)", "url_template", "https://t.example/{n}")})
		wantSuccess(t, res)
		checkSpec(t, "POST", "/realm/filters", res)
		is.True(num(t, res.body["id"]) > 4101) // a fresh id
		bad := e.do(t, request{method: "POST", path: "/realm/filters", auth: &admin, enc: urlEncoded,
			params: params("pattern", "(foo", "url_template", "https://t.example/")})
		is.Equal(bad.status, 400)                                            // invalid regex
		is.Equal(bad.body["msg"], "Bad regular expression: missing ): (foo") // Zulip's text
		_, ok := bad.body["errors"].(map[string]any)
		is.True(ok) // the per-field errors come along
		// Not checked against the excerpt: Zulip's model-validation errors carry
		// "errors", which none of the excerpt's generic error schemas allow.
	})
	t.Run("delete", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "DELETE", path: "/realm/filters/4001", auth: &member})
		wantError(t, res, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization administrator")
		checkSpec(t, "DELETE", "/realm/filters/{filter_id}", res)
		res = e.do(t, request{method: "DELETE", path: "/realm/filters/4101", auth: &admin})
		wantError(t, res, 400, "BAD_REQUEST", "Linkifier not found.")
		checkSpec(t, "DELETE", "/realm/filters/{filter_id}", res)
		res = e.do(t, request{method: "DELETE", path: "/realm/filters/4001", auth: &admin, params: params("extra", "1")})
		wantSuccess(t, res)
		checkSpec(t, "DELETE", "/realm/filters/{filter_id}", res)
		is.Equal(ignoredOf(res), []string(nil)) // this view never reports ignored parameters
		res = e.do(t, request{method: "DELETE", path: "/realm/filters/4001", auth: &admin})
		wantError(t, res, 400, "BAD_REQUEST", "Linkifier not found.")
	})
	t.Run("update and reorder", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "PATCH", path: "/realm/filters/4002", auth: &admin,
			params: params("pattern", "GH-(?P<n>[0-9]+)", "url_template", "https://gh.example/{n}")})
		wantSuccess(t, res)
		checkSpec(t, "PATCH", "/realm/filters/{filter_id}", res)
		list := e.do(t, request{method: "GET", path: "/realm/linkifiers", auth: &admin})
		first := list.body["linkifiers"].([]any)[0].(map[string]any)
		is.Equal(first["url_template"], "https://gh.example/{n}") // updated
		ids := list.body["linkifiers"].([]any)
		var order []string
		for i := len(ids) - 1; i >= 0; i-- {
			order = append(order, strconv.FormatInt(num(t, ids[i].(map[string]any)["id"]), 10))
		}
		res = e.do(t, request{method: "PATCH", path: "/realm/linkifiers", auth: &admin,
			params: params("ordered_linkifier_ids", "["+joinIDs(order)+"]")})
		wantSuccess(t, res)
		checkSpec(t, "PATCH", "/realm/linkifiers", res)
	})
}

func joinIDs(ids []string) string {
	var out strings.Builder
	for i, id := range ids {
		if i > 0 {
			out.WriteString(",")
		}
		out.WriteString(id)
	}
	return out.String()
}

func TestMessages(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("send to a channel (zulip-js multipart)", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: multiPart,
			params: params("type", "stream", "to", "general", "topic", "news", "content", "Hello **world**")})
		wantSuccess(t, res)
		id := strconv.FormatInt(num(t, res.body["id"]), 10)
		got := e.do(t, request{method: "GET", path: "/messages/" + id, auth: &guest})
		wantSuccess(t, got)
		is.Equal(got.body["raw_content"], "Hello **world**")                           // the Markdown source
		is.Equal(got.body["message"].(map[string]any)["subject"], "news")              // the topic
		is.Equal(num(t, got.body["message"].(map[string]any)["sender_id"]), int64(14)) // the sender
	})
	t.Run("direct message (Python client: JSON list in a urlencoded body)", func(t *testing.T) {
		res := e.do(t, request{method: "POST", path: "/messages", auth: &member, enc: urlEncoded,
			params: params("type", "private", "to", "[15]", "content", "psst")})
		wantSuccess(t, res)
	})
	t.Run("list (zulip-js: JSON narrow in the query string)", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/messages", auth: &member, params: params(
			"anchor", "newest", "num_before", "10", "num_after", "0",
			"narrow", `[{"operator":"channel","operand":61},{"operator":"topic","operand":"LUNCH"}]`)})
		wantSuccess(t, res)
		msgs := res.body["messages"].([]any)
		is.Equal(len(msgs), 1)                                        // the lunch topic has one message
		is.Equal(num(t, msgs[0].(map[string]any)["id"]), int64(1001)) // message 1001
		is.Equal(res.body["found_newest"], true)                      // nothing newer
		bad := e.do(t, request{method: "GET", path: "/messages", auth: &member, params: params("num_before", "x")})
		wantError(t, bad, 400, "BAD_REQUEST", "num_before is not valid JSON")
	})
	t.Run("errors", func(t *testing.T) {
		res := e.do(t, request{method: "POST", path: "/messages", auth: &member,
			params: params("type", "stream", "to", "general", "topic", "x", "content", "")})
		wantError(t, res, 400, "BAD_REQUEST", "Message must not be empty")
		res = e.do(t, request{method: "GET", path: "/messages/1101", auth: &member})
		wantError(t, res, 400, "BAD_REQUEST", "Invalid message(s)")
	})
}

func TestRegister(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	for _, c := range []cred{member, bot} {
		t.Run(c.email, func(t *testing.T) {
			is := is.New(t)
			res := e.do(t, request{method: "POST", path: "/register", auth: &c, enc: multiPart})
			wantSuccess(t, res)
			id, _ := res.body["queue_id"].(string)
			is.True(id != "")                                                               // an event queue was registered
			is.Equal(num(t, res.body["last_event_id"]), int64(-1))                          // no events yet
			is.Equal(num(t, res.body["event_queue_longpoll_timeout_seconds"]), int64(90))   // Zulip's long-poll timeout, in the realm section
			is.Equal(num(t, res.body["zulip_feature_level"]), int64(chatcore.FeatureLevel)) // the level
			is.Equal(num(t, res.body["max_reminder_note_length"]), int64(1000))             // the note limit
			is.Equal(res.body["realm_empty_topic_display_name"], "general chat")            // the default
			_, ok := res.body["user_settings"].(map[string]any)
			is.True(ok)                                            // settings for humans and bots
			is.Equal(len(res.body["realm_linkifiers"].([]any)), 2) // the realm's linkifiers
			_, ok = res.body["scheduled_messages"].([]any)
			is.True(ok) // a list
			_, ok = res.body["reminders"].([]any)
			is.True(ok)                   // a list
			is.Equal(ignoredOf(res), nil) // nothing to ignore
		})
	}

	// alwaysThere are the keys every answer has, whatever was asked for.
	alwaysThere := []string{"last_event_id", "msg", "queue_id", "result", "zulip_feature_level", "zulip_merge_base", "zulip_version"}
	keysOf := func(res *response) []string {
		var keys []string
		for k := range res.body {
			if !slices.Contains(alwaysThere, k) {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		return keys
	}
	t.Run("every documented parameter is read", func(t *testing.T) {
		is := is.New(t)
		for _, enc := range encodings {
			res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: enc, params: params(
				"apply_markdown", "true",
				"client_gravatar", "false",
				"slim_presence", "true",
				"presence_history_limit_days", "14",
				"all_public_streams", "false",
				"include_subscribers", `"partial"`,
				"client_capabilities", `{"notification_settings_null":true,"user_settings_object":true,"empty_topic_name":true,"some_future_capability":true}`,
				"event_types", `["message","user_settings"]`,
				"fetch_event_types", `["user_settings","reminders"]`,
				"narrow", `[["channel","general"]]`,
				"queue_lifespan_secs", "600",
				"dont_block", "true",
			)})
			wantSuccess(t, res)
			is.Equal(ignoredOf(res), []string{"dont_block"}) // only the unknown parameter is reported
		}
	})
	sections := []struct {
		name   string
		params url.Values
		keys   []string
	}{
		{"fetch_event_types picks sections", params("fetch_event_types", `["user_settings","realm_linkifiers"]`),
			[]string{"realm_linkifiers", "user_settings"}},
		{"event_types when fetch_event_types is absent", params("event_types", `["scheduled_messages","reminders","message"]`),
			[]string{"max_message_id", "reminders", "scheduled_messages"}},
		{"fetch_event_types wins over event_types", params("event_types", `["reminders"]`, "fetch_event_types", `["realm_user"]`),
			[]string{"avatar_source", "avatar_url", "avatar_url_medium", "can_create_private_streams", "can_create_public_streams",
				"can_create_streams", "can_create_web_public_streams", "can_invite_others_to_realm", "can_subscribe_other_users",
				"cross_realm_bots", "delivery_email", "email", "full_name",
				"is_admin", "is_guest", "is_moderator", "is_owner", "realm_non_active_users", "realm_users", "user_id"}},
		{"the realm section", params("fetch_event_types", `["realm"]`), realmSectionKeys()},
		{"an empty list asks for nothing", params("event_types", `[]`), nil},
		{"unknown section names give nothing", params("fetch_event_types", `["no_such_thing"]`), nil},
		{"client_gravatar may be null", params("client_gravatar", "null", "include_subscribers", "true", "fetch_event_types", `["reminders"]`),
			[]string{"reminders"}},
	}
	for _, tt := range sections {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: tt.params})
			wantSuccess(t, res)
			is.Equal(keysOf(res), tt.keys) // exactly the sections asked for, besides the version fields
			is.Equal(ignoredOf(res), nil)  // every parameter was read
			if rs, ok := res.body["reminders"].([]any); ok {
				is.Equal(num(t, rs[0].(map[string]any)["reminder_id"]), int64(3001)) // the member's own reminder
			}
		})
	}

	bad := []struct {
		name   string
		params url.Values
		msg    string
	}{
		{"apply_markdown", params("apply_markdown", "1"), "apply_markdown is not a boolean"},
		{"client_gravatar", params("client_gravatar", `"yes"`), "client_gravatar is not a boolean"},
		{"include_subscribers", params("include_subscribers", `"all"`), `include_subscribers is not a boolean or "partial"`},
		{"presence_history_limit_days", params("presence_history_limit_days", "1.5"), "presence_history_limit_days is not an integer"},
		{"event_types", params("event_types", `"message"`), "event_types is not a list"},
		{"fetch_event_types", params("fetch_event_types", `[1]`), "fetch_event_types[0] is not a string"},
		{"narrow", params("narrow", `{"channel":"general"}`), "narrow is not a list"},
		{"client_capabilities", params("client_capabilities", `{"bulk_message_deletion":"yes"}`), `client_capabilities["bulk_message_deletion"] is not a boolean`},
		{"slim_presence", params("slim_presence", "maybe"), "slim_presence is not valid JSON"},
	}
	for _, tt := range bad {
		t.Run("bad "+tt.name, func(t *testing.T) {
			res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: tt.params})
			wantError(t, res, 400, "BAD_REQUEST", tt.msg)
		})
	}
	t.Run("guests may not ask for all public channels", func(t *testing.T) {
		res := e.do(t, request{method: "POST", path: "/register", auth: &guest, params: params("all_public_streams", "true")})
		wantError(t, res, 400, "BAD_REQUEST", "User not authorized for this query")
		res = e.do(t, request{method: "POST", path: "/register", auth: &guest, params: params("all_public_streams", "false")})
		wantSuccess(t, res)
		res = e.do(t, request{method: "POST", path: "/register", auth: &member, params: params("all_public_streams", "true")})
		wantSuccess(t, res)
	})
}

func TestPathIDs(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	t.Run("zero is an id", func(t *testing.T) {
		// Zulip's <int:...> matches 0, so the request reaches the view, which
		// finds nothing.
		cases := []struct {
			method, path string
			params       url.Values
			status       int
			code, msg    string
		}{
			{"GET", "/users/0", nil, 400, "BAD_REQUEST", "No such user"},
			{"DELETE", "/users/0", nil, 400, "BAD_REQUEST", "No such user"},
			{"GET", "/messages/0", nil, 400, "BAD_REQUEST", "Invalid message(s)"},
			{"POST", "/streams/0/delete_topic", params("topic_name", "lunch"), 400, "BAD_REQUEST", "Invalid channel ID"},
			{"DELETE", "/scheduled_messages/0", nil, 404, "BAD_REQUEST", "Scheduled message does not exist"},
			{"DELETE", "/reminders/0", nil, 404, "BAD_REQUEST", "Reminder does not exist"},
			{"DELETE", "/realm/filters/0", nil, 400, "BAD_REQUEST", "Linkifier not found."},
			{"PATCH", "/realm/filters/0", params("pattern", "#(?P<id>[0-9]+)", "url_template", "https://t.example/{id}"), 400, "BAD_REQUEST", "Linkifier not found."},
		}
		for _, tt := range cases {
			t.Run(tt.method+" "+tt.path, func(t *testing.T) {
				res := e.do(t, request{method: tt.method, path: tt.path, auth: &owner, params: tt.params, enc: urlEncoded})
				wantError(t, res, tt.status, tt.code, tt.msg)
			})
		}
	})
	t.Run("zero still needs authentication", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/users/0"})
		wantError(t, res, 401, "UNAUTHORIZED", "Missing authorization header for basic auth")
	})
	t.Run("leading zeros", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/users/0014", auth: &member})
		wantSuccess(t, res)
		is.Equal(num(t, res.body["user"].(map[string]any)["user_id"]), int64(14)) // read as decimal 14, as Django's int() does
	})
	t.Run("largest int64", func(t *testing.T) {
		res := e.do(t, request{method: "GET", path: "/users/9223372036854775807", auth: &member})
		wantError(t, res, 400, "BAD_REQUEST", "No such user")
	})
	t.Run("malformed ids match no route whatever the method", func(t *testing.T) {
		paths := []string{
			"/messages/abc", "/messages/+5", "/messages/1x", "/messages/9223372036854775808",
			"/messages/-0", "/streams/x/delete_topic", "/scheduled_messages/1.5",
			"/reminders/99999999999999999999999", "/realm/filters/abc", "/realm/filters/-1",
		}
		for _, p := range paths {
			for _, method := range []string{"GET", "POST", "PATCH", "DELETE", "PUT"} {
				t.Run(method+" "+p, func(t *testing.T) {
					res := e.do(t, request{method: method, path: p, auth: &owner})
					wantError(t, res, 404, "BAD_REQUEST", "Not Found")
				})
			}
		}
	})
	t.Run("a well-formed id with a missing method is a 405", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "GET", path: "/realm/filters/0"})
		is.Equal(res.status, 405)                                       // the path exists, the method does not
		is.Equal(res.body["allowed_methods"], []any{"DELETE", "PATCH"}) // its methods
	})
}

func TestUsersMe(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	for _, method := range []string{"POST", "PATCH", "PUT", "DELETE"} {
		t.Run(method, func(t *testing.T) {
			is := is.New(t)
			// Before authentication, as in Zulip: the method is checked first.
			res := e.do(t, request{method: method, path: "/users/me", params: params("user_id", "14"), enc: urlEncoded})
			is.Equal(res.status, 405)                                   // "me" is not a user id
			is.Equal(res.body["msg"], "Method Not Allowed")             // Zulip's text
			is.Equal(res.body["allowed_methods"], []any{"GET", "HEAD"}) // only what chatcore serves there
			is.Equal(res.header.Get("Allow"), "GET, HEAD")              // and the header says the same
		})
	}
	t.Run("DELETE does not deactivate", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "DELETE", path: "/users/me", auth: &member})
		is.Equal(res.status, 405) // refused
		again := e.do(t, request{method: "GET", path: "/users/me", auth: &member})
		wantSuccess(t, again)
		is.Equal(again.body["is_active"], true) // the caller is still active
	})
	t.Run("HEAD", func(t *testing.T) {
		is := is.New(t)
		res := e.do(t, request{method: "HEAD", path: "/users/me", auth: &member})
		is.Equal(res.status, 200) // served by the GET route
		is.Equal(len(res.raw), 0) // without a body
	})
}
