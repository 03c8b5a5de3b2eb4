package main

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
)

// TestRunPostgres runs the example server on PostgreSQL: the demo is seeded
// into an empty database, kept across a restart, and -seed refuses it then.
func TestRunPostgres(t *testing.T) {
	is := is.New(t)
	db := pgtest.URL(t)
	s := start(t, "-db", db, "-db-pool", "4")
	status, body := s.call(t, "GET", "/server_settings", "", "", nil)
	is.Equal(status, 200)                                     // ready
	is.Equal(body["realm_name"], "Acme Corp")                 // the demo was seeded
	is.True(strings.Contains(s.out.String(), "PostgreSQL"))   // the store is named
	is.True(strings.Contains(s.out.String(), "curl -sS -u ")) // with curl lines
	is.True(!strings.Contains(s.out.String(), "password"))    // and no password
	status, body = s.call(t, "POST", "/messages", demoOwner, demoOwnerKey,
		url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"pg"}, "content": {"on PostgreSQL"}})
	is.Equal(status, 200) // sent
	id := jsonID(body["id"])
	is.NoErr(s.stop(t)) // a clean shutdown

	s2 := start(t, "-db", db)
	status, body = s2.call(t, "GET", "/messages/"+id, demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200) // the message survived the restart
	is.Equal(body["message"].(map[string]any)["content"], "<p>on PostgreSQL</p>")
	is.NoErr(s2.stop(t))

	fixture := filepath.Join(t.TempDir(), "one.json")
	is.NoErr(os.WriteFile(fixture, []byte(`{"realms":[{"id":1,"string_id":"x","name":"Seeded Org","users":[{"id":1,"email":"a@x.test","full_name":"A","role":"owner","api_key":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}]}`), 0o644))
	err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-db", db, "-seed", fixture}, io.Discard)
	is.True(err != nil)                                          // a used database is not seeded
	is.True(strings.Contains(err.Error(), "already holds data")) // and says why

	s3 := start(t, "-db", pgtest.URL(t), "-seed", fixture)
	status, body = s3.call(t, "GET", "/users/me", "a@x.test", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", nil)
	is.Equal(status, 200)            // -seed loads a new PostgreSQL database
	is.Equal(body["full_name"], "A") // from the fixture
}

// process is an example server running as a child process.
type process struct {
	base string
	out  *syncbuf.Buffer
	cmd  *exec.Cmd
}

// call sends a request with Basic auth and decodes the JSON answer.
func (p *process) call(tb testing.TB, method, path, user, key string, form url.Values) (int, map[string]any) {
	tb.Helper()
	return (&server{base: p.base}).call(tb, method, path, user, key, form)
}

// buildServer builds the example server into a temporary directory.
func buildServer(tb testing.TB) string {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "server")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// spawn starts the built server with args (plus -addr 127.0.0.1:0) and waits
// for its listening line; it is stopped with SIGTERM when the test ends.
func spawn(tb testing.TB, bin string, args ...string) *process {
	tb.Helper()
	p := &process{out: &syncbuf.Buffer{}}
	p.cmd = exec.Command(bin, append([]string{"-addr", "127.0.0.1:0"}, args...)...)
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	p.cmd.Stderr = p.out
	if err := p.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = p.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = p.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.cmd.Process.Kill()
			<-done
		}
		if tb.Failed() {
			tb.Logf("server %s output:\n%s", p.base, p.out.String())
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(p.out, line)
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case ready <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case p.base = <-ready:
	case <-time.After(60 * time.Second):
		tb.Fatalf("server not ready:\n%s", p.out.String())
	}
	return p
}

// messagesWith returns the ids of the newest messages of the general
// channel whose rendered content is content, as seen through p.
func messagesWith(tb testing.TB, p *process, content string) []string {
	tb.Helper()
	status, body := p.call(tb, "GET", "/messages", demoOwner, demoOwnerKey, url.Values{
		"anchor": {"newest"}, "num_before": {"100"}, "num_after": {"0"},
		"narrow": {`[{"operator":"channel","operand":"general"}]`},
	})
	if status != 200 {
		tb.Fatalf("GET /messages: %d %v", status, body)
	}
	var ids []string
	for _, m := range body["messages"].([]any) {
		m := m.(map[string]any)
		if m["content"] == content {
			ids = append(ids, jsonID(m["id"]))
		}
	}
	return ids
}

// TestTwoInstances runs two example-server processes on one PostgreSQL
// database, as behind a load balancer: what is written through one is served
// by the other at once, a poll waiting on one is woken by a message sent
// through the other, a queue is polled through either, and a scheduled
// message that both deliverers see is delivered exactly once.
func TestTwoInstances(t *testing.T) {
	is := is.New(t)
	db := pgtest.URL(t)
	bin := buildServer(t)
	a := spawn(t, bin, "-db", db, "-deliver-every", "50ms", "-db-pool", "4")
	b := spawn(t, bin, "-db", db, "-deliver-every", "50ms", "-db-pool", "4") // the demo is in already: b uses it as it is

	// A message sent through one instance is served by the other.
	status, body := a.call(t, "POST", "/messages", demoOwner, demoOwnerKey,
		url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"two"}, "content": {"through a"}})
	is.Equal(status, 200) // sent through a
	id := jsonID(body["id"])
	status, body = b.call(t, "GET", "/messages/"+id, demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200) // read through b at once
	is.Equal(body["message"].(map[string]any)["content"], "<p>through a</p>")

	// A change through b is what a serves.
	status, _ = b.call(t, "PATCH", "/settings", demoOwner, demoOwnerKey, url.Values{"full_name": {"Olivia Two"}})
	is.Equal(status, 200) // changed through b
	status, body = a.call(t, "GET", "/users/me", demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200)                     // read through a
	is.Equal(body["full_name"], "Olivia Two") // the new name at once

	// An event queue registered through a receives a message sent through
	// b: a's waiting poll is woken across instances.
	status, body = a.call(t, "POST", "/register", demoOwner, demoOwnerKey, url.Values{"event_types": {`["message"]`}})
	is.Equal(status, 200) // registered through a
	queue, last := body["queue_id"].(string), jsonID(body["last_event_id"])
	type poll struct {
		status int
		body   map[string]any
		took   time.Duration
	}
	polled := make(chan poll, 1)
	go func() {
		start := time.Now()
		status, body := a.call(t, "GET", "/events", demoOwner, demoOwnerKey, url.Values{"queue_id": {queue}, "last_event_id": {last}})
		polled <- poll{status, body, time.Since(start)}
	}()
	time.Sleep(200 * time.Millisecond) // the poll is waiting
	sent := time.Now()
	status, _ = b.call(t, "POST", "/messages", demoOwner, demoOwnerKey,
		url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"two"}, "content": {"through b"}})
	is.Equal(status, 200) // sent through b
	var p poll
	select {
	case p = <-polled:
	case <-time.After(10 * time.Second):
		t.Fatal("a's poll was not woken within 10 s")
	}
	is.Equal(p.status, 200) // answered
	events := p.body["events"].([]any)
	is.Equal(len(events), 1) // the message
	ev := events[0].(map[string]any)
	is.Equal(ev["message"].(map[string]any)["content"], "through b") // raw Markdown: the queue did not ask for HTML
	t.Logf("cross-instance wake-up: poll answered %v after the send began", time.Since(sent))

	// The same queue is polled through b.
	status, _ = a.call(t, "POST", "/messages", demoOwner, demoOwnerKey,
		url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"two"}, "content": {"again through a"}})
	is.Equal(status, 200) // sent through a
	status, body = b.call(t, "GET", "/events", demoOwner, demoOwnerKey, url.Values{
		"queue_id": {queue}, "last_event_id": {jsonID(ev["id"])}, "dont_block": {"true"}})
	is.Equal(status, 200) // polled through b
	events = body["events"].([]any)
	is.Equal(len(events), 1) // the next message, and not the acknowledged one again
	is.Equal(events[0].(map[string]any)["message"].(map[string]any)["content"], "again through a")

	// Scheduled messages due now: both instances deliver every 50 ms, each
	// message goes out once.
	// The timestamp is in whole seconds: 3 s ahead keeps it in the future
	// (as scheduling requires) after truncation and a slow request.
	when := strconv.FormatInt(time.Now().Add(3*time.Second).Unix(), 10)
	const n = 5
	for i := range n {
		status, body = a.call(t, "POST", "/scheduled_messages", demoOwner, demoOwnerKey, url.Values{
			"type": {"stream"}, "to": {"61"}, "topic": {"later"}, "content": {fmt.Sprintf("scheduled %d", i)},
			"scheduled_delivery_timestamp": {when},
		})
		is.Equal(status, 200)                        // scheduled through a
		is.True(body["scheduled_message_id"] != nil) // with its id
	}
	deadline := time.Now().Add(20 * time.Second)
	for i := range n {
		content := fmt.Sprintf("<p>scheduled %d</p>", i)
		var ids []string
		for time.Now().Before(deadline) {
			if ids = messagesWith(t, b, content); len(ids) > 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		is.Equal(len(ids), 1) // delivered
	}
	time.Sleep(300 * time.Millisecond) // several more delivery rounds of both instances
	for i := range n {
		is.Equal(len(messagesWith(t, a, fmt.Sprintf("<p>scheduled %d</p>", i))), 1) // and exactly once
	}
}
