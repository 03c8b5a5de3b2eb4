package httpadapter

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"time"

	"github.com/chatcore/chatcore"
)

// RequestIDHeader is the header a request's id is read from (when the client
// or a proxy in front sent a valid one) and echoed in on every answer.
const RequestIDHeader = "X-Request-Id"

// maxRequestID bounds an X-Request-Id the adapter takes over; a longer one,
// or one with characters beyond [A-Za-z0-9._:/+=-], is replaced by a new id.
const maxRequestID = 128

// Route labels of requests that match no route pattern.
const (
	routeUnmatched = "unmatched"
	routeHealthz   = "/healthz"
	routeReadyz    = "/readyz"
)

// requestInfo is what the layers of one request learn about it for its log
// line and metrics: filled as the request goes (dispatch sets route, wrap
// sets user).
type requestInfo struct {
	id    string
	route string
	user  chatcore.UserID
}

type requestInfoKey struct{}

// infoOf returns the requestInfo of ctx, or nil outside a request.
func infoOf(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(requestInfoKey{}).(*requestInfo)
	return info
}

// RequestID returns the id of the request ctx belongs to (the id in its
// answer's X-Request-Id header and in its log lines), or "" outside one.
func RequestID(ctx context.Context) string {
	if info := infoOf(ctx); info != nil {
		return info.id
	}
	return ""
}

// requestID returns the request's valid X-Request-Id, or a new random id.
func requestID(r *http.Request) string {
	if id := r.Header.Get(RequestIDHeader); validRequestID(id) {
		return id
	}
	return rand.Text()
}

func validRequestID(id string) bool {
	if id == "" || len(id) > maxRequestID {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == ':', c == '/', c == '+', c == '=', c == '-':
		default:
			return false
		}
	}
	return true
}

// recorder remembers the status and size of an answer.
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *recorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observe serves r through next with a request id (in the context, the
// answer's header and every log line of the request), then writes the
// request's log line (when Options.LogRequests) and metrics (when
// Options.Metrics).
func (h *handler) observe(w http.ResponseWriter, r *http.Request, next http.HandlerFunc) {
	start := time.Now()
	info := &requestInfo{id: requestID(r), route: routeUnmatched}
	w.Header().Set(RequestIDHeader, info.id)
	r = r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
	rec := &recorder{ResponseWriter: w}
	next(rec, r)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	elapsed := time.Since(start)
	if h.opts.Metrics != nil {
		h.opts.Metrics.ObserveRequest(info.route, r.Method, rec.status, elapsed)
	}
	if !h.opts.LogRequests {
		return
	}
	level := slog.LevelInfo
	if rec.status >= 500 {
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{
		slog.String("method", r.Method),
		slog.String("route", info.route),
		slog.Int("status", rec.status),
		slog.Duration("duration", elapsed),
		slog.Int64("bytes", rec.bytes),
		slog.String("client", clientShown(h.authFails, r)),
	}
	if info.user != 0 {
		attrs = append(attrs, slog.Int64("user_id", int64(info.user)))
	}
	// The request id comes from the context (requestIDHandler).
	h.log.LogAttrs(r.Context(), level, "request", attrs...)
}

// requestIDHandler adds the request id of the record's context to every
// record (as "request_id").
type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, rec slog.Record) error {
	if id := RequestID(ctx); id != "" {
		rec = rec.Clone()
		rec.AddAttrs(slog.String("request_id", id))
	}
	return h.Handler.Handle(ctx, rec)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}

// DefaultReadyTimeout bounds the store read of GET /readyz when
// [Options.ReadyTimeout] is zero.
const DefaultReadyTimeout = 2 * time.Second

// health answers GET (and HEAD) /healthz and /readyz, outside /api/v1, with
// no authentication and no data: /healthz 200 while the process serves,
// /readyz 200 when the store answers a trivial read within
// Options.ReadyTimeout and 503 otherwise. It reports whether r was one.
func (h *handler) health(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != routeHealthz && r.URL.Path != routeReadyz {
		return false
	}
	info := infoOf(r.Context())
	info.route = r.URL.Path
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.writeError(w, r, &methodNotAllowedError{allowed: []string{http.MethodGet, http.MethodHead}})
		return true
	}
	w.Header().Set("Cache-Control", "no-store")
	if r.URL.Path == routeHealthz {
		_ = writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return true
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.readyTimeout)
	defer cancel()
	if _, err := h.svc.IsEmpty(ctx); err != nil {
		h.log.WarnContext(r.Context(), "httpadapter: not ready: the store did not answer", "err", err)
		w.Header().Set("Retry-After", "1")
		_ = writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
		return true
	}
	_ = writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	return true
}

// clientShown is the client address as the logs show it.
func clientShown(t *authThrottle, r *http.Request) string {
	_, shown := t.client(r)
	return shown
}
