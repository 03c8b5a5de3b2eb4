package httpadapter_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/metrics"
)

// BenchmarkUsersMeObserved is BenchmarkUsersMe with a request log line
// (JSON, discarded) and request metrics: what the operational extras cost
// per request.
func BenchmarkUsersMeObserved(b *testing.B) {
	w, logs, _ := newWorld(b, nil, "testdata/fixture.json")
	e := startAdapter(b, w, logs, slog.New(slog.NewJSONHandler(io.Discard, nil)),
		httpadapter.Options{LogRequests: true, Metrics: metrics.New()})
	h := e.srv.Config.Handler
	benchServe(b, h, func() *http.Request {
		req := httptest.NewRequest("GET", "/api/v1/users/me", nil)
		req.Header.Set("Authorization", member.basic())
		return req
	})
}
