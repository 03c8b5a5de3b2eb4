package httpadapter

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/chatcore/chatcore"
)

// MaxHeaderBytes is the largest request header, request line included, that
// the server [NewServer] returns accepts; a larger one is answered 431 in
// Zulip's JSON envelope.
const MaxHeaderBytes = 64 << 10

// transportHeaderBytes is the server's own header limit (its MaxHeaderBytes),
// above MaxHeaderBytes so that headers between the two reach the handler and
// get the envelope. net/http answers headers beyond it (plus its 4 KiB of
// slack) itself, with a plain-text 431, before any handler exists.
const transportHeaderBytes = 4 * MaxHeaderBytes

// NewServer returns an *http.Server that serves h with timeouts suited to the
// adapter's routes: slow clients cannot hold connections open, and the write
// timeout (70 s) leaves room for a topic deletion, which works for up to its
// time budget (Zulip's 50 s) before answering. The server's own errors go to
// logger at warning level (slog.Default() when nil). Set Addr or call Serve
// yourself.
//
// Its answers stay in Zulip's JSON envelope where net/http lets a handler
// answer: a header over [MaxHeaderBytes] gets a JSON 431, and "OPTIONS *"
// reaches h (the adapter answers it with its 404). A header over the
// server's own limit (256 KiB) net/http refuses before any handler exists,
// with a plain-text 431 written straight to the connection: serve on a
// listener wrapped by [EnvelopeListener] (ListenAndServe does not) and that
// answer is the same JSON 431 too, whatever the header's size. What else
// net/http answers before reading a whole request stays plain text: a
// malformed request line or header (400), an unsupported HTTP version (505)
// or transfer encoding (501), and an HTTPS handshake sent to a plain-HTTP
// port (400).
func NewServer(h http.Handler, logger *slog.Logger) *http.Server {
	if logger == nil {
		logger = slog.Default()
	}
	return &http.Server{
		Handler:                      headerLimit(h, MaxHeaderBytes),
		DisableGeneralOptionsHandler: true,
		ReadHeaderTimeout:            10 * time.Second,
		ReadTimeout:                  30 * time.Second,
		WriteTimeout:                 70 * time.Second,
		IdleTimeout:                  2 * time.Minute,
		MaxHeaderBytes:               transportHeaderBytes,
		ErrorLog:                     slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// EnvelopeListener returns l with its connections' answers kept in Zulip's
// envelope where net/http writes plain text itself: the 431 net/http sends,
// before any handler runs, for a header over the server's MaxHeaderBytes
// becomes the JSON 431 of a header over [MaxHeaderBytes] (status 431,
// BAD_REQUEST, "Request header too large (limit: 65536 bytes)"), so every
// header too large gets the same answer, however large. Every other byte
// passes through unchanged.
//
// It works on plain-HTTP connections (the usual setup behind a TLS-ending
// proxy); under [http.Server.ServeTLS] the wrapped connection carries
// encrypted bytes and net/http's plain-text 431 stays as it is.
func EnvelopeListener(l net.Listener) net.Listener { return envelopeListener{l} }

type envelopeListener struct{ net.Listener }

func (l envelopeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &envelopeConn{Conn: c}, nil
}

// plain431 is what net/http writes, in one Write straight to the connection,
// when a request's header is over its MaxHeaderBytes. No answer of the
// adapter's is these bytes (they are text/plain, and net/http adds a Date
// header to every response it writes for a handler).
const plain431 = "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n431 Request Header Fields Too Large"

// json431 replaces plain431: the same status in the envelope headerLimit
// writes for a header over MaxHeaderBytes.
var json431 = func() string {
	body, _ := json.Marshal(map[string]string{"result": "error", "msg": tooLargeMsg(MaxHeaderBytes), "code": string(chatcore.CodeBadRequest)})
	return fmt.Sprintf("HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
}()

// envelopeConn is a connection whose net/http plain-text 431 is rewritten.
type envelopeConn struct{ net.Conn }

func (c *envelopeConn) Write(p []byte) (int, error) {
	if len(p) == len(plain431) && string(p) == plain431 {
		if _, err := io.WriteString(c.Conn, json431); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// CloseWrite half-closes the connection when the underlying one can (TCP):
// net/http does so after its 431 to let the client read it before the
// connection is reset.
func (c *envelopeConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// tooLargeMsg is the message of the 431 for a header over limit bytes.
func tooLargeMsg(limit int) string {
	return fmt.Sprintf("Request header too large (limit: %d bytes)", limit)
}

// headerLimit answers requests whose header is over limit bytes with a JSON
// 431 (and closes the connection, as net/http does with its own 431), and
// passes the others to next.
func headerLimit(next http.Handler, limit int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if headerSize(r) <= limit {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		_ = writeJSON(w, http.StatusRequestHeaderFieldsTooLarge, map[string]any{
			"result": "error",
			"msg":    tooLargeMsg(limit),
			"code":   string(chatcore.CodeBadRequest),
		})
	})
}

// headerSize is the size of r's header as it came over the wire: the
// request line and every header line (Host included) with their CRLFs.
func headerSize(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	n += len("Host: ") + len(r.Host) + 2
	for name, values := range r.Header {
		for _, v := range values {
			n += len(name) + 2 + len(v) + 2
		}
	}
	return n + 2
}
