package httpadapter_test

import (
	"encoding/json"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// pythonClient replays the request shapes of the Python zulip package
// (zulip/__init__.py): POST parameters form-encoded, every non-string value
// JSON-encoded (so None becomes "null"), GET parameters in the query string.
type pythonClient struct {
	e    *env
	auth *cred
}

// call is Client.call_endpoint.
func (p pythonClient) call(t *testing.T, method, url string, req map[string]any) *response {
	t.Helper()
	form := params()
	for k, v := range req {
		if s, ok := v.(string); ok {
			form.Set(k, s)
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		form.Set(k, string(b))
	}
	enc := urlEncoded
	if method == "GET" {
		enc = inQuery
	}
	return p.e.do(t, request{method: method, path: "/" + url, auth: p.auth, enc: enc, params: form})
}

// register is Client.register(event_types, narrow, **kwargs).
func (p pythonClient) register(t *testing.T, eventTypes []string, narrow [][]string) *response {
	if narrow == nil {
		narrow = [][]string{}
	}
	var et any
	if eventTypes != nil {
		et = eventTypes
	}
	return p.call(t, "POST", "register", map[string]any{"event_types": et, "narrow": narrow})
}

// callOnEachMessage is Client.call_on_each_message: it registers for message
// events, polls, re-registers when the queue is gone (BAD_EVENT_QUEUE_ID),
// and hands each message to callback until it returns false. before runs
// ahead of each poll.
func (p pythonClient) callOnEachMessage(t *testing.T, before func(queueID string), callback func(event map[string]any) bool) {
	t.Helper()
	queueID := ""
	var lastEventID int64
	for range 20 {
		if queueID == "" {
			res := p.register(t, []string{"message"}, nil)
			wantSuccess(t, res)
			queueID = res.body["queue_id"].(string)
			lastEventID = num(t, res.body["last_event_id"])
		}
		before(queueID)
		res := p.call(t, "GET", "events", map[string]any{"queue_id": queueID, "last_event_id": lastEventID})
		if res.body["result"] != "success" {
			if res.body["code"] == "BAD_EVENT_QUEUE_ID" {
				queueID = ""
			}
			continue
		}
		for _, ev := range res.body["events"].([]any) {
			e := ev.(map[string]any)
			lastEventID = max(lastEventID, num(t, e["id"]))
			if e["type"] == "message" && !callback(e) {
				return
			}
		}
	}
	t.Fatal("the loop never finished")
}

func TestPythonClientEventShapes(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	py := pythonClient{e: e, auth: &member}
	sender := pythonClient{e: e, auth: &owner}

	// client.register() with no arguments: event_types=null, narrow=[].
	res := py.register(t, nil, nil)
	wantSuccess(t, res)
	queueID := res.body["queue_id"].(string)
	is.Equal(num(t, res.body["last_event_id"]), int64(-1)) // a new queue
	is.Equal(ignoredOf(res), nil)                          // every parameter read
	// client.get_events(queue_id=..., last_event_id=-1, dont_block=True).
	res = py.call(t, "GET", "events", map[string]any{"queue_id": queueID, "last_event_id": -1, "dont_block": true})
	wantSuccess(t, res)
	is.Equal(len(res.body["events"].([]any)), 0) // nothing yet
	// client.deregister(queue_id).
	wantSuccess(t, py.call(t, "DELETE", "events", map[string]any{"queue_id": queueID}))
	res = py.call(t, "DELETE", "events", map[string]any{"queue_id": queueID})
	wantError(t, res, 400, "BAD_EVENT_QUEUE_ID", "Bad event queue ID: "+queueID)

	// call_on_each_message: the first message arrives; then the queue goes
	// away (deregistered behind the loop's back, as when it expires), the
	// loop re-registers and gets the next message.
	var got []string
	polls := 0
	py.callOnEachMessage(t, func(queueID string) {
		polls++
		switch polls {
		case 1:
			send(t, sender, "first")
		case 2:
			wantSuccess(t, py.call(t, "DELETE", "events", map[string]any{"queue_id": queueID}))
		case 3:
			send(t, sender, "second")
		}
	}, func(ev map[string]any) bool {
		got = append(got, ev["message"].(map[string]any)["content"].(string))
		return len(got) < 2
	})
	is.Equal(got, []string{"first", "second"}) // both messages, the second on a new queue
	is.Equal(polls, 3)                         // the gone queue cost one poll
}

// send is client.send_message as the Python client sends it.
func send(t *testing.T, p pythonClient, content string) {
	t.Helper()
	res := p.call(t, "POST", "messages", map[string]any{"type": "stream", "to": "general", "topic": "py", "content": content})
	wantSuccess(t, res)
}
