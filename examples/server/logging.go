package main

import (
	"io"
	"log/slog"
	"net"
	"strconv"
)

// newLogger returns the server's logger: -log-format text or json on w, at
// -log-level and above.
func newLogger(c opsConfig, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: c.logLevel}
	if c.logFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// loopbackOnly reports whether the listener at addr (what net.Listener.Addr
// returns) is reachable from this machine only.
func loopbackOnly(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// defaultExternalURL is the base URL when -external-url is not given: the
// listen address, with a loopback host in place of an unspecified one
// (0.0.0.0 or [::] is no address a client can use).
func defaultExternalURL(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return "http://" + addr.String()
	}
	host := tcp.IP.String()
	if tcp.IP.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}
