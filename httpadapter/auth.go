package httpadapter

import (
	"encoding/base64"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
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
// A client address over its budget of failed authentications ([AuthThrottle])
// gets 429 RATE_LIMIT_HIT before its credentials are looked at. A scheme other
// than Basic is a 400; every other failure is a 401 UNAUTHORIZED carrying the
// reason as its message (the writer adds WWW-Authenticate).
func (h *handler) authenticate(r *http.Request, allowWebhook bool) (*chatcore.User, error) {
	client := h.authFails.client(r)
	if wait := h.authFails.wait(client); wait > 0 {
		return nil, errRateLimitHit(wait)
	}
	header, ok := r.Header["Authorization"]
	if !ok || len(header) == 0 {
		return nil, chatcore.Unauthorized("Missing authorization header for basic auth")
	}
	email, key, err := parseBasic(header[0])
	if err != nil {
		return nil, err
	}
	u, err := h.svc.Authenticate(r.Context(), email, key)
	if err != nil {
		// Over Basic auth Zulip re-raises every authentication failure
		// (deactivated user or realm, bad key, ...) as a 401 UNAUTHORIZED
		// with the original message.
		if e, ok := errors.AsType[*chatcore.Error](err); ok {
			h.authFails.fail(client)
			return nil, chatcore.Unauthorized(e.Msg)
		}
		return nil, err
	}
	if u.IsBot && u.BotType == chatcore.BotTypeIncomingWebhook && !allowWebhook {
		return nil, chatcore.Unauthorized("This API is not available to incoming webhook bots.")
	}
	return u, nil
}

// The default budget of failed authentications per client address: Zulip's
// limit on unauthenticated API requests per IP address (api_by_ip, 100
// requests per minute).
const (
	DefaultAuthFailures      = 100
	DefaultAuthFailureWindow = time.Minute
)

// AuthThrottle configures how the adapter throttles failed authentications
// per client address. The zero value throttles with the defaults
// ([DefaultAuthFailures] per [DefaultAuthFailureWindow]) and uses the
// connection's peer address.
//
// A failed authentication is a request whose credentials the Service refuses
// (unknown, malformed or revoked key, e-mail not matching the key,
// deactivated user or realm): those guess keys or cost a store read. Requests
// without credentials or with a malformed Authorization header are refused
// without either and do not count, nor does an incoming webhook bot calling
// a route it may not use (its key is valid). A successful authentication does
// not clear an address's failures, so one valid account cannot be used to
// keep guessing others' keys.
//
// Once an address has used its budget (a token bucket of Failures tokens
// refilled at Failures per Per), every request it makes to an authenticated
// route gets 429 RATE_LIMIT_HIT "API usage exceeded rate limit" with
// Retry-After until a token comes back, whether its credentials are valid or
// not: as in Zulip, which limits by IP address before looking at the user.
// Otherwise the throttle would still answer the guesses, and a correct guess
// would stand out from the refusals. Routes without authentication and other
// addresses are not affected. IPv6 addresses are throttled per /64 prefix,
// the block one host usually holds. The adapter tracks at most 100,000
// addresses; beyond that it forgets addresses whose budget has refilled, then
// an eighth at random.
type AuthThrottle struct {
	// Disabled turns the throttle off.
	Disabled bool
	// Failures is the budget of failed authentications per Per (zero or
	// negative: DefaultAuthFailures).
	Failures int
	// Per is the window the budget refills over (zero or negative:
	// DefaultAuthFailureWindow).
	Per time.Duration
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

// authThrottle counts failed authentications per client address. A nil
// *authThrottle throttles nothing.
type authThrottle struct {
	l      *ratelimit.Limiter[netip.Prefix]
	header string
	now    func() time.Time
}

// newAuthThrottle returns the throttle cfg describes, or nil when disabled.
func newAuthThrottle(cfg AuthThrottle, now func() time.Time) *authThrottle {
	if cfg.Disabled {
		return nil
	}
	rule := ratelimit.Rule{Window: cfg.Per, Max: cfg.Failures}
	if rule.Max <= 0 {
		rule.Max = DefaultAuthFailures
	}
	if rule.Window <= 0 {
		rule.Window = DefaultAuthFailureWindow
	}
	return &authThrottle{
		l:      ratelimit.New[netip.Prefix](maxTrackedKeys, rule),
		header: cfg.ClientIPHeader,
		now:    now,
	}
}

// client returns the key r's failures are counted under: the client's IPv4
// address, or the /64 prefix of its IPv6 address. Requests whose address
// cannot be read (a listener other than TCP) share the zero key.
func (t *authThrottle) client(r *http.Request) netip.Prefix {
	if t == nil {
		return netip.Prefix{}
	}
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
		return netip.Prefix{}
	}
	addr = addr.Unmap().WithZone("")
	bits := 32
	if addr.Is6() {
		bits = 64
	}
	p, _ := addr.Prefix(bits)
	return p
}

// parseAddr parses an IP address with or without a port.
func parseAddr(s string) (netip.Addr, bool) {
	if host, _, err := net.SplitHostPort(s); err == nil {
		s = host
	}
	addr, err := netip.ParseAddr(s)
	return addr, err == nil
}

// wait returns how long client must wait before its credentials are looked
// at again: zero while it has failures left.
func (t *authThrottle) wait(client netip.Prefix) time.Duration {
	if t == nil {
		return 0
	}
	return t.l.Wait(client, t.now())
}

// fail counts one failed authentication of client.
func (t *authThrottle) fail(client netip.Prefix) {
	if t != nil {
		t.l.Take(client, t.now())
	}
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
