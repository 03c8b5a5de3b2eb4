package httpadapter_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// eventReader reads a queue's events without blocking, each once.
type eventReader struct {
	e    *env
	c    *cred
	id   string
	last int64
}

// newEventReader registers a queue for c with the event types.
func newEventReader(t *testing.T, e *env, c *cred, types string) *eventReader {
	t.Helper()
	return &eventReader{e: e, c: c, id: registerQueue(t, e, c, "event_types", types), last: -1}
}

// next returns the events that arrived since the last call.
func (r *eventReader) next(t *testing.T) []map[string]any {
	t.Helper()
	res := r.e.do(t, request{method: "GET", path: "/events", auth: r.c, enc: inQuery,
		params: params("queue_id", r.id, "last_event_id", strconv.FormatInt(r.last, 10), "dont_block", "true")})
	wantSuccess(t, res)
	var out []map[string]any
	for _, v := range res.body["events"].([]any) {
		ev := v.(map[string]any)
		r.last = num(t, ev["id"])
		if ev["type"] != "heartbeat" {
			delete(ev, "id")
			out = append(out, ev)
		}
	}
	return out
}

// jsonOf decodes the JSON text s as answers are decoded (numbers as
// json.Number), for comparing with them.
func jsonOf(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	return v
}

// asJSON returns v as answers are decoded: JSON-encoded, then jsonOf.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return jsonOf(t, string(b))
}

// registerSection returns the sections of POST /register with fetch_event_types types.
func registerSection(t *testing.T, e *env, c *cred, types string) map[string]any {
	t.Helper()
	res := e.do(t, request{method: "POST", path: "/register", auth: c, enc: urlEncoded, params: params("fetch_event_types", types)})
	wantSuccess(t, res)
	if types == `["drafts"]` {
		// The realm section still fails the full schema (realm_send_read_receipts,
		// realm_is_zephyr_mirror_realm: issue 33's other part); the drafts one holds.
		checkServed(t, "POST", "/register", res)
	}
	return res.body
}

func TestHTTPDrafts(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			is.Equal(registerSection(t, e, &member, `["drafts"]`)["drafts"], []any{}) // no drafts yet
			evs := newEventReader(t, e, &member, `["drafts"]`)
			others := newEventReader(t, e, &owner, `["drafts"]`)

			res := e.do(t, request{method: "POST", path: "/drafts", auth: &member, enc: urlEncoded, params: params("drafts", `[
				{"type": "stream", "to": [61], "topic": "sync drafts", "content": " Channel draft  \n", "timestamp": 1595479019},
				{"type": "private", "to": [17, 14], "topic": "ignored", "content": "To target", "timestamp": 1595479021.5},
				{"type": "private", "to": [], "topic": "ignored", "content": "Nobody yet", "timestamp": 1595479020}]`)})
			wantSuccess(t, res)
			ids, _ := res.body["ids"].([]any)
			is.Equal(len(ids), 3) // one id per draft, in order
			id := func(i int) int64 { return num(t, ids[i]) }
			is.True(id(0) < id(1) && id(1) < id(2)) // ascending
			want := func(i int, rest string) any { return jsonOf(t, fmt.Sprintf(`{"id": %d, %s}`, id(i), rest)) }
			d0 := want(0, `"type": "stream", "to": [61], "topic": "sync drafts", "content": "Channel draft", "timestamp": 1595479019`)
			d1 := want(1, `"type": "private", "to": [17], "topic": "", "content": "To target", "timestamp": 1595479021`)
			d2 := want(2, `"type": "", "to": [], "topic": "", "content": "Nobody yet", "timestamp": 1595479020`)
			is.Equal(asJSON(t, evs.next(t)), asJSON(t, []map[string]any{{"type": "drafts", "op": "add", "drafts": []any{d0, d1, d2}}})) // the add event, with Zulip's views
			is.Equal(len(others.next(t)), 0)                                                                                            // only to the owner of the drafts

			res = e.do(t, request{method: "GET", path: "/drafts", auth: &member})
			wantSuccess(t, res)
			is.Equal(num(t, res.body["count"]), int64(3))                                       // count
			is.Equal(res.body["drafts"], []any{d0, d2, d1})                                     // least recently edited first
			is.Equal(registerSection(t, e, &member, `["drafts"]`)["drafts"], []any{d1, d2, d0}) // register: most recently edited first

			path0 := fmt.Sprintf("/drafts/%d", id(0))
			res = e.do(t, request{method: "PATCH", path: path0, auth: &member, enc: urlEncoded,
				params: params("draft", `{"type": "private", "to": [14], "topic": "x", "content": "Note to self", "timestamp": 1595479100}`)})
			wantSuccess(t, res)
			d0 = want(0, `"type": "private", "to": [14], "topic": "", "content": "Note to self", "timestamp": 1595479100`)
			is.Equal(asJSON(t, evs.next(t)), asJSON(t, []map[string]any{{"type": "drafts", "op": "update", "draft": d0}})) // the update event
			res = e.do(t, request{method: "GET", path: "/drafts", auth: &member})
			wantSuccess(t, res)
			is.Equal(res.body["drafts"], []any{d2, d1, d0}) // edited in place

			res = e.do(t, request{method: "DELETE", path: fmt.Sprintf("/drafts/%d", id(1)), auth: &member})
			wantSuccess(t, res)
			is.Equal(asJSON(t, evs.next(t)), asJSON(t, []map[string]any{{"type": "drafts", "op": "remove", "draft_id": id(1)}})) // the remove event
			res = e.do(t, request{method: "GET", path: "/drafts", auth: &member})
			wantSuccess(t, res)
			is.Equal(res.body["drafts"], []any{d2, d0}) // deleted

			for _, c := range []struct {
				name, method, path string
				c                  *cred
				params             []string
				status             int
				code, msg          string
			}{
				{"another user's draft", "PATCH", path0, &owner, []string{"draft", `{"type": "", "to": [], "topic": "", "content": "mine"}`}, 404, "BAD_REQUEST", "Draft does not exist"},
				{"delete another user's", "DELETE", path0, &owner, nil, 404, "BAD_REQUEST", "Draft does not exist"},
				{"delete a deleted draft", "DELETE", fmt.Sprintf("/drafts/%d", id(1)), &member, nil, 404, "BAD_REQUEST", "Draft does not exist"},
				{"no drafts parameter", "POST", "/drafts", &member, nil, 400, "REQUEST_VARIABLE_MISSING", "Missing 'drafts' argument"},
				{"no content", "POST", "/drafts", &member, []string{"drafts", `[{"type": "", "to": [], "topic": ""}]`}, 400, "BAD_REQUEST", `drafts[0]["content"] field is missing: Field required`},
				{"bad type", "POST", "/drafts", &member, []string{"drafts", `[{"type": "stream", "to": [61], "topic": "", "content": "c"}, {"type": "bogus", "to": [], "topic": "", "content": "c"}]`}, 400, "BAD_REQUEST", `Invalid drafts[1]["type"]`},
				{"blank content", "POST", "/drafts", &member, []string{"drafts", `[{"type": "", "to": [], "topic": "", "content": "  \n "}]`}, 400, "BAD_REQUEST", `drafts[0]["content"] cannot be blank`},
				{"null byte in content", "POST", "/drafts", &member, []string{"drafts", `[{"type": "", "to": [], "topic": "", "content": "a\u0000b"}]`}, 400, "BAD_REQUEST", "Message must not contain null bytes"},
				{"negative timestamp", "POST", "/drafts", &member, []string{"drafts", `[{"type": "stream", "to": [], "topic": "t", "content": "c", "timestamp": -10.1}]`}, 400, "BAD_REQUEST", "Timestamp must not be negative."},
				{"no channel", "POST", "/drafts", &member, []string{"drafts", `[{"type": "stream", "to": [], "topic": "t", "content": "c"}]`}, 400, "BAD_REQUEST", "Must specify exactly 1 channel ID for channel messages"},
				{"two channels", "POST", "/drafts", &member, []string{"drafts", `[{"type": "stream", "to": [61, 61], "topic": "t", "content": "c"}]`}, 400, "BAD_REQUEST", "Must specify exactly 1 channel ID for channel messages"},
				{"null byte in topic", "POST", "/drafts", &member, []string{"drafts", `[{"type": "stream", "to": [61], "topic": "a\u0000", "content": "c"}]`}, 400, "BAD_REQUEST", "Topic must not contain null bytes"},
				{"unknown channel", "POST", "/drafts", &member, []string{"drafts", `[{"type": "stream", "to": [99999999999999], "topic": "t", "content": "c"}]`}, 400, "BAD_REQUEST", "Invalid channel ID"},
				{"another realm's channel", "POST", "/drafts", &member, []string{"drafts", `[{"type": "stream", "to": [71], "topic": "t", "content": "c"}]`}, 400, "BAD_REQUEST", "Invalid channel ID"},
				{"unknown user", "POST", "/drafts", &member, []string{"drafts", `[{"type": "private", "to": [17, 99999999999999], "topic": "", "content": "c"}]`}, 400, "BAD_REQUEST", "Invalid user ID 99999999999999"},
				{"another realm's user", "POST", "/drafts", &member, []string{"drafts", `[{"type": "private", "to": [21], "topic": "", "content": "c"}]`}, 400, "BAD_REQUEST", "Invalid user ID 21"},
				{"too many", "POST", "/drafts", &member, []string{"drafts", "[" + strings.Repeat(`{"type": "", "to": [], "topic": "", "content": "c"},`, 100) + `{"type": "", "to": [], "topic": "", "content": "c"}]`}, 400, "BAD_REQUEST", "Too many drafts (limit: 100)"},
				{"bad edit", "PATCH", path0, &member, []string{"draft", `{"type": "stream", "to": [], "topic": "", "content": "c"}`}, 400, "BAD_REQUEST", "Must specify exactly 1 channel ID for channel messages"},
			} {
				res := e.do(t, request{method: c.method, path: c.path, auth: c.c, enc: urlEncoded, params: params(c.params...)})
				if res.status != c.status || res.body["code"] != c.code || res.body["msg"] != c.msg {
					t.Errorf("%s: got %d %s", c.name, res.status, res.raw)
				}
			}
			res = e.do(t, request{method: "GET", path: "/drafts", auth: &member})
			wantSuccess(t, res)
			is.Equal(res.body["drafts"], []any{d2, d0}) // refused requests changed nothing
			is.Equal(len(evs.next(t)), 0)               // and sent no event

			// A guest reaches only the channels it is subscribed to; the
			// timestamp defaults to now.
			res = e.do(t, request{method: "POST", path: "/drafts", auth: &guest, enc: urlEncoded,
				params: params("drafts", `[{"type": "stream", "to": [61], "topic": "t", "content": "c"}]`)})
			wantSuccess(t, res)
			res = e.do(t, request{method: "GET", path: "/drafts", auth: &guest})
			wantSuccess(t, res)
			got := res.body["drafts"].([]any)[0].(map[string]any)
			now := w.Svc.Now().Unix()
			is.True(num(t, got["timestamp"]) <= now && num(t, got["timestamp"]) >= now-60) // now, by the Service's clock

			// Turning synchronisation off deletes the drafts (without events)
			// and refuses the routes.
			wantSuccess(t, e.do(t, request{method: "PATCH", path: "/settings", auth: &member, enc: urlEncoded, params: params("enable_drafts_synchronization", "false")}))
			for _, r := range []request{
				{method: "GET", path: "/drafts"},
				{method: "POST", path: "/drafts", enc: urlEncoded, params: params("drafts", "[]")},
				{method: "PATCH", path: path0, enc: urlEncoded, params: params("draft", `{"type": "", "to": [], "topic": "", "content": "c"}`)},
				{method: "DELETE", path: path0},
			} {
				r.auth = &member
				wantError(t, e.do(t, r), 400, "BAD_REQUEST", "User has disabled synchronizing drafts.")
			}
			is.Equal(registerSection(t, e, &member, `["drafts"]`)["drafts"], []any{}) // deleted
			is.Equal(len(evs.next(t)), 0)                                             // no remove events
			wantSuccess(t, e.do(t, request{method: "PATCH", path: "/settings", auth: &member, enc: urlEncoded, params: params("enable_drafts_synchronization", "true")}))
			res = e.do(t, request{method: "GET", path: "/drafts", auth: &member})
			wantSuccess(t, res)
			is.Equal(res.body["drafts"], []any{}) // still none once turned on again
		})
	}
}

func TestHTTPSubmessages(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			msgs := newEventReader(t, e, &owner, `["message"]`)
			subs := newEventReader(t, e, &owner, `["submessage"]`)
			stranger := newEventReader(t, e, &otherBoss, `["submessage"]`)

			poll := postMessage(t, e, "ZulipMobile/1.0", "content", "/poll Lunch? \n\nPizza\n - Tacos\n* Crêpes 🥞\n  ")
			wantPoll := fmt.Sprintf(`[{"id": %%d, "message_id": %d, "sender_id": 14, "msg_type": "widget",
				"content": "{\"widget_type\": \"poll\", \"extra_data\": {\"question\": \"Lunch?\", \"options\": [\"Pizza\", \"Tacos\", \"Cr\\u00eapes \\ud83e\\udd5e\"]}}"}]`, poll)
			res := e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", poll), auth: &owner})
			wantSuccess(t, res)
			checkServed(t, "GET", "/messages/{message_id}", res)
			got := res.body["message"].(map[string]any)["submessages"].([]any)
			is.Equal(len(got), 1) // the widget
			widgetID := num(t, got[0].(map[string]any)["id"])
			is.Equal(got, jsonOf(t, fmt.Sprintf(wantPoll, widgetID))) // Zulip's widget submessage, its content byte for byte
			sent := msgs.next(t)
			is.Equal(len(sent), 1)                                            // the message event
			is.Equal(sent[0]["message"].(map[string]any)["submessages"], got) // carries the widget
			plain := postMessage(t, e, "ZulipMobile/1.0", "content", "/polling is not a poll")
			res = e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", plain), auth: &owner})
			wantSuccess(t, res)
			is.Equal(res.body["message"].(map[string]any)["submessages"], []any{}) // no widget

			vote := `{"type":"vote","key":"canned,1","vote":1}`
			res = e.do(t, request{method: "POST", path: "/submessage", auth: &owner, enc: urlEncoded,
				params: params("message_id", strconv.FormatInt(poll, 10), "msg_type", "widget", "content", vote)})
			wantSuccess(t, res)
			is.Equal(len(res.body), 2) // just result and msg
			evs := subs.next(t)
			is.Equal(len(evs), 1) // the submessage event
			subID := num(t, evs[0]["submessage_id"])
			is.True(subID > widgetID) // a new id
			is.Equal(evs[0], asJSON(t, map[string]any{"type": "submessage", "msg_type": "widget", "message_id": poll,
				"submessage_id": subID, "sender_id": 11, "content": vote})) // Zulip's event
			is.Equal(len(stranger.next(t)), 0) // nobody outside the message's audience
			res = e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", poll), auth: &member})
			wantSuccess(t, res)
			got = res.body["message"].(map[string]any)["submessages"].([]any)
			is.Equal(len(got), 2)                                                                                                                // widget and vote
			is.Equal(got[1], asJSON(t, map[string]any{"id": subID, "message_id": poll, "sender_id": 11, "msg_type": "widget", "content": vote})) // in order

			todo := postMessage(t, e, "ZulipMobile/1.0", "content", "/todo Chores\nDishes: tonight\n- Laundry")
			res = e.do(t, request{method: "GET", path: fmt.Sprintf("/messages/%d", todo), auth: &owner})
			wantSuccess(t, res)
			got = res.body["message"].(map[string]any)["submessages"].([]any)
			is.Equal(got[0].(map[string]any)["content"], `{"widget_type": "todo", "extra_data": {"task_list_title": "Chores", "tasks": [{"task": "Dishes", "desc": "tonight"}, {"task": "Laundry", "desc": ""}]}}`) // Zulip's to-do widget

			id := func(m int64) string { return strconv.FormatInt(m, 10) }
			for _, c := range []struct {
				name   string
				c      *cred
				params []string
				code   string
				msg    string
			}{
				{"no content", &owner, []string{"message_id", id(poll), "msg_type", "widget"}, "REQUEST_VARIABLE_MISSING", "Missing 'content' argument"},
				{"too long", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", `"` + strings.Repeat("x", 10000) + `"`}, "BAD_REQUEST", "Submessage content is too long (limit: 10000 bytes)"},
				{"unknown message", &owner, []string{"message_id", "999999", "msg_type", "widget", "content", vote}, "BAD_REQUEST", "Invalid message(s)"},
				{"another realm", &otherBoss, []string{"message_id", id(poll), "msg_type", "widget", "content", vote}, "BAD_REQUEST", "Invalid message(s)"},
				{"not the sender first", &owner, []string{"message_id", id(plain), "msg_type", "widget", "content", "{}"}, "BAD_REQUEST", "You cannot attach a submessage to this message."},
				{"bad JSON", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", "{"}, "BAD_REQUEST", "Invalid json for submessage"},
				{"not a dict", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", "[]"}, "BAD_REQUEST", "poll data is not a dict"},
				{"no type", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", "{}"}, "BAD_REQUEST", "type key is missing from poll data"},
				{"bad vote", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", `{"type":"vote","key":"canned,1","vote":2}`}, "BAD_REQUEST", `Invalid poll data["vote"]`},
				{"extra key", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", `{"type":"vote","key":"k","vote":1,"x":1}`}, "BAD_REQUEST", "Unexpected arguments: x"},
				{"question by another", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", `{"type":"question","question":"Dinner?"}`}, "BAD_REQUEST", "You can't edit a question unless you are the author."},
				{"option index", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", `{"type":"new_option","option":"Soup","idx":1001}`}, "BAD_REQUEST", `poll data["idx"] is too large`},
				{"unknown poll type", &owner, []string{"message_id", id(poll), "msg_type", "widget", "content", `{"type":"x"}`}, "BAD_REQUEST", "Unknown type for poll data: x"},
				{"todo title by another", &owner, []string{"message_id", id(todo), "msg_type", "widget", "content", `{"type":"new_task_list_title","title":"T"}`}, "BAD_REQUEST", "You can't edit the task list title unless you are the author."},
				{"todo task", &owner, []string{"message_id", id(todo), "msg_type", "widget", "content", `{"type":"new_task","key":1,"task":"t","desc":"d","completed":"no"}`}, "BAD_REQUEST", `todo data["completed"] is not a boolean`},
			} {
				res := e.do(t, request{method: "POST", path: "/submessage", auth: c.c, enc: urlEncoded, params: params(c.params...)})
				if res.status != 400 || res.body["code"] != c.code || res.body["msg"] != c.msg {
					t.Errorf("%s: got %d %s", c.name, res.status, res.raw)
				}
			}
			is.Equal(len(subs.next(t)), 0) // refused submessages send nothing
			for _, ok := range []struct {
				c       *cred
				msg     int64
				content string
			}{
				{&member, poll, `{"type":"question","question":"Dinner?"}`},
				{&owner, poll, `{"type":"new_option","option":"Soup","idx":1}`},
				{&owner, todo, `{"type":"new_task","key":1,"task":"t","desc":"d","completed":false}`},
				{&owner, todo, `{"type":"strike","key":"0,canned"}`},
				{&member, plain, `{"any": "json"}`}, // the sender starts submessages of any message
				{&owner, plain, `[1, 2]`},           // then anyone may add; without a widget, any JSON
			} {
				res := e.do(t, request{method: "POST", path: "/submessage", auth: ok.c, enc: urlEncoded,
					params: params("message_id", id(ok.msg), "msg_type", "widget", "content", ok.content)})
				wantSuccess(t, res)
			}
			is.Equal(len(subs.next(t)), 6) // one event each
		})
	}
}

// ids returns the user ids as answers decode them.
func ids(vs ...int64) []any {
	out := []any{}
	for _, v := range vs {
		out = append(out, json.Number(strconv.FormatInt(v, 10)))
	}
	return out
}

func TestHTTPReadReceipts(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			id := postMessage(t, e, "ZulipMobile/1.0")
			path := fmt.Sprintf("/messages/%d/read_receipts", id)
			receipts := func(c *cred) []any {
				t.Helper()
				res := e.do(t, request{method: "GET", path: path, auth: c})
				wantSuccess(t, res)
				is.Equal(len(res.body), 3) // result, msg and user_ids
				return res.body["user_ids"].([]any)
			}
			read := func(c *cred) {
				t.Helper()
				wantSuccess(t, e.do(t, request{method: "POST", path: "/messages/flags", auth: c, enc: urlEncoded,
					params: params("messages", fmt.Sprintf("[%d]", id), "op", "add", "flag", "read")}))
			}
			is.Equal(receipts(&member), []any{}) // the sender's own read is never listed
			read(&owner)
			read(&guest)
			is.Equal(receipts(&member), ids(11, 15)) // those who read it
			is.Equal(receipts(&owner), ids(11, 15))  // the requester too, as in Zulip
			// Marking read through the narrow moves read marks rather than rows.
			wantSuccess(t, e.do(t, request{method: "POST", path: "/messages/flags/narrow", auth: &admin, enc: urlEncoded,
				params: params("anchor", "oldest", "num_before", "0", "num_after", "1000", "narrow", `[{"operator":"channel","operand":"general"}]`, "op", "add", "flag", "read")}))
			is.Equal(receipts(&member), ids(11, 12, 15)) // read through the narrow

			wantSuccess(t, e.do(t, request{method: "PATCH", path: "/settings", auth: &guest, enc: urlEncoded, params: params("send_read_receipts", "false")}))
			is.Equal(receipts(&member), ids(11, 12)) // the guest keeps its reads to itself
			wantSuccess(t, e.do(t, request{method: "POST", path: "/messages/flags", auth: &owner, enc: urlEncoded,
				params: params("messages", fmt.Sprintf("[%d]", id), "op", "remove", "flag", "read")}))
			is.Equal(receipts(&member), ids(12)) // marked unread again

			wantError(t, e.do(t, request{method: "GET", path: "/messages/999999/read_receipts", auth: &member}), 400, "BAD_REQUEST", "Invalid message(s)")
			wantError(t, e.do(t, request{method: "GET", path: path, auth: &otherBoss}), 400, "BAD_REQUEST", "Invalid message(s)")

			is.Equal(registerSection(t, e, &member, `["realm"]`)["realm_enable_read_receipts"], true) // on by default
			ctx := context.Background()
			is.NoErr(w.Base.Update(ctx, func(tx chatcore.Tx) error {
				r, err := tx.Realm(ctx, 1)
				if err != nil {
					return err
				}
				r.ReadReceiptsDisabled = true
				return tx.UpdateRealm(ctx, r)
			}))
			wantError(t, e.do(t, request{method: "GET", path: path, auth: &member}), 400, "BAD_REQUEST", "Read receipts are disabled in this organization.")
			wantError(t, e.do(t, request{method: "GET", path: "/messages/999999/read_receipts", auth: &member}), 400, "BAD_REQUEST", "Invalid message(s)") // access is checked first
			is.Equal(registerSection(t, e, &member, `["realm"]`)["realm_enable_read_receipts"], false)                                                     // the realm's setting
		})
	}
}
