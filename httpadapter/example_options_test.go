package httpadapter_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/metrics"
	"github.com/chatcore/chatcore/store/memory"
)

// ExampleNew_options serves a Service over HTTP as a production server
// does: the external URL set once on the Service, request logs with request
// ids, a rate limit, Prometheus metrics on a listener of their own, the
// event-queue Hub shared with the adapter, and NewServer's timeouts.
func ExampleNew_options() {
	ctx := context.Background()
	m := metrics.New()
	reg := prometheus.NewRegistry()
	reg.MustRegister(m)

	// Logs without times, so that the output below is stable.
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey || a.Key == "duration" || a.Key == "client" || a.Key == "bytes" {
				return slog.Attr{}
			}
			return a
		},
	}))
	st := memory.New()
	svc := chatcore.New(m.InstrumentStore(st),
		chatcore.WithExternalURL("https://chat.example.com"), // every link is built from it
		chatcore.WithLogger(logger))
	err := fixture.Load(ctx, svc, strings.NewReader(`{"realms": [{"id": 1, "string_id": "demo", "name": "Demo",
		"users": [{"id": 11, "email": "ada@demo.test", "full_name": "Ada", "role": "owner",
		           "api_key": "AdaKey00000000000000000000000000"}]}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	hub := eventqueue.New(svc, eventqueue.Options{})
	defer hub.Close()
	m.WatchHub(hub)
	m.WatchStore(st) // chatcore_event_queues: the queues stored now
	h := httpadapter.New(svc, httpadapter.Options{
		Logger:      logger,
		LogRequests: true,
		Metrics:     m,
		Events:      hub,
		RateLimit:   &httpadapter.RateLimit{Requests: 200, Per: time.Minute},
	})
	srv := httptest.NewUnstartedServer(nil)
	srv.Config = httpadapter.NewServer(h, logger) // in production: srv.Addr = ":9991"; srv.ListenAndServe()
	srv.Start()
	defer srv.Close()
	metricsSrv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{})) // keep it private
	defer metricsSrv.Close()

	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/server_settings", nil)
	req.Header.Set("X-Request-Id", "req-1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	fmt.Println(res.Status, res.Header.Get("X-Request-Id"), strings.Contains(string(body), `"realm_url":"https://chat.example.com"`))

	res, err = http.Get(metricsSrv.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(res.Body)
	for line := range strings.SplitSeq(string(text), "\n") {
		if strings.HasPrefix(line, "chatcore_http_request_duration_seconds_count") || strings.HasPrefix(line, "chatcore_event_queues ") {
			fmt.Println(line)
		}
	}
	// Output:
	// level=INFO msg=request method=GET route=/api/v1/server_settings status=200 request_id=req-1
	// 200 OK req-1 true
	// chatcore_event_queues 0
	// chatcore_http_request_duration_seconds_count{code="200",method="GET",route="/api/v1/server_settings"} 1
}
