package httpadapter_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// Failed authentications are throttled per client address (Zulip limits
// unauthenticated requests by IP address) and per client address and target
// e-mail: after the budget, that address's failed checks get 429
// RATE_LIMIT_HIT, one at a time, while valid keys are still served.

// remoteAddrHeader is a test-only request header the throttle env turns into
// the connection's peer address, so one test server sees many clients.
const remoteAddrHeader = "Test-Remote-Addr"

// clock is a settable time source for the adapter's limiters.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// newThrottleEnv starts an adapter over the fixture whose requests carry the
// peer address given in remoteAddrHeader (127.0.0.1 without it). Unless opts
// say otherwise, throttled failures are answered without a hold (the hold is
// TestAuthFailuresHeldInTurn's).
func newThrottleEnv(t *testing.T, opts httpadapter.Options) (*env, *clock) {
	t.Helper()
	c := &clock{now: time.Unix(1_800_000_000, 0)}
	opts.Now = c.Now
	if opts.AuthThrottle.Hold == 0 {
		opts.AuthThrottle.Hold = -1
	}
	w, logs, logger := newWorld(t, nil, "testdata/fixture.json")
	opts.Logger = logger
	e := &env{w: w, log: logs}
	h := httpadapter.New(e.w.Svc, opts)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a := r.Header.Get(remoteAddrHeader); a != "" {
			r.RemoteAddr = a
		}
		r.Header.Del(remoteAddrHeader)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	e.srv, e.h = srv, h
	return e, c
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
	// A valid key from the throttled address is served: the failures are
	// someone else's (or its owner's earlier typos).
	wantSuccess(t, e.from(t, attacker, &member))
	// Requests without credentials look at no key: answered as always.
	wantError(t, e.from(t, attacker, nil), 401, "UNAUTHORIZED", "Missing authorization header for basic auth")

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
	res = e.from(t, attacker, &badKey)
	wantThrottled(t, res, 20)                         // the budget is spent again
	is.Equal(res.header.Get("X-RateLimit-Limit"), "") // no user was charged
	wantSuccess(t, e.from(t, attacker, &member))      // and the valid key still works
}

// TestAuthFailuresDefaultBudget is what issue 11 saw: bad keys in a row are
// all answered 401. With the zero Options the adapter now allows
// DefaultAuthTargetFailures per DefaultAuthFailureWindow for one e-mail
// address and DefaultAuthFailures for the client address, and then
// throttles (holding each throttled answer DefaultAuthHold).
func TestAuthFailuresDefaultBudget(t *testing.T) {
	is := is.New(t)
	now := time.Unix(1_800_000_000, 0)
	e := newEnv(t, httpadapter.Options{Now: func() time.Time { return now }})
	for i := range httpadapter.DefaultAuthTargetFailures {
		res := e.do(t, request{method: "GET", path: "/reminders", auth: &badKey})
		if res.status != 401 {
			t.Fatalf("failure %d: status %d, want 401", i+1, res.status)
		}
	}
	res := e.do(t, request{method: "GET", path: "/reminders", auth: &badKey})
	wantThrottled(t, res, 6) // 10 per minute for one target: one back every 6 s
	checkSpec(t, "GET", "/reminders", res)
	// Guessing other accounts' keys spends the address's budget.
	for i := httpadapter.DefaultAuthTargetFailures; i < httpadapter.DefaultAuthFailures; i++ {
		res := e.do(t, request{method: "GET", path: "/reminders", auth: &cred{fmt.Sprintf("u%d@zulip.com", i), badKey.key}})
		if res.status != 401 {
			t.Fatalf("failure %d: status %d, want 401", i+1, res.status)
		}
	}
	res = e.do(t, request{method: "GET", path: "/reminders", auth: &cred{"another@zulip.com", badKey.key}})
	wantThrottled(t, res, 1) // 100 per minute: one back every 0.6 s, rounded up
	wantSuccess(t, e.do(t, request{method: "GET", path: "/reminders", auth: &member}))
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
	wantThrottled(t, e.from(t, addr, &badKey), 1800) // two per hour: one back every 30 min
	wantSuccess(t, e.from(t, addr, &member))         // valid keys are never refused
}

func TestAuthFailuresIPv6Prefix(t *testing.T) {
	e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Failures: 1, Per: time.Minute}})
	wantError(t, e.from(t, "[2001:db8:1:2::1]:5", &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	// One host usually holds a whole /64: its other addresses share the budget.
	wantThrottled(t, e.from(t, "[2001:db8:1:2:ffff::9]:5", &badKey), 60)
	wantError(t, e.from(t, "[2001:db8:1:3::1]:5", &badKey), 401, "UNAUTHORIZED", "Invalid API key") // the next /64 is another client
	// An IPv4-mapped address is the IPv4 address.
	wantError(t, e.from(t, "192.0.2.8:5", &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	wantThrottled(t, e.from(t, "[::ffff:192.0.2.8]:5", &badKey), 60)
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
		wantThrottled(t, e.from(t, proxy, &badKey, "X-Forwarded-For", "203.0.113.99"), 30)
	})
	t.Run("rightmost address when opted in", func(t *testing.T) {
		e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{
			Failures: 2, Per: time.Minute, ClientIPHeader: "X-Forwarded-For"}})
		for _, forged := range []string{"1.1.1.1", "2.2.2.2"} {
			// The left entries are the client's to choose; the proxy appended the last.
			res := e.from(t, proxy, &badKey, "X-Forwarded-For", forged+", 203.0.113.5")
			wantError(t, res, 401, "UNAUTHORIZED", "Invalid API key")
		}
		wantThrottled(t, e.from(t, proxy, &badKey, "X-Forwarded-For", "203.0.113.5"), 30)
		// Other clients behind the same proxy are unaffected.
		wantError(t, e.from(t, proxy, &badKey, "X-Forwarded-For", "203.0.113.5, 203.0.113.6"), 401, "UNAUTHORIZED", "Invalid API key")
		// Without the header (or with garbage in it) the peer address counts.
		wantError(t, e.from(t, proxy, &badKey), 401, "UNAUTHORIZED", "Invalid API key")
		wantError(t, e.from(t, proxy, &badKey, "X-Forwarded-For", "unknown"), 401, "UNAUTHORIZED", "Invalid API key")
		wantThrottled(t, e.from(t, proxy, &badKey), 30)
		wantError(t, e.from(t, "10.0.0.2:443", &badKey, "X-Forwarded-For", "203.0.113.7"), 401, "UNAUTHORIZED", "Invalid API key")
	})
}

func TestAuthFailuresDisabled(t *testing.T) {
	e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Disabled: true, Failures: 1}})
	for range 20 {
		wantError(t, e.from(t, "192.0.2.7:1", &badKey), 401, "UNAUTHORIZED", "Invalid API key")
	}
	wantSuccess(t, e.from(t, "192.0.2.7:1", &member)) // never throttled
}

// TestAuthFailuresNeverLockOutValidKey is issue 32's finding: wrong keys for
// one e-mail address locked its owner's valid key out, with or without the
// per-user rate limit. Now the guesser is refused and the owner, at the same
// address, is served throughout.
func TestAuthFailuresNeverLockOutValidKey(t *testing.T) {
	for _, rl := range []*httpadapter.RateLimit{nil, {Requests: 200, Per: time.Minute}} {
		t.Run(fmt.Sprintf("rate limit %v", rl != nil), func(t *testing.T) {
			is := is.New(t)
			e, _ := newThrottleEnv(t, httpadapter.Options{RateLimit: rl})
			const host = "192.0.2.7:40000" // the guesser and the owner share it
			wrong := cred{member.email, "wrongwrongwrongwrongwrongwrong00"}
			statuses := map[int]int{}
			for i := range 200 {
				res := e.from(t, host, &wrong)
				statuses[res.status]++
				if i%20 == 0 {
					wantSuccess(t, e.from(t, host, &member)) // the owner, meanwhile
				}
			}
			is.Equal(statuses[401], httpadapter.DefaultAuthTargetFailures)     // the target's budget
			is.Equal(statuses[429], 200-httpadapter.DefaultAuthTargetFailures) // then the guesser is refused
			wantSuccess(t, e.from(t, host, &member))                           // the valid key succeeds
			wantThrottled(t, e.from(t, host, &wrong), 6)                       // and the guesser is still refused

			logs := e.log.String()
			is.True(strings.Contains(logs, `level=WARN msg="httpadapter: failed authentication" client=192.0.2.7 email=`+member.email)) // logged with the address
			is.Equal(strings.Count(logs, "failed authentication"), 201)                                                                 // every failure
			is.True(!strings.Contains(logs, wrong.key))                                                                                 // never the key
		})
	}
}

// TestAuthFailuresHeldInTurn shows how a throttled client is slowed down: its
// checks run one at a time, and a failed one holds the turn before its 429,
// so sending many wrong keys at once learns no more per hold than one. A
// valid key waits its turn and is then served; other addresses never wait.
func TestAuthFailuresHeldInTurn(t *testing.T) {
	is := is.New(t)
	e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{Failures: 1, Per: time.Minute, Hold: time.Hour}})
	const host, neighbour = "192.0.2.7:1", "198.51.100.9:1"
	wantError(t, e.from(t, host, &badKey), 401, "UNAUTHORIZED", "Invalid API key") // the budget

	// waitRefs waits until n requests of host hold or wait for its turn.
	waitRefs := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); httpadapter.AuthTurnRefs(e.h, host) != n; {
			if time.Now().After(deadline) {
				t.Fatalf("turn refs %d, want %d", httpadapter.AuthTurnRefs(e.h, host), n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	send := func(ctx context.Context, c cred) (*http.Response, error) {
		req, err := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/api/v1/users/me", nil)
		is.NoErr(err)
		req.Header.Set("Authorization", c.basic())
		req.Header.Set(remoteAddrHeader, host)
		return e.srv.Client().Do(req)
	}
	guessCtx, stopGuessing := context.WithCancel(t.Context())
	guessDone := make(chan error, 1)
	go func() {
		res, err := send(guessCtx, badKey)
		if err == nil {
			res.Body.Close()
		}
		guessDone <- err
	}()
	waitRefs(1) // the guess holds the turn (for the hour)
	owner := make(chan int, 1)
	go func() {
		res, err := send(t.Context(), member)
		if err != nil {
			owner <- 0
			return
		}
		res.Body.Close()
		owner <- res.StatusCode
	}()
	waitRefs(2) // the owner waits behind it
	select {
	case status := <-owner:
		t.Fatalf("the owner was answered %d while the guess held the turn", status)
	default:
	}
	// Other clients are unaffected.
	wantSuccess(t, e.from(t, neighbour, &member))
	wantError(t, e.from(t, neighbour, &badKey), 401, "UNAUTHORIZED", "Invalid API key")

	stopGuessing()              // the guesser gives up: its turn passes on
	is.True(<-guessDone != nil) // the guess was never answered
	is.Equal(<-owner, 200)      // the owner's valid key is served
	waitRefs(0)                 // and no turn is left behind
}
