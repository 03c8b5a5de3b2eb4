package httpadapter

import (
	"log/slog"
	"net/http"
	"time"
)

// NewServer returns an *http.Server that serves h with timeouts suited to the
// adapter's routes: slow clients cannot hold connections open, and the write
// timeout (70 s) leaves room for a topic deletion, which works for up to its
// time budget (Zulip's 50 s) before answering. The server's own errors go to
// logger at warning level (slog.Default() when nil). Set Addr or call Serve
// yourself.
func NewServer(h http.Handler, logger *slog.Logger) *http.Server {
	if logger == nil {
		logger = slog.Default()
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      70 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}
