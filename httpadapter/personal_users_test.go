package httpadapter_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

func TestHTTPMutedUsers(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			before := sendTo(t, e, &owner, "t", "unread before the mute")
			q := registerQueue(t, e, &member, "event_types", `["muted_users","update_message_flags","message"]`)
			oq := registerQueue(t, e, &owner, "event_types", `["muted_users"]`)
			mute := func(c *cred, method string, id int) *response {
				return e.do(t, request{method: method, path: fmt.Sprintf("/users/me/muted_users/%d", id), auth: c, enc: urlEncoded})
			}
			is.True(!slices.Contains(flagsOver(t, e, member, before), any("read"))) // unread at first
			wantSuccess(t, mute(&member, "POST", 11))
			is.True(slices.Contains(flagsOver(t, e, member, before), any("read"))) // muting marked it read
			evs := pending(t, e, &member, q)
			is.Equal(len(evs), 2) // the flags, then the list
			is.Equal(evs[0]["type"], "update_message_flags")
			is.Equal(evs[0]["op"], "add")
			is.Equal(evs[0]["flag"], "read")
			is.Equal(len(evs[0]["messages"].([]any)), 1)
			is.Equal(num(t, evs[0]["messages"].([]any)[0]), before)
			is.Equal(evs[1]["type"], "muted_users")
			list := evs[1]["muted_users"].([]any)
			is.Equal(len(list), 1)
			entry := list[0].(map[string]any)
			is.Equal(num(t, entry["id"]), int64(11))
			is.True(num(t, entry["timestamp"]) > 0)
			is.Equal(len(pending(t, e, &owner, oq)), 0) // only the muter hears of it

			after := sendTo(t, e, &owner, "t", "sent while muted")
			is.True(slices.Contains(flagsOver(t, e, member, after), any("read"))) // arrives read
			evs = pending(t, e, &member, q)
			msg := evs[len(evs)-1]
			is.Equal(msg["type"], "message")
			is.True(slices.Contains(msg["flags"].([]any), any("read")))           // the message event says so
			is.True(!slices.Contains(flagsOver(t, e, admin, after), any("read"))) // not for others

			st := fetchState(t, e, &member, "muted_users")
			is.Equal(len(st["muted_users"].([]any)), 1)
			is.Equal(num(t, st["muted_users"].([]any)[0].(map[string]any)["id"]), int64(11))

			for _, c := range []struct {
				method string
				id     int
				msg    string
			}{
				{"POST", 14, "Cannot mute self"},
				{"POST", 11, "User already muted"},
				{"POST", 999, "No such user"},
				{"POST", 21, "No such user"}, // another realm's
				{"DELETE", 12, "User is not muted"},
				{"DELETE", 999, "No such user"},
			} {
				wantError(t, mute(&member, c.method, c.id), 400, "BAD_REQUEST", c.msg)
			}
			wantSuccess(t, mute(&member, "POST", 16)) // a deactivated user can be muted
			wantSuccess(t, mute(&member, "DELETE", 11))
			wantSuccess(t, mute(&member, "DELETE", 16))
			st = fetchState(t, e, &member, "muted_users")
			is.Equal(st["muted_users"], []any{}) // none left
			res := e.do(t, request{method: "POST", path: "/users/me/elsewhere/11", auth: &member, enc: urlEncoded})
			is.Equal(res.status, 404) // the pattern serves muted_users only
		})
	}
}

func TestHTTPUserStatus(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			oq := registerQueue(t, e, &owner, "event_types", `["user_status"]`)
			gq := registerQueue(t, e, &otherBoss, "event_types", `["user_status"]`)
			set := func(kv ...string) *response {
				return e.do(t, request{method: "POST", path: "/users/me/status", auth: &member, enc: urlEncoded, params: params(kv...)})
			}
			wantSuccess(t, set("status_text", "  In a meeting  ", "emoji_name", "calendar"))
			evs := pending(t, e, &owner, oq)
			is.Equal(len(evs), 1) // the realm hears of it
			ev := evs[0]
			is.Equal(ev["type"], "user_status")
			is.Equal(num(t, ev["user_id"]), int64(14))
			is.Equal(ev["status_text"], "In a meeting") // trimmed
			is.Equal(ev["emoji_name"], "calendar")
			is.Equal(ev["emoji_code"], "1f4c5")
			is.Equal(ev["reaction_type"], "unicode_emoji")
			is.Equal(len(ev), 7)                            // id, type, user_id, status_text, emoji_name, emoji_code, reaction_type
			is.Equal(len(pending(t, e, &otherBoss, gq)), 0) // another realm does not

			res := e.do(t, request{method: "GET", path: "/users/14/status", auth: &owner})
			wantSuccess(t, res)
			is.Equal(res.body["status"], map[string]any{"status_text": "In a meeting", "emoji_name": "calendar", "emoji_code": "1f4c5", "reaction_type": "unicode_emoji"})
			res = e.do(t, request{method: "GET", path: "/users/12/status", auth: &owner})
			wantSuccess(t, res)
			is.Equal(res.body["status"], map[string]any{}) // no status

			wantSuccess(t, set("emoji_name", "")) // clears the emoji, keeps the text
			evs = pending(t, e, &owner, oq)
			is.Equal(evs[1]["emoji_name"], "")
			is.Equal(evs[1]["reaction_type"], "unicode_emoji")
			is.True(evs[1]["status_text"] == nil) // not given
			st := fetchState(t, e, &owner, "user_status")
			is.Equal(st["user_status"], map[string]any{"14": map[string]any{"status_text": "In a meeting"}})

			wantSuccess(t, set("away", "true"))
			st = fetchState(t, e, &owner, "user_status")
			is.Equal(st["user_status"], map[string]any{"14": map[string]any{"status_text": "In a meeting", "away": true}}) // presence_enabled off
			st = fetchState(t, e, &member, "user_settings")
			is.Equal(st["user_settings"].(map[string]any)["presence_enabled"], false)

			long := ""
			for range 61 {
				long += "x"
			}
			for _, c := range []struct {
				params []string
				msg    string
			}{
				{nil, "Client did not pass any new values."},
				{[]string{"status_text", long}, "status_text is too long (limit: 60 characters)"},
				{[]string{"emoji_name", "nosuchemoji"}, "Emoji 'nosuchemoji' does not exist"},
				{[]string{"emoji_name", "calendar", "emoji_code", "1f600", "reaction_type", "unicode_emoji"}, "Invalid emoji name."},
			} {
				wantError(t, set(c.params...), 400, "BAD_REQUEST", c.msg)
			}
			wantError(t, e.do(t, request{method: "GET", path: "/users/999/status", auth: &owner}), 400, "BAD_REQUEST", "No such user")
			wantError(t, e.do(t, request{method: "GET", path: "/users/21/status", auth: &owner}), 400, "BAD_REQUEST", "No such user")
		})
	}
}

func TestHTTPAlertWords(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			q := registerQueue(t, e, &member, "event_types", `["alert_words"]`)
			oq := registerQueue(t, e, &owner, "event_types", `["alert_words"]`)
			words := func(method string, list string) *response {
				var p []string
				if list != "" {
					p = []string{"alert_words", list}
				}
				return e.do(t, request{method: method, path: "/users/me/alert_words", auth: &member, enc: urlEncoded, params: params(p...)})
			}
			res := words("GET", "")
			wantSuccess(t, res)
			is.Equal(res.body["alert_words"], []any{})
			res = words("POST", `["Pizza", " deploy ", "", "PIZZA", "c++"]`)
			wantSuccess(t, res)
			is.Equal(res.body["alert_words"], []any{"Pizza", "deploy", "c++"}) // trimmed, empty and repeated ones dropped
			evs := pending(t, e, &member, q)
			is.Equal(len(evs), 1)
			is.Equal(evs[0]["alert_words"], []any{"Pizza", "deploy", "c++"})
			is.Equal(len(pending(t, e, &owner, oq)), 0) // only the user

			hit := sendTo(t, e, &owner, "t", "who wants pizza?")
			code := sendTo(t, e, &owner, "t", "I write (C++) daily")
			miss := sendTo(t, e, &owner, "t", "pizzas and redeploy")
			is.True(slices.Contains(flagsOver(t, e, member, hit), any("has_alert_word")))
			is.True(slices.Contains(flagsOver(t, e, member, code), any("has_alert_word")))
			is.True(!slices.Contains(flagsOver(t, e, member, miss), any("has_alert_word"))) // not at a word boundary
			is.True(!slices.Contains(flagsOver(t, e, admin, hit), any("has_alert_word")))   // nobody else's word
			is.Equal(narrowIDs(t, e, &member, `[{"operator":"is","operand":"alerted"}]`), []int64{hit, code})

			st := fetchState(t, e, &member, "alert_words")
			is.Equal(st["alert_words"], []any{"Pizza", "deploy", "c++"})
			res = words("DELETE", `["PIZZA", "nothing"]`)
			wantSuccess(t, res)
			is.Equal(res.body["alert_words"], []any{"deploy", "c++"})
			evs = pending(t, e, &member, q)
			is.Equal(evs[1]["alert_words"], []any{"deploy", "c++"})

			long := `["` + fmt.Sprintf("%0101d", 0) + `"]`
			wantError(t, words("POST", long), 400, "BAD_REQUEST", "alert_words[0] is too long (limit: 100 characters)")
			wantError(t, words("POST", ""), 400, "REQUEST_VARIABLE_MISSING", "Missing 'alert_words' argument")
			wantError(t, words("POST", `"x"`), 400, "BAD_REQUEST", "alert_words is not a list")
		})
	}
}
