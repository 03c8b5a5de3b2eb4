package chatcore

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// webhookMaxRedirects bounds the redirects one webhook request follows; each
// hop is dialled through the same guarded dialer, so a redirect cannot reach an
// address the first request could not.
const webhookMaxRedirects = 3

// errWebhookBlocked is wrapped by the error of a dial the guard refused.
var errWebhookBlocked = errors.New("chatcore: webhook destination is a private or disallowed address")

// blockedWebhookPrefixes are the ranges, besides what netip's predicates cover
// (loopback, RFC 1918 / ULA private, link-local, multicast, unspecified), that
// an outgoing webhook must not reach by default.
var blockedWebhookPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),          // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),      // carrier-grade NAT (also Alibaba's metadata service)
	netip.MustParsePrefix("192.0.0.0/24"),       // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),      // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),        // reserved, broadcast
	netip.MustParsePrefix("fec0::/10"),          // deprecated site-local: a private range on networks that still route it
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS metadata over IPv6 (inside the ULA range; listed for clarity)
	netip.MustParsePrefix("169.254.169.254/32"), // cloud metadata (inside link-local; listed for clarity)
}

// IPv6 ranges that carry an IPv4 address, which webhookAddrAllowed judges as
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

// webhookAddrAllowed reports whether an outgoing webhook may connect to ip when
// private destinations are not allowed. IPv4-mapped IPv6 addresses are judged
// as the IPv4 address they carry, and so are the NAT64 (64:ff9b::/96), 6to4
// (2002::/16), Teredo (2001::/32, the client address) and IPv4-compatible
// (::/96) forms; local-use NAT64 (64:ff9b:1::/48), where the IPv4 address
// cannot be located, and site-local fec0::/10 are refused.
func webhookAddrAllowed(ip netip.Addr) bool {
	ip = ip.Unmap()
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() ||
		ip.IsMulticast() {
		return false
	}
	for _, p := range blockedWebhookPrefixes {
		if p.Contains(ip) {
			return false
		}
	}
	if ip.Is6() {
		if v4, ok := embeddedIPv4(ip); ok {
			return v4.IsValid() && webhookAddrAllowed(v4)
		}
	}
	return true
}

// webhookDialControl is a net.Dialer Control function refusing every address
// webhookAddrAllowed rejects. It runs for each address the dialer actually
// connects to, after name resolution, so DNS answers (rebinding included) and
// redirects are checked too.
func webhookDialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", errWebhookBlocked, address)
	}
	if !webhookAddrAllowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", errWebhookBlocked, ap.Addr())
	}
	return nil
}

// newWebhookClient returns the HTTP client of a dispatcher. Unless o.Transport
// is set, it dials through a guarded dialer (when !o.AllowPrivate), ignores
// proxy environment variables (a proxy would hide the real destination from
// the guard) and follows at most webhookMaxRedirects redirects, to http and
// https URLs only.
func newWebhookClient(o WebhookOptions) *http.Client {
	var control func(network, address string, c syscall.RawConn) error
	if !o.AllowPrivate {
		control = webhookDialControl
	}
	return newGuardedClient(o, control)
}

// newGuardedClient is newWebhookClient with the dialer's Control function
// given (nil: no address checks).
func newGuardedClient(o WebhookOptions, control func(network, address string, c syscall.RawConn) error) *http.Client {
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
			if len(via) > webhookMaxRedirects {
				return fmt.Errorf("%w: stopped after %d redirects", errTooManyRedirects, webhookMaxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("%w: %s", errRedirectScheme, req.URL.Redacted())
			}
			return nil
		},
	}
}

// closeIdle releases the idle connections of the client's transport, if it
// keeps any.
func closeIdle(c *http.Client) {
	type idleCloser interface{ CloseIdleConnections() }
	if ic, ok := c.Transport.(idleCloser); ok {
		ic.CloseIdleConnections()
	}
}
