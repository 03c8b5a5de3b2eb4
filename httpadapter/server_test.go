package httpadapter_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

func TestNewServer(t *testing.T) {
	is := is.New(t)
	h := http.NotFoundHandler()
	srv := httpadapter.NewServer(h, nil)
	is.True(srv.Handler != nil)                              // serves the given handler
	is.True(srv.ReadHeaderTimeout > 0)                       // slow headers cannot hold a connection
	is.True(srv.ReadTimeout > 0)                             // nor slow bodies
	is.True(srv.WriteTimeout > 50*time.Second)               // a topic deletion's 50 s budget fits
	is.True(srv.IdleTimeout > 0)                             // idle keep-alives are closed
	is.True(srv.MaxHeaderBytes < http.DefaultMaxHeaderBytes) // headers are bounded tighter than Go's default
	is.True(srv.ErrorLog != nil)                             // server errors go to the logger
}

// serve runs NewServer over the adapter of a fresh env, on a listener wrapped
// by EnvelopeListener when envelope is set, and returns its address.
func serve(t *testing.T, envelope bool) string {
	t.Helper()
	e := newEnv(t, httpadapter.Options{})
	srv := httpadapter.NewServer(httpadapter.New(e.w.Svc, httpadapter.Options{}), nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	is.New(t).NoErr(err) // a port is free
	if envelope {
		ln = httpadapter.EnvelopeListener(ln)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return ln.Addr().String()
}

// rawExchange writes request as is to addr and reads one response.
func rawExchange(t *testing.T, addr, request string) (*http.Response, []byte) {
	t.Helper()
	is := is.New(t)
	conn, err := net.Dial("tcp", addr)
	is.NoErr(err) // the server listens
	defer conn.Close()
	is.NoErr(conn.SetDeadline(time.Now().Add(10 * time.Second)))
	_, err = io.WriteString(conn, request)
	is.NoErr(err) // the request is sent
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	is.NoErr(err) // an HTTP answer
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	is.NoErr(err) // its body reads
	return res, body
}

// TestServerAnswersInTheEnvelope checks the answers the server gives before
// the routes run: a header over the limit is a JSON 431, not net/http's plain
// text, whatever its size (issue 32: over about 266 KB net/http answered
// itself), and "OPTIONS *" is the envelope's 404, not net/http's empty 200.
func TestServerAnswersInTheEnvelope(t *testing.T) {
	addr := serve(t, true)
	get := func(extra string) string {
		return "GET /api/v1/server_settings HTTP/1.1\r\nHost: chat.example\r\n" + extra + "\r\n"
	}
	pad := func(n int) string { return "X-Pad: " + strings.Repeat("a", n) + "\r\n" }
	for _, tt := range []struct {
		name    string
		request string
		status  int
		msg     string // "" for success
	}{
		{"header within the limit", get(pad(httpadapter.MaxHeaderBytes - 200)), 200, ""},
		{"header just over the limit", get(pad(httpadapter.MaxHeaderBytes)), 431,
			"Request header too large (limit: 65536 bytes)"},
		{"a 100 KiB header", get(pad(100 << 10)), 431,
			"Request header too large (limit: 65536 bytes)"},
		{"many small headers", get(strings.Repeat(pad(100), 1000)), 431,
			"Request header too large (limit: 65536 bytes)"},
		// Past the server's own limit net/http answers before any handler
		// runs; the listener puts its answer in the envelope.
		{"a 300 KB header", get(pad(300_000)), 431,
			"Request header too large (limit: 65536 bytes)"},
		{"many small headers past the transport limit", get(strings.Repeat(pad(100), 3000)), 431,
			"Request header too large (limit: 65536 bytes)"},
		{"OPTIONS *", "OPTIONS * HTTP/1.1\r\nHost: chat.example\r\n\r\n", 404, "Not Found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			res, raw := rawExchange(t, addr, tt.request)
			is.Equal(res.StatusCode, tt.status)                          // the status
			is.Equal(res.Header.Get("Content-Type"), "application/json") // in the envelope
			var body map[string]any
			is.NoErr(json.Unmarshal(raw, &body)) // a JSON object
			if tt.msg == "" {
				is.Equal(body["result"], "success") // served
				return
			}
			is.Equal(body["result"], "error")     // the error envelope
			is.Equal(body["msg"], tt.msg)         // saying what is wrong
			is.Equal(body["code"], "BAD_REQUEST") // with a code
		})
	}
	// Without the listener, net/http's own answer stays plain text, as
	// NewServer documents: what the listener rewrites.
	t.Run("past the transport limit without EnvelopeListener", func(t *testing.T) {
		is := is.New(t)
		res, raw := rawExchange(t, serve(t, false), get(pad(300_000)))
		is.Equal(res.StatusCode, http.StatusRequestHeaderFieldsTooLarge)      // still refused
		is.Equal(res.Header.Get("Content-Type"), "text/plain; charset=utf-8") // by net/http
		is.Equal(string(raw), "431 Request Header Fields Too Large")          // in its words
	})
	// Keep-alive connections carry requests and answers unchanged.
	t.Run("keep-alive", func(t *testing.T) {
		is := is.New(t)
		conn, err := net.Dial("tcp", addr)
		is.NoErr(err) // the server listens
		defer conn.Close()
		is.NoErr(conn.SetDeadline(time.Now().Add(10 * time.Second)))
		r := bufio.NewReader(conn)
		for range 3 {
			_, err = io.WriteString(conn, get(""))
			is.NoErr(err) // sent
			res, err := http.ReadResponse(r, nil)
			is.NoErr(err) // answered
			_, err = io.Copy(io.Discard, res.Body)
			is.NoErr(err)
			is.Equal(res.StatusCode, 200) // served on the same connection
		}
	})
}
