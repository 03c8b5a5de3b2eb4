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
	netip.MustParsePrefix("64:ff9b:1::/48"),     // local-use NAT64
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS metadata over IPv6 (inside the ULA range; listed for clarity)
	netip.MustParsePrefix("169.254.169.254/32"), // cloud metadata (inside link-local; listed for clarity)
}

// webhookAddrAllowed reports whether an outgoing webhook may connect to ip when
// private destinations are not allowed. IPv4-mapped IPv6 addresses are judged
// as the IPv4 address they carry.
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
// the guard) and follows at most webhookMaxRedirects redirects.
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
