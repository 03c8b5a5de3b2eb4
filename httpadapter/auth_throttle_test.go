package httpadapter_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// Failed authentications are throttled per client address (Zulip limits
// unauthenticated requests by IP address): after the budget, every request
// of that address to an authenticated route gets 429 RATE_LIMIT_HIT.

// remoteAddrHeader is a test-only request header the throttle env turns into
// the connection's peer address, so one test server sees many clients.
const remoteAddrHeader = "Test-Remote-Addr"

// clock is a settable time source for the adapter's limiters.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// newThrottleEnv starts an adapter over the fixture whose requests carry the
// peer address given in remoteAddrHeader (127.0.0.1 without it).
func newThrottleEnv(t *testing.T, opts httpadapter.Options) (*env, *clock) {
	t.Helper()
	c := &clock{now: time.Unix(1_800_000_000, 0)}
	opts.Now = c.Now
	e := newEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Disabled: true}})
	h := httpadapter.New(e.w.Svc, opts)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get(remoteAddrHeader); a != "" {
			r.RemoteAddr = a
		}
		r.Header.Del(remoteAddrHeader)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return &env{w: e.w, srv: srv, log: e.log}, c
}

// from sends GET /users/me as c (nil: no credentials) from the peer address addr.
func (e *env) from(t *testing.T, addr string, c *cred, header ...string) *response {
	t.Helper()
	h := map[string]string{remoteAddrHeader: addr}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = header[i+1]
	}
	return e.do(t, request{method: "GET", path: "/users/me", auth: c, header: h})
}

var badKey = cred{member.email, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}

// wantThrottled asserts Zulip's RATE_LIMIT_HIT answer with the wait in
// seconds in both the header and the body.
func wantThrottled(t *testing.T, res *response, secs int64) {
	t.Helper()
	is := is.New(t)
	wantError(t, res, 429, "RATE_LIMIT_HIT", "API usage exceeded rate limit")
	is.Equal(res.header.Get("Retry-After"), fmt.Sprint(secs)) // the wait, whole seconds
	is.Equal(num(t, res.body["retry-after"]), secs)           // the same in the body
	is.Equal(res.header.Get("WWW-Authenticate"), "")          // not a 401: no challenge
}

func TestAuthFailuresThrottledPerAddress(t *testing.T) {
	is := is.New(t)
	e, clk := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Failures: 3, Per: time.Minute}})
	const attacker, neighbour = "192.0.2.7:40000", "198.51.100.9:40000"
	for range 3 {
		wantError(t, e.from(t, attacker, &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	}
	wantThrottled(t, e.from(t, attacker, &badKey), 20)        // the fourth: one failure comes back every 20 s
	wantThrottled(t, e.from(t, "192.0.2.7:50000", &gone), 20) // another port of the same address
	// Zulip refuses by address: a valid key from the throttled address is
	// refused too, so a correct guess cannot stand out.
	wantThrottled(t, e.from(t, attacker, &member), 20)
	wantThrottled(t, e.from(t, attacker, nil), 20) // requests without credentials too

	// Other addresses, and their valid keys, are unaffected.
	wantSuccess(t, e.from(t, neighbour, &member))
	wantError(t, e.from(t, neighbour, &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	// Routes without authentication still answer the throttled address.
	res := e.do(t, request{method: "GET", path: "/server_settings", header: map[string]string{remoteAddrHeader: attacker}})
	wantSuccess(t, res)

	// After 20 s one failure is allowed again, then the address waits anew.
	clk.now = clk.now.Add(10 * time.Second)
	wantThrottled(t, e.from(t, attacker, &badKey), 10) // the wait shrinks
	clk.now = clk.now.Add(10 * time.Second)
	wantSuccess(t, e.from(t, attacker, &member)) // a valid key spends nothing
	wantSuccess(t, e.from(t, attacker, &member)) // and clears nothing either
	wantError(t, e.from(t, attacker, &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	res = e.from(t, attacker, &member)
	wantThrottled(t, res, 20)                         // the budget is spent again
	is.Equal(res.header.Get("X-RateLimit-Limit"), "") // no user was charged
}

// TestAuthFailuresDefaultBudget is what issue 11 saw: bad keys in a row are
// all answered 401. With the zero Options the adapter now allows
// DefaultAuthFailures per DefaultAuthFailureWindow and then throttles.
func TestAuthFailuresDefaultBudget(t *testing.T) {
	is := is.New(t)
	now := time.Unix(1_800_000_000, 0)
	e := newEnv(t, httpadapter.Options{Now: func() time.Time { return now }})
	for i := range httpadapter.DefaultAuthFailures {
		res := e.do(t, request{method: "GET", path: "/reminders", auth: &badKey})
		if res.status != 401 {
			t.Fatalf("failure %d: status %d, want 401", i+1, res.status)
		}
	}
	res := e.do(t, request{method: "GET", path: "/reminders", auth: &badKey})
	wantThrottled(t, res, 1) // 100 per minute: one back every 0.6 s, rounded up
	checkSpec(t, "GET", "/reminders", res)
	is.Equal(httpadapter.DefaultAuthFailureWindow, time.Minute) // Zulip's api_by_ip window
}

func TestAuthFailuresThatCount(t *testing.T) {
	e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Failures: 2, Per: time.Hour}})
	const addr = "192.0.2.7:1"
	// Refusals that look at no key and read no store do not count.
	for range 5 {
		wantError(t, e.from(t, addr, nil), 401, "UNAUTHORIZED", "Missing authorization header for basic auth")
		wantError(t, e.from(t, addr, nil, "Authorization", "Basic !!!"), 401, "UNAUTHORIZED", "Invalid authorization header for basic auth")
		// An incoming webhook bot's key is valid; only the route refuses it.
		wantError(t, e.from(t, addr, &hookBot), 401, "UNAUTHORIZED", "This API is not available to incoming webhook bots.")
	}
	wantSuccess(t, e.from(t, addr, &member)) // the budget is untouched
	// What the Service refuses counts: a malformed key, a deactivated user.
	wantError(t, e.from(t, addr, &cred{member.email, "short"}), 401, "UNAUTHORIZED", "Malformed API key")
	wantError(t, e.from(t, addr, &gone), 401, "UNAUTHORIZED", "Account is deactivated")
	wantThrottled(t, e.from(t, addr, &member), 1800) // two per hour: one back every 30 min
}

func TestAuthFailuresIPv6Prefix(t *testing.T) {
	e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Failures: 1, Per: time.Minute}})
	wantError(t, e.from(t, "[2001:db8:1:2::1]:5", &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	// One host usually holds a whole /64: its other addresses share the budget.
	wantThrottled(t, e.from(t, "[2001:db8:1:2:ffff::9]:5", &member), 60)
	wantSuccess(t, e.from(t, "[2001:db8:1:3::1]:5", &member)) // the next /64 is another client
	// An IPv4-mapped address is the IPv4 address.
	wantError(t, e.from(t, "192.0.2.8:5", &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	wantThrottled(t, e.from(t, "[::ffff:192.0.2.8]:5", &member), 60)
}

func TestAuthFailuresProxyHeader(t *testing.T) {
	const proxy = "10.0.0.1:443"
	t.Run("ignored unless configured", func(t *testing.T) {
		e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Failures: 2, Per: time.Minute}})
		// A client cannot escape by claiming other addresses.
		for i := range 2 {
			res := e.from(t, proxy, &badKey, "X-Forwarded-For", fmt.Sprintf("203.0.113.%d", i))
			wantError(t, res, 401, "UNAUTHORIZED", "Invalid API key")
		}
		wantThrottled(t, e.from(t, proxy, &member, "X-Forwarded-For", "203.0.113.99"), 30)
	})
	t.Run("rightmost address when opted in", func(t *testing.T) {
		e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{
			Failures: 2, Per: time.Minute, ClientIPHeader: "X-Forwarded-For"}})
		for _, forged := range []string{"1.1.1.1", "2.2.2.2"} {
			// The left entries are the client's to choose; the proxy appended the last.
			res := e.from(t, proxy, &badKey, "X-Forwarded-For", forged+", 203.0.113.5")
			wantError(t, res, 401, "UNAUTHORIZED", "Invalid API key")
		}
		wantThrottled(t, e.from(t, proxy, &member, "X-Forwarded-For", "203.0.113.5"), 30)
		// Other clients behind the same proxy are unaffected.
		wantSuccess(t, e.from(t, proxy, &member, "X-Forwarded-For", "203.0.113.5, 203.0.113.6"))
		// Without the header (or with garbage in it) the peer address counts.
		wantError(t, e.from(t, proxy, &badKey), 401, "UNAUTHORIZED", "Invalid API key")
		wantError(t, e.from(t, proxy, &badKey, "X-Forwarded-For", "unknown"), 401, "UNAUTHORIZED", "Invalid API key")
		wantThrottled(t, e.from(t, proxy, &member), 30)
		wantSuccess(t, e.from(t, "10.0.0.2:443", &member, "X-Forwarded-For", "203.0.113.6"))
	})
}

func TestAuthFailuresDisabled(t *testing.T) {
	e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Disabled: true, Failures: 1}})
	for range 20 {
		wantError(t, e.from(t, "192.0.2.7:1", &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	}
	wantSuccess(t, e.from(t, "192.0.2.7:1", &member)) // never throttled
}
