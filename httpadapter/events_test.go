package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// registerQueue registers an event queue for c over HTTP and returns its id.
func registerQueue(tb testing.TB, e *env, c *cred, kv ...string) string {
	tb.Helper()
	res := e.do(tb, request{method: "POST", path: "/register", auth: c, enc: urlEncoded, params: params(append([]string{"fetch_event_types", "[]"}, kv...)...)})
	wantSuccess(tb, res)
	id, _ := res.body["queue_id"].(string)
	if id == "" {
		tb.Fatalf("no queue id: %s", res.raw)
	}
	return id
}

func TestHTTPEvents(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			t.Run("a message reaches a waiting poll", func(t *testing.T) {
				is := is.New(t)
				id := registerQueue(t, e, &member, "event_types", `["message"]`, "apply_markdown", "true")
				done := make(chan *response, 1)
				go func() {
					done <- e.do(t, request{method: "GET", path: "/events", auth: &member, enc: inQuery, params: params("queue_id", id, "last_event_id", "-1")})
				}()
				sent := e.do(t, request{method: "POST", path: "/messages", auth: &owner, enc: urlEncoded, params: params("type", "stream", "to", "general", "topic", "t", "content", "**hi**")})
				wantSuccess(t, sent)
				res := <-done
				wantSuccess(t, res)
				evs := res.body["events"].([]any)
				is.Equal(len(evs), 1) // the message event
				ev := evs[0].(map[string]any)
				is.Equal(ev["type"], "message")
				msg := ev["message"].(map[string]any)
				is.Equal(num(t, msg["id"]), num(t, sent.body["id"]))   // the message sent
				is.Equal(msg["content"], "<p><strong>hi</strong></p>") // rendered, as asked
				is.Equal(ignoredOf(res), nil)                          // every parameter read
				last := num(t, ev["id"])
				res = e.do(t, request{method: "GET", path: "/events", auth: &member, enc: inQuery, params: params("queue_id", id, "last_event_id", strconv.FormatInt(last, 10), "dont_block", "true")})
				wantSuccess(t, res)
				is.Equal(len(res.body["events"].([]any)), 0) // acknowledged: nothing left
			})
			t.Run("errors", func(t *testing.T) {
				is := is.New(t)
				id := registerQueue(t, e, &member)
				get := func(c *cred, kv ...string) *response {
					return e.do(t, request{method: "GET", path: "/events", auth: c, enc: inQuery, params: params(kv...)})
				}
				wantError(t, get(&member), 400, "BAD_REQUEST", "Missing 'queue_id' argument")
				wantError(t, get(&member, "queue_id", id), 400, "BAD_REQUEST", "Missing 'last_event_id' argument")
				res := get(&member, "queue_id", "nope", "last_event_id", "-1")
				wantError(t, res, 400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: nope")
				is.Equal(res.body["queue_id"], "nope") // echoed
				res = get(&owner, "queue_id", id, "last_event_id", "-1")
				wantError(t, res, 400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: "+id) // another user's queue
				is.Equal(res.body["queue_id"], id)
				wantError(t, get(&otherBoss, "queue_id", id, "last_event_id", "-1"), 400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: "+id)
				wantError(t, get(&member, "queue_id", id, "last_event_id", "x"), 400, "BAD_REQUEST", "last_event_id is not valid JSON")
				del := func(c *cred, kv ...string) *response {
					return e.do(t, request{method: "DELETE", path: "/events", auth: c, enc: urlEncoded, params: params(kv...)})
				}
				wantError(t, del(&member), 400, "BAD_REQUEST", "Missing 'queue_id' argument")
				wantError(t, del(&owner, "queue_id", id), 400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: "+id)
				wantSuccess(t, del(&member, "queue_id", id))
				wantError(t, get(&member, "queue_id", id, "last_event_id", "-1"), 400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: "+id) // gone
				wantError(t, del(&member, "queue_id", id), 400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: "+id)
				res = e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("narrow", `[["search","x"]]`)})
				wantError(t, res, 400, "BAD_REQUEST", "Operator search not supported.")
			})
		})
	}
}

func TestHTTPTyping(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	id := registerQueue(t, e, &member, "event_types", `["typing"]`, "client_capabilities", `{"stream_typing_notifications":true}`)
	post := func(kv ...string) *response {
		return e.do(t, request{method: "POST", path: "/typing", auth: &owner, enc: urlEncoded, params: params(kv...)})
	}
	me := e.do(t, request{method: "GET", path: "/users/me", auth: &member})
	memberID := strconv.FormatInt(num(t, me.body["user_id"]), 10)
	wantSuccess(t, post("op", "start", "to", "["+memberID+"]"))
	wantSuccess(t, post("op", "stop", "type", "channel", "stream_id", "61", "topic", "lunch"))
	res := e.do(t, request{method: "GET", path: "/events", auth: &member, enc: inQuery, params: params("queue_id", id, "last_event_id", "-1", "dont_block", "true")})
	wantSuccess(t, res)
	evs := res.body["events"].([]any)
	is.Equal(len(evs), 2) // both typing events
	is.Equal(evs[0].(map[string]any)["op"], "start")
	is.Equal(evs[1].(map[string]any)["topic"], "lunch")
	wantError(t, post("to", "["+memberID+"]"), 400, "REQUEST_VARIABLE_MISSING", "Missing 'op' argument")
	wantError(t, post("op", "start"), 400, "BAD_REQUEST", "Missing 'to' argument")
	wantError(t, post("op", "start", "type", "stream", "stream_id", "61"), 400, "BAD_REQUEST", "Missing topic")
}

// TestHTTPEventPayloadsMatchOpenAPI checks the objects events carry against
// Zulip's descriptions of the same objects in the served excerpt: a message
// event's message (as GET /messages/{message_id} describes it, both content
// forms), a scheduled_messages event's list (GET /scheduled_messages) and a
// reminders event's (GET /reminders).
func TestHTTPEventPayloadsMatchOpenAPI(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	raw := registerQueue(t, e, &member)
	html := registerQueue(t, e, &member, "apply_markdown", "true")
	sent := e.do(t, request{method: "POST", path: "/messages", auth: &owner, enc: urlEncoded, params: params("type", "stream", "to", "general", "topic", "api", "content", "**checked**")})
	wantSuccess(t, sent)
	scheduledID(t, e)
	wantSuccess(t, e.do(t, request{method: "POST", path: "/reminders", auth: &member, enc: urlEncoded,
		params: params("message_id", strconv.FormatInt(num(t, sent.body["id"]), 10), "scheduled_delivery_timestamp", inAnHour())}))
	seen := map[string]int{}
	for _, q := range []string{raw, html} {
		res := e.do(t, request{method: "GET", path: "/events", auth: &member, enc: inQuery, params: params("queue_id", q, "last_event_id", "-1", "dont_block", "true")})
		wantSuccess(t, res)
		for _, ev := range res.body["events"].([]any) {
			m := ev.(map[string]any)
			typ := m["type"].(string)
			var wrapped map[string]any
			var template string
			switch typ {
			case "message":
				wrapped, template = map[string]any{"message": m["message"]}, "/messages/{message_id}"
			case "scheduled_messages":
				wrapped, template = map[string]any{"scheduled_messages": m["scheduled_messages"]}, "/scheduled_messages"
			case "reminders":
				wrapped, template = map[string]any{"reminders": m["reminders"]}, "/reminders"
			default:
				continue
			}
			seen[typ]++
			wrapped["result"], wrapped["msg"] = "success", ""
			body, err := json.Marshal(wrapped)
			is.NoErr(err)
			checkServed(t, "GET", template, &response{status: 200, header: http.Header{"Content-Type": {"application/json"}}, raw: body})
		}
	}
	is.Equal(seen, map[string]int{"message": 2, "scheduled_messages": 2, "reminders": 2}) // every payload checked, in both queues
}
