package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"mime/quotedprintable"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
)

// server is a run in progress.
type server struct {
	base   string
	out    *syncbuf.Buffer
	cancel context.CancelFunc
	done   chan error
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// start calls run with args (plus -addr 127.0.0.1:0) and waits until the
// server answers GET /api/v1/server_settings with 200.
func start(tb testing.TB, args ...string) *server {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{out: &syncbuf.Buffer{}, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), s.out) }()
	tb.Cleanup(func() { s.stop(tb) })
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-s.done:
			s.done <- err
			tb.Fatalf("run returned early: %v\n%s", err, s.out.String())
		default:
		}
		if m := listening.FindStringSubmatch(s.out.String()); m != nil {
			s.base = m[1]
			res, err := http.Get(s.base + "/api/v1/server_settings")
			if err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					return s
				}
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	tb.Fatalf("server not ready:\n%s", s.out.String())
	return nil
}

// stop cancels run (as SIGTERM does) and returns its error; it must return
// within 5 s.
func (s *server) stop(tb testing.TB) error {
	tb.Helper()
	if s.cancel == nil {
		return nil
	}
	s.cancel()
	s.cancel = nil
	select {
	case err := <-s.done:
		return err
	case <-time.After(5 * time.Second):
		tb.Fatal("run did not return within 5 s of cancellation")
		return nil
	}
}

// call sends a request with Basic auth and decodes the JSON answer.
func (s *server) call(tb testing.TB, method, path, user, key string, form url.Values) (int, map[string]any) {
	tb.Helper()
	is := is.New(tb)
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, s.base+"/api/v1"+path, body)
	is.NoErr(err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if user != "" {
		req.SetBasicAuth(user, key)
	}
	res, err := http.DefaultClient.Do(req)
	is.NoErr(err) // the server answers
	defer res.Body.Close()
	var out map[string]any
	is.NoErr(json.NewDecoder(res.Body).Decode(&out)) // a JSON answer
	return res.StatusCode, out
}

// newOwner is the demo owner's address after TestRun's e-mail change.
const newOwner = "olivia.new@acme.test"

const (
	demoOwner    = "olivia@acme.test"
	demoOwnerKey = "KGpOyQNcdOyZbkBFTFoOxtzHq8STZHE6"
)

func TestRun(t *testing.T) {
	is := is.New(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "chat.db")
	mail := filepath.Join(dir, "mail")
	s := start(t, "-db", db, "-mail-dir", mail)

	status, body := s.call(t, "GET", "/server_settings", "", "", nil)
	is.Equal(status, 200)                                                   // ready
	is.Equal(body["realm_name"], "Acme Corp")                               // the demo was seeded
	is.True(strings.HasPrefix(body["zulip_version"].(string), "chatcore ")) // chatcore's version

	t.Run("printed curl lines work", func(t *testing.T) {
		is := is.New(t)
		lines := curlLines(s.out.String())
		is.True(len(lines) >= 6) // the demo prints a handful of commands
		for _, line := range lines {
			status, body := runCurl(t, line)
			if status != 200 {
				t.Logf("%s\n-> %d %v", line, status, body)
			}
			is.Equal(status, 200)               // each command succeeds
			is.Equal(body["result"], "success") // in Zulip's envelope
		}
	})

	t.Run("e-mail goes to -mail-dir as an RFC 5322 file", func(t *testing.T) {
		is := is.New(t)
		status, _ := s.call(t, "PATCH", "/settings", demoOwner, demoOwnerKey, url.Values{"email": {newOwner}})
		is.Equal(status, 200) // change requested
		var files []string
		for range 100 {
			files, _ = filepath.Glob(filepath.Join(mail, "*.eml"))
			if len(files) > 0 {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		is.Equal(len(files), 1) // written promptly
		data, err := os.ReadFile(files[0])
		is.NoErr(err)
		msg := string(data)
		is.True(strings.Contains(msg, "To: olivia.new@acme.test\r\n")) // addressed to the new address
		is.True(strings.Contains(msg, "\r\n\r\n"))                     // headers end with an empty line
		is.True(strings.Contains(msg, "Message-ID: <"))                // a message id
		_, mailBody, _ := strings.Cut(msg, "\r\n\r\n")
		text, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(mailBody)))
		is.NoErr(err) // the body is valid quoted-printable
		link := regexp.MustCompile(`http://\S+/accounts/confirm_new_email/[A-Za-z0-9]+`).FindString(string(text))
		is.True(strings.HasPrefix(link, s.base)) // the mail links to this server

		res, err := http.Get(link)
		is.NoErr(err)
		res.Body.Close()
		is.Equal(res.StatusCode, 200) // following the link confirms the change
		status, me := s.call(t, "GET", "/users/me", newOwner, demoOwnerKey, nil)
		is.Equal(status, 200)                    // the new address logs in
		is.Equal(me["delivery_email"], newOwner) // changed
	})

	t.Run("deletion through the server", func(t *testing.T) {
		is := is.New(t)
		status, body := s.call(t, "POST", "/streams/62/delete_topic", newOwner, demoOwnerKey, url.Values{"topic_name": {"Code Review"}})
		is.Equal(status, 200)            // deleted
		is.Equal(body["complete"], true) // in one go
	})

	// Stop and start again on the same database: the data is kept as it is.
	is.NoErr(s.stop(t))                                        // a clean shutdown
	is.True(strings.Contains(s.out.String(), "shutting down")) // said so

	s2 := start(t, "-db", db)
	status, body = s2.call(t, "POST", "/messages", newOwner, demoOwnerKey,
		url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"again"}, "content": {"hi"}})
	is.Equal(status, 200) // the same credentials work
	status, body = s2.call(t, "POST", "/messages/"+jsonID(body["id"]), newOwner, demoOwnerKey, nil)
	is.Equal(status, 405) // only GET on a message
	_ = body
	status, _ = s2.call(t, "GET", "/messages/1011", newOwner, demoOwnerKey, nil)
	is.Equal(status, 400) // the deleted topic stays deleted
	is.NoErr(s2.stop(t))  // a clean shutdown
}

func jsonID(v any) string {
	f, _ := v.(float64)
	return strconv.FormatInt(int64(f), 10)
}

func TestSeedFlag(t *testing.T) {
	dir := t.TempDir()
	t.Run("bad fixture names the JSON path", func(t *testing.T) {
		is := is.New(t)
		bad := filepath.Join(dir, "bad.json")
		is.NoErr(os.WriteFile(bad, []byte(`{"realms":[{"id":1,"string_id":"x","name":"X","users":[{"id":1,"email":"a@x.test","full_name":"A","role":"king","api_key":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}]}`), 0o644))
		err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-db", filepath.Join(dir, "bad.db"), "-seed", bad}, io.Discard)
		is.True(err != nil)                                          // refused
		is.True(strings.Contains(err.Error(), "realms[0].users[0]")) // with the JSON path of the problem
	})
	t.Run("seeds a new database, refuses a used one", func(t *testing.T) {
		is := is.New(t)
		fixture := filepath.Join(dir, "one.json")
		is.NoErr(os.WriteFile(fixture, []byte(`{"realms":[{"id":1,"string_id":"x","name":"Seeded Org","users":[{"id":1,"email":"a@x.test","full_name":"A","role":"owner","api_key":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}]}]}`), 0o644))
		db := filepath.Join(dir, "seeded.db")
		s := start(t, "-db", db, "-seed", fixture)
		status, body := s.call(t, "GET", "/users/me", "a@x.test", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", nil)
		is.Equal(status, 200)                                               // the fixture's user works
		is.Equal(body["full_name"], "A")                                    // from the fixture
		is.True(strings.Contains(s.out.String(), "curl -sS -u 'a@x.test:")) // curl lines use the fixture's credentials
		is.NoErr(s.stop(t))

		err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-db", db, "-seed", fixture}, io.Discard)
		is.True(err != nil)                                          // refused
		is.True(strings.Contains(err.Error(), "already holds data")) // and says why
	})
	t.Run("bad flags", func(t *testing.T) {
		is := is.New(t)
		err := run(t.Context(), []string{"-nope"}, io.Discard)
		is.True(err != nil) // unknown flag
		err = run(t.Context(), []string{"-addr", "127.0.0.1:0", "extra"}, io.Discard)
		is.True(err != nil) // stray argument
	})
}

// curlLines returns the curl commands run printed.
func curlLines(out string) []string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); strings.HasPrefix(l, "curl ") {
			lines = append(lines, l)
		}
	}
	return lines
}

// runCurl performs the request a printed curl line describes (the options the
// server prints: -sS, -u, -X, -G and -d, with single quotes), so the test
// does not depend on a curl binary.
func runCurl(tb testing.TB, line string) (int, map[string]any) {
	tb.Helper()
	is := is.New(tb)
	args := shellSplit(line)[1:]
	var (
		method, target, user string
		get                  bool
		data                 []string
	)
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "-sS":
		case "-G":
			get = true
		case "-u":
			i++
			user = args[i]
		case "-X":
			i++
			method = args[i]
		case "-d":
			i++
			data = append(data, args[i])
		default:
			is.True(!strings.HasPrefix(args[i], "-")) // only the options above are printed
			target = args[i]
		}
	}
	var body io.Reader
	if get && len(data) > 0 {
		target += "?" + strings.Join(data, "&")
	} else if len(data) > 0 {
		body = strings.NewReader(strings.Join(data, "&"))
	}
	if method == "" {
		method = "GET"
		if body != nil {
			method = "POST"
		}
	}
	req, err := http.NewRequest(method, target, body)
	is.NoErr(err)
	if body != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if name, key, ok := strings.Cut(user, ":"); ok {
		req.SetBasicAuth(name, key)
	}
	res, err := http.DefaultClient.Do(req)
	is.NoErr(err)
	defer res.Body.Close()
	var out map[string]any
	is.NoErr(json.NewDecoder(res.Body).Decode(&out))
	return res.StatusCode, out
}

// shellSplit splits a command line on spaces, honouring single quotes.
func shellSplit(s string) []string {
	var out []string
	var cur strings.Builder
	inQuote, has := false, false
	for _, r := range s {
		switch {
		case r == '\'':
			inQuote = !inQuote
			has = true
		case r == ' ' && !inQuote:
			if has {
				out = append(out, cur.String())
				cur.Reset()
				has = false
			}
		default:
			cur.WriteRune(r)
			has = true
		}
	}
	if has {
		out = append(out, cur.String())
	}
	return out
}

func TestWebhookAllowPrivate(t *testing.T) {
	is := is.New(t)
	got := make(chan map[string]any, 1)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var payload map[string]any
		_ = json.NewDecoder(r.Body).Decode(&payload)
		select {
		case got <- payload:
		default:
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"content":"pong"}`)
	}))
	defer hook.Close()
	dir := t.TempDir()
	fixture := filepath.Join(dir, "hook.json")
	is.NoErr(os.WriteFile(fixture, []byte(`{"realms":[{"id":1,"string_id":"x","name":"X",
		"users":[{"id":1,"email":"a@x.test","full_name":"A","role":"owner","api_key":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}],
		"bots":[{"id":2,"email":"echo@x.test","full_name":"Echo","owner_id":1,"api_key":"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
		         "bot_type":"outgoing_webhook","service":{"base_url":"`+hook.URL+`","token":"t0k","interface":"generic"}}],
		"channels":[{"id":10,"name":"general","subscribers":[1,2]}]}]}`), 0o644))
	s := start(t, "-db", filepath.Join(dir, "hook.db"), "-seed", fixture, "-webhook-allow-private")
	status, _ := s.call(t, "POST", "/messages", "a@x.test", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
		url.Values{"type": {"stream"}, "to": {"general"}, "topic": {"t"}, "content": {"@**Echo** ping"}})
	is.Equal(status, 200) // sent
	select {
	case p := <-got:
		is.Equal(p["token"], "t0k") // the bot's service was called with its token
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook was not delivered to a loopback address despite -webhook-allow-private")
	}
}

func TestMailLoggedByDefault(t *testing.T) {
	is := is.New(t)
	s := start(t, "-db", filepath.Join(t.TempDir(), "log.db"))
	status, _ := s.call(t, "PATCH", "/settings", demoOwner, demoOwnerKey, url.Values{"email": {newOwner}})
	is.Equal(status, 200) // change requested
	out := s.out.String()
	is.True(strings.Contains(out, "to="+newOwner))                        // the e-mail is logged
	is.True(strings.Contains(out, s.base+"/accounts/confirm_new_email/")) // with its confirmation link
}

func TestDeliveryTicker(t *testing.T) {
	is := is.New(t)
	s := start(t, "-db", filepath.Join(t.TempDir(), "tick.db"), "-deliver-every", "50ms")
	at := time.Now().Add(1100*time.Millisecond).Unix() + 1
	status, body := s.call(t, "POST", "/scheduled_messages", demoOwner, demoOwnerKey, url.Values{
		"type": {"stream"}, "to": {"61"}, "topic": {"tick"}, "content": {"delivered by the ticker"},
		"scheduled_delivery_timestamp": {strconv.FormatInt(at, 10)},
	})
	is.Equal(status, 200) // scheduled
	id := body["scheduled_message_id"]
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, list := s.call(t, "GET", "/scheduled_messages", demoOwner, demoOwnerKey, nil)
		pending := false
		for _, m := range list["scheduled_messages"].([]any) {
			if m.(map[string]any)["scheduled_message_id"] == id {
				pending = true
			}
		}
		if !pending {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the scheduled message was not delivered")
		}
		time.Sleep(50 * time.Millisecond)
	}
	narrow := `[{"operator":"channel","operand":"general"},{"operator":"topic","operand":"tick"}]`
	status, got := s.call(t, "GET", "/messages?anchor=newest&num_before=5&num_after=0&narrow="+url.QueryEscape(narrow), demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200)                     // listed
	is.Equal(len(got["messages"].([]any)), 1) // the delivered message is in its topic
}

func TestSIGTERM(t *testing.T) {
	is := is.New(t)
	// As in main: the signal cancels run's context.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	out := &syncbuf.Buffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-db", filepath.Join(t.TempDir(), "sig.db")}, out)
	}()
	for !listening.MatchString(out.String()) {
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	is.NoErr(syscall.Kill(os.Getpid(), syscall.SIGTERM))
	select {
	case err := <-done:
		is.NoErr(err) // a clean stop
	case <-time.After(5 * time.Second):
		t.Fatal("not stopped within 5 s of SIGTERM")
	}
}

func TestRateLimitFlag(t *testing.T) {
	is := is.New(t)
	s := start(t, "-db", filepath.Join(t.TempDir(), "rl.db"), "-rate-limit", "2")
	for range 2 {
		status, _ := s.call(t, "GET", "/users/me", demoOwner, demoOwnerKey, nil)
		is.Equal(status, 200) // within the limit
	}
	status, body := s.call(t, "GET", "/users/me", demoOwner, demoOwnerKey, nil)
	is.Equal(status, 429)                    // over the limit
	is.Equal(body["code"], "RATE_LIMIT_HIT") // Zulip's code
	is.Equal(body["retry-after"], 30.0)      // 2 per minute: one back every 30 s
}

// TestWrongKeysDoNotLockOutTheOwner is issue 32's finding against the
// server, with -rate-limit 0 as it was seen: wrong keys for the owner's
// address, from the owner's host, are refused (the last held a second each)
// while the owner's valid key is served.
func TestWrongKeysDoNotLockOutTheOwner(t *testing.T) {
	is := is.New(t)
	s := start(t, "-db", filepath.Join(t.TempDir(), "keys.db"), "-rate-limit", "0")
	statuses := map[int]int{}
	for range httpadapter.DefaultAuthTargetFailures + 2 {
		status, _ := s.call(t, "GET", "/users/me", demoOwner, "wrongwrongwrongwrongwrongwrong00", nil)
		statuses[status]++
	}
	is.Equal(statuses[401], httpadapter.DefaultAuthTargetFailures) // the budget for one address
	is.Equal(statuses[429], 2)                                     // then refused
	status, _ := s.call(t, "GET", "/users/me", demoOwner, demoOwnerKey, nil)
	is.Equal(status, 200) // the owner is served
}

// TestHugeHeaderInTheEnvelope: a header past what net/http reads (issue 32
// saw plain text above about 266 KB) is answered in Zulip's envelope.
func TestHugeHeaderInTheEnvelope(t *testing.T) {
	is := is.New(t)
	s := start(t, "-db", filepath.Join(t.TempDir(), "hdr.db"))
	req, err := http.NewRequest("GET", s.base+"/api/v1/server_settings", nil)
	is.NoErr(err)
	req.Header.Set("X-Pad", strings.Repeat("a", 300_000))
	res, err := http.DefaultClient.Do(req)
	is.NoErr(err) // answered
	defer res.Body.Close()
	is.Equal(res.StatusCode, http.StatusRequestHeaderFieldsTooLarge) // 431
	is.Equal(res.Header.Get("Content-Type"), "application/json")     // in the envelope
	var body map[string]any
	is.NoErr(json.NewDecoder(res.Body).Decode(&body))
	is.Equal(body["result"], "error")
	is.Equal(body["code"], "BAD_REQUEST")
	is.Equal(body["msg"], "Request header too large (limit: 65536 bytes)")
}
