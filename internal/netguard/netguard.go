// Package netguard makes HTTP clients that cannot reach private networks: a
// dialer refusing loopback, private, link-local, carrier-grade NAT, cloud
// metadata and other special addresses (also when an IPv6 address carries
// one of them), checked for every address actually dialled, so that DNS
// answers and redirects cannot get around it. Outgoing webhooks use it to
// keep bot owners from reaching the server's own network (SSRF).
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// MaxRedirects bounds the redirects one request of a [NewClient] client
// follows; each hop is dialled through the same guarded dialer, so a redirect
// cannot reach an address the first request could not.
const MaxRedirects = 3

// Errors wrapped by the errors of a [NewClient] client's requests.
var (
	// ErrBlocked is wrapped by the error of a dial the guard refused.
	ErrBlocked = errors.New("netguard: destination is a private or disallowed address")
	// ErrTooManyRedirects is wrapped when a request was redirected more than
	// MaxRedirects times.
	ErrTooManyRedirects = errors.New("too many redirects")
	// ErrRedirectScheme is wrapped when a request was redirected to a URL
	// that is not http or https.
	ErrRedirectScheme = errors.New("redirect to a URL that is not http or https")
)

// blockedPrefixes are the ranges, besides what netip's predicates cover
// (loopback, RFC 1918 / ULA private, link-local, multicast, unspecified), that
// a guarded dial must not reach.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),      // carrier-grade NAT (also Alibaba's metadata service)
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved, broadcast
	netip.MustParsePrefix("fec0::/10"),          // deprecated site-local: a private range on networks that still route it
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS metadata over IPv6 (inside the ULA range; listed for clarity)
	netip.MustParsePrefix("169.254.169.254/32"), // cloud metadata (inside link-local; listed for clarity)
}

// IPv6 ranges that carry an IPv4 address, which AddrAllowed judges as
// that IPv4 address: a translator or relay on the path delivers the packet to
// it, so "64:ff9b::7f00:1" can be 127.0.0.1 of a NAT64 gateway's network.
var (
	nat64WellKnown = netip.MustParsePrefix("64:ff9b::/96")   // RFC 6052: IPv4 in the last 32 bits
	nat64Local     = netip.MustParsePrefix("64:ff9b:1::/48") // RFC 8215 local-use: IPv4 placement not fixed
	sixToFour      = netip.MustParsePrefix("2002::/16")      // RFC 3056: IPv4 in bits 16-47
	teredo         = netip.MustParsePrefix("2001::/32")      // RFC 4380: client IPv4 in the last 32 bits, inverted
	ipv4Compatible = netip.MustParsePrefix("::/96")          // RFC 4291 (deprecated): IPv4 in the last 32 bits
)

// embeddedIPv4 returns the IPv4 address an IPv6 address of a translation or
// tunnelling range stands for, and whether it is one; ok with an invalid
// address means the range is refused outright because the IPv4 address
// cannot be located (local-use NAT64 may put it at any prefix length).
func embeddedIPv4(ip netip.Addr) (v4 netip.Addr, ok bool) {
	b := ip.As16()
	last32 := func() netip.Addr { return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}) }
	switch {
	case nat64Local.Contains(ip):
		return netip.Addr{}, true
	case nat64WellKnown.Contains(ip), ipv4Compatible.Contains(ip):
		return last32(), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	case teredo.Contains(ip):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}

// AddrAllowed reports whether a guarded dial may connect to ip: false for
// loopback, private (RFC 1918, ULA), unspecified, link-local, multicast,
// "this network", carrier-grade NAT, IETF protocol, benchmarking, reserved
// and cloud-metadata addresses. IPv4-mapped IPv6 addresses are judged
// as the IPv4 address they carry, and so are the NAT64 (64:ff9b::/96), 6to4
// (2002::/16), Teredo (2001::/32, the client address) and IPv4-compatible
// (::/96) forms; local-use NAT64 (64:ff9b:1::/48), where the IPv4 address
// cannot be located, and site-local fec0::/10 are refused.
func AddrAllowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() ||
		ip.IsMulticast() {
		return false
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	if ip.Is6() {
		if v4, ok := embeddedIPv4(ip); ok {
			return v4.IsValid() && AddrAllowed(v4)
		}
	}
	return true
}

// DialControl is a net.Dialer Control function refusing, with an error
// wrapping [ErrBlocked], every address AddrAllowed rejects (and an address it
// cannot parse). It runs for each address the dialer actually connects to,
// after name resolution, so DNS answers (rebinding included) and redirects
// are checked too.
func DialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrBlocked, address)
	}
	if !AddrAllowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrBlocked, ap.Addr())
	}
	return nil
}

// Options configures [NewClient].
type Options struct {
	// Timeout bounds connecting, the TLS handshake and the wait for the
	// response headers (zero: no bound).
	Timeout time.Duration
	// AllowPrivate turns the address checks off, for local development.
	AllowPrivate bool
	// Transport, when set, replaces the guarded transport: the address
	// checks are then its job, and AllowPrivate has no effect.
	Transport http.RoundTripper
}

// NewClient returns an HTTP client that, unless o.Transport is set, dials
// through a guarded dialer (when !o.AllowPrivate) and ignores proxy
// environment variables (a proxy would hide the real destination from the
// guard). Whatever the transport, it follows at most MaxRedirects redirects,
// to http and https URLs only; other redirects fail with an error wrapping
// [ErrTooManyRedirects] or [ErrRedirectScheme]. The client is safe for
// concurrent use.
func NewClient(o Options) *http.Client {
	var control func(network, address string, c syscall.RawConn) error
	if !o.AllowPrivate {
		control = DialControl
	}
	return newClient(o, control)
}

// newClient is NewClient with the dialer's Control function given (nil: no
// address checks).
func newClient(o Options, control func(network, address string, c syscall.RawConn) error) *http.Client {
	rt := o.Transport
	if rt == nil {
		d := &net.Dialer{Timeout: o.Timeout, KeepAlive: 30 * time.Second, Control: control}
		rt = &http.Transport{
			Proxy:                 nil,
			DialContext:           d.DialContext,
			ForceAttemptHTTP2:     true,
			MaxIdleConns:          32,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   o.Timeout,
			ResponseHeaderTimeout: o.Timeout,
		}
	}
	return &http.Client{
		Transport: rt,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > MaxRedirects {
				return fmt.Errorf("%w: stopped after %d redirects", ErrTooManyRedirects, MaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("%w: %s", ErrRedirectScheme, req.URL.Redacted())
			}
			return nil
		},
	}
}

// CloseIdle releases the idle connections of c's transport, if it keeps any.
func CloseIdle(c *http.Client) {
	type idleCloser interface{ CloseIdleConnections() }
	if ic, ok := c.Transport.(idleCloser); ok {
		ic.CloseIdleConnections()
	}
}
