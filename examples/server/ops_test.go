package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
)

var metricsAt = regexp.MustCompile(`metrics at (http://\S+/metrics)`)

func TestVersionFlag(t *testing.T) {
	is := is.New(t)
	var out bytes.Buffer
	is.NoErr(run(t.Context(), []string{"-version"}, &out))
	is.Equal(out.String(), "chatcore "+chatcore.Version+"\n")
	changelog, err := os.ReadFile("../../CHANGELOG.md")
	is.NoErr(err)
	is.True(strings.Contains(string(changelog), "## ["+chatcore.Version+"]")) // the changelog has the version the code reports
}

func TestFlagErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-nope"}, "flag provided but not defined: -nope (run with -h for the flags)"},
		{[]string{"-deliver-every", "5"}, `"5" is not a duration: give a number with a unit, e.g. 500ms, 5s or 1m`},
		{[]string{"-webhook-timeout", "ten"}, `"ten" is not a duration`},
		{[]string{"-db", filepath.Join(dir, "missing", "chat.db")}, "the directory " + filepath.Join(dir, "missing") + " does not exist"},
		{[]string{"-log-format", "xml"}, `-log-format must be text or json, not "xml"`},
		{[]string{"-log-level", "loud"}, `-log-level`},
		{[]string{"-external-url", "chat.example.com"}, "-external-url \"chat.example.com\": give an absolute http:// or https:// URL"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			is := is.New(t)
			var out bytes.Buffer
			err := run(t.Context(), tc.args, &out)
			is.True(err != nil)
			is.True(strings.Contains(err.Error(), tc.want))  // a clear message
			is.Equal(strings.Count(err.Error(), tc.want), 1) // said once
			is.Equal(out.String(), "")                       // no usage dumped on stdout
		})
	}
	t.Run("-h lists every flag with its variable", func(t *testing.T) {
		is := is.New(t)
		var out bytes.Buffer
		err := run(t.Context(), []string{"-h"}, &out)
		is.True(errors.Is(err, flag.ErrHelp))
		for _, want := range []string{"-db string\t(env CHATCORE_DB)", "-addr string\t(env CHATCORE_ADDR)", "-metrics-addr ADDR\t(env CHATCORE_METRICS_ADDR)",
			"-deliver-every duration\t(env CHATCORE_DELIVER_EVERY)", "-external-url URL\t(env CHATCORE_EXTERNAL_URL)"} {
			is.True(strings.Contains(out.String(), want)) // listed with its variable
		}
	})
}

func TestEnvironment(t *testing.T) {
	is := is.New(t)
	env := map[string]string{"CHATCORE_DB": "env.db", "CHATCORE_RATE_LIMIT": "7", "CHATCORE_DELIVER_EVERY": "3s", "CHATCORE_VERSION": "1"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	parse := func(args ...string) (config, error) {
		var c config
		fs := flag.NewFlagSet("server", flag.ContinueOnError)
		fs.StringVar(&c.db, "db", "chatcore.db", "")
		fs.IntVar(&c.rateLimit, "rate-limit", 200, "")
		fs.DurationVar(&c.deliverEvery, "deliver-every", time.Second, "")
		addOpsFlags(fs, &c.opsConfig)
		return c, parseArgs(fs, args, io.Discard, lookup)
	}
	c, err := parse()
	is.NoErr(err)
	is.Equal(c.db, "env.db")                // from CHATCORE_DB
	is.Equal(c.rateLimit, 7)                // from CHATCORE_RATE_LIMIT
	is.Equal(c.deliverEvery, 3*time.Second) // from CHATCORE_DELIVER_EVERY
	is.True(!c.version)                     // -version has no variable
	c, err = parse("-db", "flag.db", "-rate-limit", "9")
	is.NoErr(err)
	is.Equal(c.db, "flag.db") // the flag wins
	is.Equal(c.rateLimit, 9)
	env["CHATCORE_DELIVER_EVERY"] = "5"
	_, err = parse()
	is.True(err != nil)
	is.True(strings.Contains(err.Error(), "environment variable CHATCORE_DELIVER_EVERY")) // names the variable
	is.True(strings.Contains(err.Error(), "give a number with a unit"))

	// Through run: CHATCORE_ADDR and CHATCORE_DB reach the server.
	dir := t.TempDir()
	t.Setenv("CHATCORE_DB", filepath.Join(dir, "fromenv.db"))
	s := start(t)
	is.True(strings.Contains(s.out.String(), "(database "+filepath.Join(dir, "fromenv.db")+")"))
}

func TestFailedStartRemovesTheNewDatabase(t *testing.T) {
	dir := t.TempDir()
	t.Run("bad fixture, every problem listed", func(t *testing.T) {
		is := is.New(t)
		bad := filepath.Join(dir, "bad.json")
		is.NoErr(os.WriteFile(bad, []byte(`{"realms":[{"id":1,"string_id":"x","name":"X","users":[`+
			`{"id":1,"email":"a@x.test","full_name":"A","role":"king","api_key":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},`+
			`{"id":2,"email":"b@x.test","full_name":"B","role":"member","api_key":"short"}]}]}`), 0o644))
		db := filepath.Join(dir, "bad.db")
		err := run(t.Context(), []string{"-addr", "127.0.0.1:0", "-db", db, "-seed", bad}, io.Discard)
		is.True(err != nil)
		is.True(strings.Contains(err.Error(), "2 problems"))         // counted
		is.True(strings.Contains(err.Error(), "realms[0].users[0]")) // both listed
		is.True(strings.Contains(err.Error(), "realms[0].users[1]"))
		_, statErr := os.Stat(db)
		is.True(errors.Is(statErr, os.ErrNotExist)) // no empty database left behind
		_, statErr = os.Stat(db + ".lock")
		is.True(errors.Is(statErr, os.ErrNotExist))
	})
	t.Run("port in use", func(t *testing.T) {
		is := is.New(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		is.NoErr(err)
		defer ln.Close()
		db := filepath.Join(dir, "port.db")
		err = run(t.Context(), []string{"-addr", ln.Addr().String(), "-db", db}, io.Discard)
		is.True(err != nil)
		_, statErr := os.Stat(db)
		is.True(errors.Is(statErr, os.ErrNotExist)) // removed
	})
	t.Run("an existing database is never removed", func(t *testing.T) {
		is := is.New(t)
		db := filepath.Join(dir, "kept.db")
		s := start(t, "-db", db)
		is.NoErr(s.stop(t))
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		is.NoErr(err)
		defer ln.Close()
		err = run(t.Context(), []string{"-addr", ln.Addr().String(), "-db", db}, io.Discard)
		is.True(err != nil)
		_, statErr := os.Stat(db)
		is.NoErr(statErr) // still there
	})
}

func TestExternalURL(t *testing.T) {
	is := is.New(t)
	db := filepath.Join(t.TempDir(), "ext.db")
	s := start(t, "-db", db, "-external-url", "https://chat.example.com/")
	status, body := s.call(t, "GET", "/server_settings", "", "", nil)
	is.Equal(status, 200)
	is.Equal(body["realm_url"], "https://chat.example.com")          // links from the one setting
	is.Equal(body["zulip_merge_base"], "chatcore "+chatcore.Version) // the version -version prints
	is.Equal(body["zulip_version"], "chatcore "+chatcore.Version)
	is.True(strings.Contains(s.out.String(), "external URL https://chat.example.com"))
	is.True(strings.Contains(s.out.String(), "curl -sS https://chat.example.com/api/v1/server_settings"))
}

func TestUnspecifiedAddressWarns(t *testing.T) {
	is := is.New(t)
	db := filepath.Join(t.TempDir(), "any.db")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	s := startOn(t, ctx, cancel, "0.0.0.0:0", "-db", db)
	is.True(strings.Contains(s.out.String(), "level=WARN msg=\"listening beyond loopback with the demo organization")) // warned
	status, body := s.call(t, "GET", "/server_settings", "", "", nil)
	is.Equal(status, 200)
	is.True(strings.HasPrefix(body["realm_url"].(string), "http://127.0.0.1:")) // never http://[::]:port

	// On loopback there is no warning.
	s2 := start(t, "-db", filepath.Join(t.TempDir(), "lo.db"))
	is.True(!strings.Contains(s2.out.String(), "listening beyond loopback"))
}

// startOn is start listening on addr instead of 127.0.0.1:0.
func startOn(tb testing.TB, ctx context.Context, cancel context.CancelFunc, addr string, args ...string) *server {
	tb.Helper()
	s := &server{cancel: cancel, done: make(chan error, 1)}
	s.out = &syncbuf.Buffer{}
	go func() { s.done <- run(ctx, append([]string{"-addr", addr}, args...), s.out) }()
	tb.Cleanup(func() { s.stop(tb) })
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(s.out.String()); m != nil {
			s.base = m[1]
			return s
		}
		time.Sleep(20 * time.Millisecond)
	}
	tb.Fatalf("server not ready:\n%s", s.out.String())
	return nil
}

func TestMetricsListener(t *testing.T) {
	is := is.New(t)
	db := filepath.Join(t.TempDir(), "m.db")
	s := start(t, "-db", db, "-metrics-addr", "127.0.0.1:0", "-log-format", "json")
	m := metricsAt.FindStringSubmatch(s.out.String())
	is.True(m != nil) // the metrics address is printed
	for range 3 {
		status, _ := s.call(t, "GET", "/users/me", demoOwner, demoOwnerKey, nil)
		is.Equal(status, 200)
	}
	res, err := http.Get(m[1])
	is.NoErr(err)
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	is.NoErr(err)
	for _, family := range []string{
		`chatcore_http_request_duration_seconds_count{code="200",method="GET",route="/api/v1/users/me"} 3`,
		"chatcore_store_transaction_duration_seconds_count", "chatcore_store_transaction_retries_total",
		"chatcore_event_polls_waiting", "chatcore_events_delivered_total", "chatcore_event_queues_registered_total",
		"\nchatcore_event_queues ", // a sample, not only its HELP line
		`chatcore_webhook_deliveries_total{outcome="reply"}`, "chatcore_scheduled_deliveries_total",
		"chatcore_store_write_group_size", "go_goroutines",
	} {
		is.True(bytes.Contains(body, []byte(family))) // the family is served
	}
	// The API listener does not serve them.
	res2, err := http.Get(s.base + "/metrics")
	is.NoErr(err)
	res2.Body.Close()
	is.Equal(res2.StatusCode, 404)
	// JSON request lines with their ids.
	is.True(strings.Contains(s.out.String(), `"msg":"request","method":"GET","route":"/api/v1/users/me","status":200`))
	is.True(strings.Contains(s.out.String(), `"request_id":"`))
}
