package main

// The event queue crash test: a child process (this test binary, re-executed
// in child mode by TestMain) runs the server; a queue is registered, a
// message is committed, and the child is killed with SIGKILL before any poll
// could deliver it. A new server on the same database must deliver the
// message to the queue, followed by a restart event.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
)

// serverChildEnv, when set, makes the test binary run the server with the
// arguments it holds (separated by spaces), printing to stdout.
const serverChildEnv = "CHATCORE_SERVER_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(serverChildEnv); v != "" {
		if err := run(context.Background(), strings.Fields(v), os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child is a server running in a child process.
type child struct {
	cmd  *exec.Cmd
	base string
}

// startChild runs the server in a child process on the database file.
func startChild(tb testing.TB, db string) *child {
	tb.Helper()
	return startChildWith(tb, "-db "+db)
}

// startChildWith runs the server in a child process with the arguments
// (separated by spaces) after -addr.
func startChildWith(tb testing.TB, args string) *child {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serverChildEnv+"=-addr 127.0.0.1:0 "+args)
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	c := &child{cmd: cmd}
	tb.Cleanup(func() { c.kill() })
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
				break
			}
		}
		io.Copy(io.Discard, out) //nolint:errcheck // drain
	}()
	select {
	case c.base = <-found:
	case <-time.After(30 * time.Second):
		tb.Fatal("the child server did not start")
	}
	return c
}

// kill ends the child with SIGKILL: no deferred code, no graceful shutdown.
func (c *child) kill() {
	if c.cmd.ProcessState == nil {
		c.cmd.Process.Kill() //nolint:errcheck // may be gone already
		c.cmd.Wait()         //nolint:errcheck // killed
	}
}

// call sends an API request as user:key and decodes the answer.
func (c *child) call(tb testing.TB, method, path, user, key string, form url.Values) map[string]any {
	tb.Helper()
	target := c.base + "/api/v1" + path
	var body io.Reader
	if method == http.MethodGet {
		target += "?" + form.Encode()
	} else {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		tb.Fatal(err)
	}
	req.SetBasicAuth(user, key)
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		tb.Fatal(err)
	}
	if out["result"] != "success" {
		tb.Fatalf("%s %s: %v", method, path, out)
	}
	return out
}

const (
	demoMember    = "max@acme.test"
	demoMemberKey = "MK2xTY2xA6bznBRkirAgsXOhyl9F6sn2"
)

func TestEventQueueSurvivesKill(t *testing.T) {
	is := is.New(t)
	db := filepath.Join(t.TempDir(), "crash.db")
	first := startChild(t, db)
	reg := first.call(t, "POST", "/register", demoMember, demoMemberKey, url.Values{"event_types": {`["message","restart"]`}})
	queue := reg["queue_id"].(string)
	sent := first.call(t, "POST", "/messages", demoOwner, demoOwnerKey, url.Values{
		"type": {"stream"}, "to": {"general"}, "topic": {"crash"}, "content": {"committed before the kill"}})
	first.kill() // the commit happened; no poll has delivered it

	second := startChild(t, db)
	got := second.call(t, "GET", "/events", demoMember, demoMemberKey, url.Values{"queue_id": {queue}, "last_event_id": {"-1"}})
	evs := got["events"].([]any)
	is.Equal(len(evs), 2) // the message and the restart
	ev := evs[0].(map[string]any)
	is.Equal(ev["type"], "message")                            // the message committed before the kill
	is.Equal(ev["message"].(map[string]any)["id"], sent["id"]) // that very message
	is.Equal(evs[1].(map[string]any)["type"], "restart")       // then the restart
}

func TestWebhookDeliverySurvivesKill(t *testing.T) {
	is := is.New(t)
	var requests atomic.Int32
	hanging := make(chan struct{}, 1)
	answer := atomic.Bool{}
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		io.ReadAll(r.Body) //nolint:errcheck // lets the server notice the client going away
		if !answer.Load() {
			hanging <- struct{}{}
			<-r.Context().Done() // the first server is killed during this attempt
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"content":"pong"}`) //nolint:errcheck // the test reads the reply
	}))
	defer hook.Close()
	dir := t.TempDir()
	fixture := filepath.Join(dir, "hook.json")
	is.NoErr(os.WriteFile(fixture, []byte(`{"realms":[{"id":1,"string_id":"x","name":"X",
		"users":[{"id":1,"email":"a@x.test","full_name":"A","role":"owner","api_key":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}],
		"bots":[{"id":2,"email":"echo@x.test","full_name":"Echo","owner_id":1,"api_key":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		         "bot_type":"outgoing_webhook","service":{"base_url":"`+hook.URL+`","token":"t0k","interface":"generic"}}],
		"channels":[{"id":10,"name":"general","subscribers":[1,2]}]}]}`), 0o644))
	db := filepath.Join(dir, "hook.db")
	args := "-webhook-allow-private -webhook-timeout 1s"
	first := startChildWith(t, "-db "+db+" -seed "+fixture+" "+args)
	const user, key = "a@x.test", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	first.call(t, "POST", "/messages", user, key, url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"t"}, "content": {"@**Echo** ping"}})
	select {
	case <-hanging: // the first attempt is under way
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook was not called")
	}
	first.kill()

	answer.Store(true)
	second := startChildWith(t, "-db "+db+" "+args)
	var replies []string
	for deadline := time.Now().Add(30 * time.Second); len(replies) == 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the delivery pending at the kill was not made after the restart")
		}
		replies = repliesOf(t, second, user, key)
	}
	time.Sleep(2 * time.Second)                                 // let a duplicate show up, if there were one
	is.Equal(repliesOf(t, second, user, key), []string{"pong"}) // delivered and answered once
	is.Equal(requests.Load(), int32(2))                         // the attempt cut short by the kill, then one more
}

// repliesOf returns the contents of Echo's messages in the realm of user.
func repliesOf(t *testing.T, c *child, user, key string) []string {
	t.Helper()
	got := c.call(t, "GET", "/messages", user, key, url.Values{"anchor": {"newest"}, "num_before": {"100"}, "num_after": {"0"}, "apply_markdown": {"false"}})
	var out []string
	for _, m := range got["messages"].([]any) {
		m := m.(map[string]any)
		if m["sender_email"] == "echo@x.test" {
			out = append(out, m["content"].(string))
		}
	}
	return out
}
