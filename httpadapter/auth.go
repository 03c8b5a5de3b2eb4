package httpadapter

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"hash/maphash"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/ratelimit"
)

// authenticate checks the request's HTTP Basic credentials as Zulip's
// validate_api_key does and returns the authenticated user or bot. Incoming
// webhook bots are refused unless allowWebhook is set (Zulip's
// allow_incoming_webhooks route flag).
//
// Valid credentials are always accepted, whoever else failed from the same
// address; failed ones are counted and throttled as [AuthThrottle] says. A
// scheme other than Basic is a 400; every other failure is a 401
// UNAUTHORIZED carrying the reason as its message (the writer adds
// WWW-Authenticate), or 429 RATE_LIMIT_HIT for a throttled client.
func (h *handler) authenticate(r *http.Request, allowWebhook bool) (*chatcore.User, error) {
	header, ok := r.Header["Authorization"]
	if !ok || len(header) == 0 {
		return nil, chatcore.Unauthorized("Missing authorization header for basic auth")
	}
	email, key, err := parseBasic(header[0])
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	try, err := h.authFails.begin(ctx, r, email)
	if err != nil {
		return nil, err
	}
	u, err := h.svc.Authenticate(ctx, email, key)
	if err != nil {
		e, ok := errors.AsType[*chatcore.Error](err)
		if !ok {
			// The store failed: nobody learnt anything about the key.
			try.uncounted()
			return nil, err
		}
		refused := try.failed(ctx)
		h.log.WarnContext(ctx, "httpadapter: failed authentication", "client", try.addr, "email", clip(email, maxLoggedEmail),
			"reason", e.Msg, "throttled", refused != nil)
		if refused != nil {
			return nil, refused
		}
		// Over Basic auth Zulip re-raises every authentication failure
		// (deactivated user or realm, bad key, ...) as a 401 UNAUTHORIZED
		// with the original message.
		return nil, chatcore.Unauthorized(e.Msg)
	}
	try.uncounted()
	if u.IsBot && u.BotType == chatcore.BotTypeIncomingWebhook && !allowWebhook {
		return nil, chatcore.Unauthorized("This API is not available to incoming webhook bots.")
	}
	return u, nil
}

// maxLoggedEmail bounds the e-mail address a failed authentication logs
// (Zulip's limit on an address is 254 characters); the header can hold far
// more.
const maxLoggedEmail = 254

// clip returns s cut to at most n bytes, on a character boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// The defaults of [AuthThrottle]: per client address Zulip's limit on
// unauthenticated API requests per IP address (api_by_ip, 100 requests per
// minute); per address and target a tenth of that; a throttled client's
// failed check holds its answer a second.
const (
	DefaultAuthFailures       = 100
	DefaultAuthTargetFailures = 10
	DefaultAuthFailureWindow  = time.Minute
	DefaultAuthHold           = time.Second
)

// AuthThrottle configures how the adapter throttles failed authentications.
// The zero value throttles with the defaults ([DefaultAuthFailures] per
// client address and [DefaultAuthTargetFailures] per client address and
// e-mail address, both per [DefaultAuthFailureWindow], held
// [DefaultAuthHold]) and uses the connection's peer address.
//
// A failed authentication is a request whose credentials the Service refuses
// (unknown, malformed or revoked key, e-mail not matching the key,
// deactivated user or realm): those guess keys or cost a store read. Requests
// without credentials or with a malformed Authorization header are refused
// without either and do not count, nor does an incoming webhook bot calling
// a route it may not use (its key is valid). A successful authentication
// neither counts nor clears earlier failures, so one valid account cannot be
// used to keep guessing others' keys. Every failed authentication is logged
// at warning level with the client address, the e-mail address given (at
// most 254 bytes of it) and the reason; never the key.
//
// Failures are counted twice, in token buckets refilled over Per: per client
// address (Failures) and per client address and target e-mail address
// (TargetFailures), so guessing one account is throttled sooner and moving
// on to other accounts does not escape the address's budget. A client over
// either budget is throttled, as far as failures go:
//
//   - Credentials are still checked, and valid ones are served as usual:
//     nobody's failures, not even from the same address (several users
//     behind one NAT or proxy, or an attacker guessing the key of a user
//     who connects from the same host), refuse a valid key.
//   - The client's checks run one at a time, in arrival order (a request
//     waits its turn, for as long as its connection stays open), and a
//     failed check holds the turn for Hold before it is answered 429
//     RATE_LIMIT_HIT "API usage exceeded rate limit" with Retry-After (the
//     time until its budgets have room again). So a throttled client learns
//     the outcome of at most one wrong key per Hold, however many requests
//     it sends at once; each request still learns whether its own key is
//     valid, which is what a valid key's owner needs. The price is that a
//     valid request from an address that is flooding wrong keys waits for
//     the wrong keys ahead of it.
//
// Routes without authentication and other addresses are not affected. IPv6
// addresses are counted per /64 prefix, the block one host usually holds.
// Each budget tracks at most 100,000 keys (both together about 60 MiB of
// heap when full, whatever the e-mail addresses' length: a target is kept as
// a hash); beyond that it forgets keys whose budget has refilled, then an
// eighth at random (their counts start afresh; an attacker who rotates
// targets to be forgotten still spends the address's budget). Waiting turns
// exist only while their requests do.
type AuthThrottle struct {
	// Disabled turns the throttle off (failed authentications are still
	// logged).
	Disabled bool
	// Failures is the budget of failed authentications per client address
	// per Per (zero or negative: DefaultAuthFailures).
	Failures int
	// TargetFailures is the budget of failed authentications per client
	// address and e-mail address (compared without case) per Per (zero or
	// negative: DefaultAuthTargetFailures).
	TargetFailures int
	// Per is the window the budgets refill over (zero or negative:
	// DefaultAuthFailureWindow).
	Per time.Duration
	// Hold is how long a throttled client's failed check holds its turn
	// before it is answered (zero: DefaultAuthHold; negative: not held).
	Hold time.Duration
	// ClientIPHeader, when non-empty, names the header in which a trusted
	// reverse proxy in front of the adapter reports the client's address
	// (typically "X-Forwarded-For" or "X-Real-IP"). The adapter then
	// throttles the rightmost address in it, the one the proxy itself
	// appended: addresses to its left come from the client and can be forged.
	// A request without the header (or whose rightmost entry is not an IP
	// address) is throttled by its peer address. Leave it empty (the
	// default) unless every request reaches the adapter through such a
	// proxy, or clients choose the address they are throttled under.
	ClientIPHeader string
}

// authThrottle counts failed authentications per client address and per
// client address and target; its limiters are nil (allowing everything) when
// the throttle is disabled.
type authThrottle struct {
	perClient *ratelimit.Limiter[netip.Prefix]
	perTarget *ratelimit.Limiter[targetKey]
	hold      time.Duration
	header    string
	seed      maphash.Seed
	now       func() time.Time
	turns     turns
}

// targetKey is a client and the hash of the e-mail address it authenticates
// as: fixed-size, whatever the length of the address (two addresses sharing
// a hash share a budget, which changes nothing for valid keys).
type targetKey struct {
	client netip.Prefix
	email  uint64
}

// newAuthThrottle returns the throttle cfg describes.
func newAuthThrottle(cfg AuthThrottle, now func() time.Time) *authThrottle {
	t := &authThrottle{header: cfg.ClientIPHeader, seed: maphash.MakeSeed(), now: now,
		turns: turns{m: map[netip.Prefix]*turn{}}}
	if cfg.Disabled {
		return t
	}
	per := cmp.Or(max(cfg.Per, 0), DefaultAuthFailureWindow)
	t.perClient = ratelimit.New[netip.Prefix](maxTrackedKeys,
		ratelimit.Rule{Window: per, Max: cmp.Or(max(cfg.Failures, 0), DefaultAuthFailures)})
	t.perTarget = ratelimit.New[targetKey](maxTrackedKeys,
		ratelimit.Rule{Window: per, Max: cmp.Or(max(cfg.TargetFailures, 0), DefaultAuthTargetFailures)})
	t.hold = cmp.Or(cfg.Hold, DefaultAuthHold)
	return t
}

// authTry is one credential check under the throttle: either within the
// budgets (a token of each spent, given back unless the check fails) or
// throttled (holding the client's turn).
type authTry struct {
	t         *authThrottle
	addr      string // the client's address, for the log
	client    netip.Prefix
	target    targetKey
	undo      []func()
	throttled bool
	release   func()
}

// begin starts the check of credentials for email from r's client: it spends
// a failure of both budgets ahead of the check (so concurrent requests cannot
// all see the last one), or, when either is spent, waits for the client's
// turn. It fails only when r's context ends while waiting.
func (t *authThrottle) begin(ctx context.Context, r *http.Request, email string) (*authTry, error) {
	client, addr := t.client(r)
	try := &authTry{t: t, addr: addr, client: client,
		target: targetKey{client, maphash.String(t.seed, strings.ToLower(email))}}
	now := t.now()
	rc, undoClient := t.perClient.Reserve(client, now)
	rt, undoTarget := t.perTarget.Reserve(try.target, now)
	if rc.Allowed && rt.Allowed {
		try.undo = []func(){undoClient, undoTarget}
		return try, nil
	}
	undoClient()
	undoTarget()
	release, err := t.turns.wait(ctx, client)
	if err != nil {
		// The client went away; nobody reads this answer.
		return nil, errRateLimitHit(max(rc.Wait, rt.Wait))
	}
	try.throttled, try.release = true, release
	return try, nil
}

// uncounted ends a check that does not count as a failure: valid
// credentials, or a store error.
func (try *authTry) uncounted() {
	for _, undo := range try.undo {
		undo()
	}
	if try.release != nil {
		try.release()
	}
}

// failed ends a failed check. Within the budgets the failure stays spent and
// failed returns nil (the caller answers 401). A throttled check holds the
// client's turn for the hold (or until ctx ends), then returns the
// RATE_LIMIT_HIT to answer.
func (try *authTry) failed(ctx context.Context) error {
	if !try.throttled {
		return nil
	}
	defer try.release()
	if try.t.hold > 0 {
		timer := time.NewTimer(try.t.hold)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
		}
	}
	now := try.t.now()
	return errRateLimitHit(max(try.t.perClient.Wait(try.client, now), try.t.perTarget.Wait(try.target, now)))
}

// turns lets one check at a time run per throttled client, in arrival
// order. A client has an entry only while some request holds or waits for
// its turn.
type turns struct {
	mu sync.Mutex
	m  map[netip.Prefix]*turn
}

// turn is one client's: holding it is having sent into the one-slot channel;
// senders blocked on a channel are served in arrival order.
type turn struct {
	slot chan struct{}
	refs int // requests holding or waiting
}

// wait blocks until client's turn is free and takes it, or until ctx ends
// (then it returns ctx's error); release gives the turn to the next waiter.
func (ts *turns) wait(ctx context.Context, client netip.Prefix) (release func(), err error) {
	ts.mu.Lock()
	t := ts.m[client]
	if t == nil {
		t = &turn{slot: make(chan struct{}, 1)}
		ts.m[client] = t
	}
	t.refs++
	ts.mu.Unlock()
	select {
	case t.slot <- struct{}{}:
		return func() {
			<-t.slot
			ts.done(client, t)
		}, nil
	case <-ctx.Done():
		ts.done(client, t)
		return nil, ctx.Err()
	}
}

// done drops one reference to client's turn, and the entry with the last.
func (ts *turns) done(client netip.Prefix, t *turn) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t.refs--; t.refs == 0 {
		delete(ts.m, client)
	}
}

// refs returns how many requests hold or wait for client's turn.
func (ts *turns) refs(client netip.Prefix) int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t := ts.m[client]; t != nil {
		return t.refs
	}
	return 0
}

// client returns the key r's failures are counted under (the client's IPv4
// address, or the /64 prefix of its IPv6 address) and the address as the log
// shows it. Requests whose address cannot be read (a listener other than
// TCP) share the zero key.
func (t *authThrottle) client(r *http.Request) (netip.Prefix, string) {
	addr, ok := netip.Addr{}, false
	if t.header != "" {
		if values := r.Header.Values(t.header); len(values) > 0 {
			last := values[len(values)-1]
			last = last[strings.LastIndexByte(last, ',')+1:]
			addr, ok = parseAddr(strings.TrimSpace(last))
		}
	}
	if !ok {
		addr, ok = parseAddr(r.RemoteAddr)
	}
	if !ok {
		return netip.Prefix{}, r.RemoteAddr
	}
	addr = addr.Unmap().WithZone("")
	bits := 32
	if addr.Is6() {
		bits = 64
	}
	p, _ := addr.Prefix(bits)
	return p, addr.String()
}

// parseAddr parses an IP address with or without a port.
func parseAddr(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	addr, err := netip.ParseAddr(s)
	return addr, err == nil
}

// parseBasic splits an Authorization header value into the stripped e-mail and
// API key.
func parseBasic(value string) (email, key string, err error) {
	invalid := chatcore.Unauthorized("Invalid authorization header for basic auth")
	fields := strings.Fields(value)
	if len(fields) != 2 {
		return "", "", invalid
	}
	if !strings.EqualFold(fields[0], "basic") {
		return "", "", chatcore.BadRequest("This endpoint requires HTTP basic authentication.")
	}
	raw, err := base64.StdEncoding.DecodeString(fields[1])
	if err != nil || !utf8.Valid(raw) {
		return "", "", invalid
	}
	parts := strings.Split(string(raw), ":")
	if len(parts) != 2 {
		return "", "", invalid
	}
	return strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1]), nil
}
