package httpadapter_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/metrics"
	"github.com/matryer/is"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// logLines returns the JSON log records with msg "request".
func requestLines(tb testing.TB, logs string) []map[string]any {
	tb.Helper()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(logs), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "request" {
			out = append(out, rec)
		}
	}
	return out
}

func TestRequestLog(t *testing.T) {
	is := is.New(t)
	w, logs, _ := newWorld(t, nil, "testdata/fixture.json")
	logger := slogJSON(logs)
	e := startAdapter(t, w, logs, logger, httpadapter.Options{LogRequests: true})

	res := e.do(t, request{method: "GET", path: "/users/me", auth: &member, header: map[string]string{"X-Request-Id": "abc-123"}})
	is.Equal(res.status, 200)
	is.Equal(res.header.Get("X-Request-Id"), "abc-123") // a valid id is honoured

	bad := cred{member.email, "wrongKEY000000000000000000000000"}
	res = e.do(t, request{method: "GET", path: "/messages/12", auth: &bad, header: map[string]string{"X-Request-Id": "bad id with spaces"}})
	is.Equal(res.status, 401)
	made := res.header.Get("X-Request-Id")
	is.True(made != "" && made != "bad id with spaces") // an invalid one is replaced

	lines := requestLines(t, logs.String())
	is.Equal(len(lines), 2) // one line per request
	first, second := lines[0], lines[1]
	is.Equal(first["request_id"], "abc-123")
	is.Equal(first["method"], "GET")
	is.Equal(first["route"], "/api/v1/users/me")
	is.Equal(first["status"], float64(200))
	is.True(first["user_id"] != nil) // authenticated: the user id
	is.True(first["bytes"].(float64) > 0)
	is.True(first["duration"] != nil)
	is.Equal(second["request_id"], made)
	is.Equal(second["route"], "/api/v1/messages/{message_id}") // the pattern, never the raw path
	is.Equal(second["user_id"], nil)

	// The failed login is a warning with the client address and the same
	// request id; no key anywhere in the logs.
	var warned bool
	for line := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(line, "failed authentication") {
			warned = true
			is.True(strings.Contains(line, `"level":"WARN"`))
			is.True(strings.Contains(line, `"client":"127.0.0.1"`))
			is.True(strings.Contains(line, `"request_id":"`+made+`"`))
		}
	}
	is.True(warned)
	is.True(!strings.Contains(logs.String(), bad.key))    // never a key
	is.True(!strings.Contains(logs.String(), member.key)) // never a key

	// Without LogRequests there is no request line.
	w2, logs2, _ := newWorld(t, nil, "testdata/fixture.json")
	e2 := startAdapter(t, w2, logs2, slogJSON(logs2), httpadapter.Options{})
	is.Equal(e2.do(t, request{method: "GET", path: "/users/me", auth: &member}).status, 200)
	is.Equal(len(requestLines(t, logs2.String())), 0)
}

func TestHealth(t *testing.T) {
	for _, tc := range []struct {
		name  string
		store func(testing.TB) chatcore.Store
	}{{"sqlite", chattest.SQLite}, {"postgres", chattest.Postgres}} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			st := tc.store(t)
			w, logs, logger := newWorld(t, st, "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			get := func(path string) (int, map[string]any) {
				res, err := http.Get(e.srv.URL + path)
				is.NoErr(err)
				defer res.Body.Close()
				var body map[string]any
				is.NoErr(json.NewDecoder(res.Body).Decode(&body))
				return res.StatusCode, body
			}
			status, body := get("/healthz")
			is.Equal(status, 200)
			is.Equal(body["status"], "ok")
			status, body = get("/readyz")
			is.Equal(status, 200)
			is.Equal(body["status"], "ready")
			res, err := http.Post(e.srv.URL+"/readyz", "text/plain", nil)
			is.NoErr(err)
			res.Body.Close()
			is.Equal(res.StatusCode, 405) // GET and HEAD only

			is.NoErr(st.Close()) // the database is gone
			status, body = get("/readyz")
			is.Equal(status, 503) // not ready
			is.Equal(body["status"], "unavailable")
			status, _ = get("/healthz")
			is.Equal(status, 200) // the process still serves
		})
	}
}

func TestRequestMetrics(t *testing.T) {
	is := is.New(t)
	m := metrics.New()
	reg := prometheus.NewRegistry()
	is.NoErr(reg.Register(m))
	e := newEnv(t, httpadapter.Options{Metrics: m})
	e.do(t, request{method: "GET", path: "/messages/12", auth: &member})
	e.do(t, request{method: "GET", path: "/messages/13", auth: &member})
	e.do(t, request{method: "GET", path: "/no/such/path", auth: &member})
	e.do(t, request{method: "GET", path: "/users/me", auth: &member})

	families, err := reg.Gather()
	is.NoErr(err)
	counts := map[string]uint64{} // by "route method" and by "route method code"
	for _, f := range families {
		if f.GetName() != "chatcore_http_request_duration_seconds" {
			continue
		}
		for _, s := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range s.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			n := s.GetHistogram().GetSampleCount()
			counts[labels["route"]+" "+labels["method"]+" "+labels["code"]] = n
			counts[labels["route"]+" "+labels["method"]] += n
		}
	}
	is.Equal(counts["/api/v1/messages/{message_id} GET"], uint64(2)) // both ids under one pattern
	is.Equal(counts["unmatched GET 404"], uint64(1))                 // a raw path is never a label
	is.Equal(counts["/api/v1/users/me GET 200"], uint64(1))
	n, err := testutil.GatherAndCount(reg, "chatcore_http_request_duration_seconds")
	is.NoErr(err)
	is.True(n <= 3) // three series at most
}

// slogJSON returns a JSON logger writing into w.
func slogJSON(w io.Writer) *slog.Logger { return slog.New(slog.NewJSONHandler(w, nil)) }
