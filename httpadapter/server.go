package httpadapter

import (
	"fmt"
	"log/slog"
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
// reaches h (the adapter answers it with its 404). What net/http answers
// before reading a whole request, and so before any handler runs, cannot be
// intercepted there and stays plain text: a header over 256 KiB (431), a
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
			"msg":    fmt.Sprintf("Request header too large (limit: %d bytes)", limit),
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
