package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
)

var (
	echoListening   = regexp.MustCompile(`echobot listening on (http://\S+)`)
	serverListening = regexp.MustCompile(`listening on (http://\S+)`)
	payloadLine     = regexp.MustCompile(`(?m)^payload: (.*)$`)
)

// The demo organization's owner (testdata/demo.json).
const (
	demoOwner    = "olivia@acme.test"
	demoOwnerKey = "KGpOyQNcdOyZbkBFTFoOxtzHq8STZHE6"
)

// waitFor polls f every 20 ms until it reports true or 20 s have passed.
func waitFor(f func() bool) bool {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if f() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// TestEchoBotWithExampleServer runs the echo bot (in process, through run) and
// the example server (built from examples/server and started as a program with
// the demo organization, its Echo Bot pointed at this echo bot), sends a
// message mentioning the bot and waits for the echo in the topic.
func TestEchoBotWithExampleServer(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()

	// The echo bot.
	botOut := &syncbuf.Buffer{}
	ctx, cancel := context.WithCancel(t.Context())
	botDone := make(chan error, 1)
	go func() { botDone <- run(ctx, []string{"-addr", "127.0.0.1:0", "-print"}, botOut) }()
	t.Cleanup(func() {
		cancel()
		<-botDone
	})
	var botURL string
	is.True(waitFor(func() bool { // the echo bot listens
		m := echoListening.FindStringSubmatch(botOut.String())
		if m != nil {
			botURL = m[1]
		}
		return m != nil
	}))

	// The demo fixture, its Echo Bot pointed at the running echo bot.
	demo, err := os.ReadFile(filepath.Join("..", "..", "testdata", "demo.json"))
	is.NoErr(err)                                                     // the demo fixture is there
	is.True(bytes.Contains(demo, []byte(`"http://127.0.0.1:8765/"`))) // the demo's echo bot URL
	is.True(bytes.Contains(demo, []byte(`"token": "`+DemoToken+`"`))) // the demo's echo bot token is echobot's default
	fixture := filepath.Join(dir, "demo.json")
	is.NoErr(os.WriteFile(fixture, bytes.ReplaceAll(demo, []byte("http://127.0.0.1:8765/"), []byte(botURL)), 0o644)) // fixture written

	// The example server, built in the test's own mode so the build cache is shared.
	bin := filepath.Join(dir, "server")
	args := []string{"build", "-o", bin}
	if raceEnabled {
		args = append(args, "-race")
	}
	build := exec.CommandContext(t.Context(), "go", append(args, "github.com/chatcore/chatcore/examples/server")...)
	out, err := build.CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	srvOut := &syncbuf.Buffer{}
	srv := exec.Command(bin, "-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "chatcore.db"),
		"-seed", fixture, "-webhook-allow-private")
	srv.Stdout, srv.Stderr = srvOut, srvOut
	is.NoErr(srv.Start()) // the server starts
	srvDone := make(chan error, 1)
	go func() { srvDone <- srv.Wait() }()
	t.Cleanup(func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		select {
		case <-srvDone:
		case <-time.After(10 * time.Second):
			_ = srv.Process.Kill()
			<-srvDone
		}
	})
	var base string
	ready := waitFor(func() bool {
		m := serverListening.FindStringSubmatch(srvOut.String())
		if m == nil {
			return false
		}
		base = m[1]
		res, err := http.Get(base + "/api/v1/server_settings")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	})
	if !ready {
		t.Fatalf("example server not ready:\n%s", srvOut.String())
	}

	call := func(method, path string, form url.Values) map[string]any {
		t.Helper()
		is := is.New(t)
		var req *http.Request
		var err error
		if method == http.MethodGet {
			req, err = http.NewRequest(method, base+"/api/v1"+path+"?"+form.Encode(), nil)
		} else {
			req, err = http.NewRequest(method, base+"/api/v1"+path, strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		is.NoErr(err) // request built
		req.SetBasicAuth(demoOwner, demoOwnerKey)
		res, err := http.DefaultClient.Do(req)
		is.NoErr(err) // the server answers
		defer res.Body.Close()
		var v map[string]any
		is.NoErr(json.NewDecoder(res.Body).Decode(&v)) // a JSON answer
		is.Equal(v["result"], "success")               // the call succeeds
		return v
	}

	sent := call(http.MethodPost, "/messages", url.Values{
		"type": {"stream"}, "to": {"general"}, "topic": {"echo e2e"},
		"content": {"@**Echo Bot** hello from the end-to-end test"},
	})
	narrow := `[{"operator":"channel","operand":"general"},{"operator":"topic","operand":"echo e2e"}]`
	var reply map[string]any
	found := waitFor(func() bool {
		res := call(http.MethodGet, "/messages", url.Values{
			"anchor": {"newest"}, "num_before": {"10"}, "num_after": {"0"}, "narrow": {narrow},
		})
		msgs, _ := res["messages"].([]any)
		for _, m := range msgs {
			m := m.(map[string]any)
			if m["sender_email"] == "echo-bot@acme.test" {
				reply = m
				return true
			}
		}
		return false
	})
	if !found {
		t.Fatalf("no reply from the echo bot in the topic\nserver:\n%s\necho bot:\n%s", srvOut.String(), botOut.String())
	}
	is.Equal(reply["content"], "<p>hello from the end-to-end test</p>") // the text without the mention, rendered
	is.Equal(reply["client"], "OutgoingWebhookResponse")                // posted as the webhook's reply
	is.True(reply["id"].(float64) > sent["id"].(float64))               // after the triggering message

	// The payload the example server sent, as the echo bot received it.
	m := payloadLine.FindStringSubmatch(botOut.String())
	is.True(m != nil) // the echo bot printed the payload
	var payload map[string]any
	is.NoErr(json.Unmarshal([]byte(m[1]), &payload))                          // a JSON payload
	is.Equal(payload["trigger"], "mention")                                   // mention trigger
	is.Equal(payload["token"], DemoToken)                                     // the demo service token
	is.Equal(payload["data"], "@**Echo Bot** hello from the end-to-end test") // raw Markdown
	is.Equal(payload["message"].(map[string]any)["id"], sent["id"])           // the triggering message
	var pretty bytes.Buffer
	_ = json.Indent(&pretty, []byte(m[1]), "", "  ")
	t.Logf("payload sent by examples/server:\n%s", pretty.String())
}
