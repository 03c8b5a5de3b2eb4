package netguard_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chatcore/chatcore/internal/netguard"
	"github.com/matryer/is"
)

func TestAddrAllowed(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		{"127.0.0.1", false},           // loopback
		{"127.8.9.10", false},          // loopback range
		{"::1", false},                 // IPv6 loopback
		{"::ffff:127.0.0.1", false},    // IPv4-mapped loopback
		{"::ffff:10.1.2.3", false},     // IPv4-mapped private
		{"10.0.0.1", false},            // RFC 1918
		{"172.16.0.1", false},          // RFC 1918
		{"172.31.255.255", false},      // RFC 1918
		{"192.168.1.1", false},         // RFC 1918
		{"fc00::1", false},             // ULA
		{"fd12:3456::1", false},        // ULA
		{"169.254.169.254", false},     // cloud metadata
		{"169.254.1.1", false},         // link-local
		{"fe80::1", false},             // IPv6 link-local
		{"fd00:ec2::254", false},       // AWS metadata over IPv6
		{"100.64.0.1", false},          // carrier-grade NAT
		{"100.100.100.200", false},     // Alibaba metadata (CGNAT range)
		{"0.0.0.0", false},             // unspecified
		{"0.1.2.3", false},             // "this network"
		{"::", false},                  // IPv6 unspecified
		{"224.0.0.1", false},           // multicast
		{"239.255.255.250", false},     // multicast
		{"ff02::1", false},             // IPv6 multicast
		{"255.255.255.255", false},     // broadcast
		{"198.18.0.1", false},          // benchmarking
		{"8.8.8.8", true},              // public
		{"1.1.1.1", true},              // public
		{"172.32.0.1", true},           // just outside 172.16/12
		{"100.128.0.1", true},          // just outside CGNAT
		{"2606:4700:4700::1111", true}, // public IPv6
		{"::ffff:8.8.8.8", true},       // IPv4-mapped public
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			is := is.New(t)
			is.Equal(netguard.AddrAllowed(netip.MustParseAddr(tt.addr)), tt.want) // guard verdict
		})
	}
}

func TestDialControl(t *testing.T) {
	is := is.New(t)
	err := netguard.DialControl("tcp4", "127.0.0.1:80", nil)
	is.True(errors.Is(err, netguard.ErrBlocked)) // loopback refused at dial time
	err = netguard.DialControl("tcp6", "[fd00:ec2::254]:80", nil)
	is.True(err != nil)                                              // metadata refused at dial time
	is.NoErr(netguard.DialControl("tcp4", "93.184.215.14:443", nil)) // public address allowed

	// Through a real dialer: the refusal surfaces as the dial error.
	d := net.Dialer{Control: netguard.DialControl}
	_, err = d.DialContext(t.Context(), "tcp", "localhost:1")
	is.True(errors.Is(err, netguard.ErrBlocked)) // refused by the guard, before any packet is sent
}

// TestAddrAllowedEmbeddedIPv4 covers IPv6 forms that carry an IPv4
// address: each is judged as the address it carries.
func TestAddrAllowedEmbeddedIPv4(t *testing.T) {
	tests := []struct {
		addr string
		want bool
		why  string
	}{
		{"64:ff9b::7f00:1", false, "NAT64 of 127.0.0.1"},
		{"64:ff9b::a00:1", false, "NAT64 of 10.0.0.1"},
		{"64:ff9b::a9fe:a9fe", false, "NAT64 of the metadata address 169.254.169.254"},
		{"64:ff9b::c0a8:101", false, "NAT64 of 192.168.1.1"},
		{"64:ff9b::808:808", true, "NAT64 of 8.8.8.8"},
		{"64:ff9b:1::808:808", false, "local-use NAT64: the IPv4 address cannot be located"},
		{"64:ff9b:1:ffff::1", false, "local-use NAT64, end of range"},
		{"2002:7f00:1::", false, "6to4 of 127.0.0.1"},
		{"2002:a00:1::1", false, "6to4 of 10.0.0.1"},
		{"2002:a9fe:a9fe::", false, "6to4 of 169.254.169.254"},
		{"2002:6440:1::1", false, "6to4 of 100.64.0.1 (carrier-grade NAT)"},
		{"2002:808:808::1", true, "6to4 of 8.8.8.8"},
		{"2001:0:4136:e378:8000:63bf:80ff:fffe", false, "Teredo client 127.0.0.1 (inverted bits)"},
		{"2001:0:4136:e378:8000:63bf:f5ff:fffe", false, "Teredo client 10.0.0.1"},
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", true, "Teredo client 8.8.8.8"},
		{"::7f00:1", false, "IPv4-compatible 127.0.0.1"},
		{"::a00:1", false, "IPv4-compatible 10.0.0.1"},
		{"::808:808", true, "IPv4-compatible 8.8.8.8"},
		{"::ffff:a9fe:a9fe", false, "IPv4-mapped metadata address"},
		{"fec0::1", false, "site-local"},
		{"feff:ffff::1", false, "site-local, end of range"},
		{"ff00::1", false, "multicast, just past site-local"},
		{"2001:db8::1", true, "outside Teredo's /32 (documentation range, not special here)"},
		{"2001:1::1", true, "just past Teredo"},
		{"2003::1", true, "just past 6to4"},
		{"64:ff9b:2::1", true, "past the local-use NAT64 /48"},
		{"2606:4700:4700::1111", true, "ordinary public IPv6"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			is := is.New(t)
			is.Equal(netguard.AddrAllowed(netip.MustParseAddr(tt.addr)), tt.want) // verdict as tt.why explains
		})
	}
}

// TestDialControlEmbeddedIPv4 checks that the dial-time guard refuses an
// embedded private address too.
func TestDialControlEmbeddedIPv4(t *testing.T) {
	is := is.New(t)
	err := netguard.DialControl("tcp6", "[64:ff9b::7f00:1]:80", nil)
	is.True(err != nil) // NAT64 form of loopback refused at dial time
	err = netguard.DialControl("tcp6", "[2002:a00:1::1]:443", nil)
	is.True(err != nil) // 6to4 form of 10.0.0.1 refused at dial time
}

// TestRedirectPolicy checks the redirects a client follows: at most
// MaxRedirects, to http and https URLs only.
func TestRedirectPolicy(t *testing.T) {
	var hops atomic.Int32
	var loop *httptest.Server
	loop = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hops.Add(1) == 1 && r.URL.Path == "/ftp" {
			http.Redirect(w, r, "ftp://files.example.test/x", http.StatusTemporaryRedirect)
			return
		}
		http.Redirect(w, r, loop.URL+"/again", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(loop.Close)
	tests := []struct {
		name     string
		path     string
		want     error
		wantHops int32
	}{
		{"loop", "/", netguard.ErrTooManyRedirects, netguard.MaxRedirects + 1},
		{"other scheme", "/ftp", netguard.ErrRedirectScheme, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			hops.Store(0)
			client := netguard.NewClient(netguard.Options{AllowPrivate: true}) // httptest listens on loopback
			res, err := client.Post(loop.URL+tt.path, "application/json", strings.NewReader(`{}`))
			if res != nil {
				res.Body.Close()
			}
			is.True(errors.Is(err, tt.want))   // the redirect policy's error
			is.Equal(hops.Load(), tt.wantHops) // requests made before stopping
		})
	}
}
