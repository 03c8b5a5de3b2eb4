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
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serverChildEnv+"=-addr 127.0.0.1:0 -db "+db)
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
