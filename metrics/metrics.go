// Package metrics collects chatcore's Prometheus metrics. A [Metrics] is a
// [prometheus.Collector]: register it in the embedding server's registry and
// hand it to the parts it observes.
//
//	m := metrics.New()
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(m, collectors.NewGoCollector())
//	svc := chatcore.New(m.InstrumentStore(st), webhooks.Delivery(webhooks.Options{OnOutcome: m.WebhookOutcome}))
//	hub := eventqueue.New(svc, eventqueue.Options{})
//	m.WatchHub(hub)
//	m.WatchStore(st)
//	h := httpadapter.New(svc, httpadapter.Options{Events: hub, Metrics: m})
//	go http.ListenAndServe("127.0.0.1:9992", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// Every label set is bounded: HTTP requests are labelled by the route's
// pattern (never the raw path), a known method and the status code; store
// transactions by kind; webhook deliveries by outcome.
//
// The families:
//
//	chatcore_http_request_duration_seconds{route,method,code}   histogram
//	chatcore_store_transaction_duration_seconds{kind,result}     histogram (kind: view, update)
//	chatcore_store_transaction_retries_total{kind}               counter (runs of fn beyond the first)
//	chatcore_store_write_group_size                              histogram (PostgreSQL group commit)
//	chatcore_event_polls_waiting                                 gauge
//	chatcore_event_queues                                        gauge (queues stored now, every realm; see WatchStore)
//	chatcore_event_queues_registered_total                       counter
//	chatcore_events_delivered_total                              counter
//	chatcore_webhook_deliveries_total{outcome}                   counter
//	chatcore_scheduled_deliveries_total                          counter
package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chatcore/chatcore/webhooks"
)

// Metrics holds chatcore's metric families. Its methods are safe for
// concurrent use; the zero value is not usable (use [New]).
type Metrics struct {
	requests        *prometheus.HistogramVec
	txDuration      *prometheus.HistogramVec
	txRetries       *prometheus.CounterVec
	writeGroupSize  prometheus.Histogram
	pollsWaiting    prometheus.GaugeFunc
	queuesOpened    prometheus.CounterFunc
	eventsDelivered prometheus.CounterFunc
	webhooks        *prometheus.CounterVec
	scheduled       prometheus.Counter
	queues          *queueGauge

	mu   sync.Mutex
	hubs []Hub
}

// Hub is what [Metrics.WatchHub] reads from an event-queue hub
// (*eventqueue.Hub implements it).
type Hub interface {
	// Waiting is how many polls are waiting now.
	Waiting() int
	// Counts returns how many queues were registered and how many events
	// were delivered to polls since the hub started.
	Counts() (registered, delivered uint64)
}

// New returns a Metrics with every family at zero.
func New() *Metrics {
	m := &Metrics{
		requests: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "chatcore_http_request_duration_seconds",
			Help:    "Duration of HTTP requests by route pattern, method and status code.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10, 30, 60},
		}, []string{"route", "method", "code"}),
		txDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "chatcore_store_transaction_duration_seconds",
			Help:    "Duration of store transactions (all their runs) by kind and result.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 5},
		}, []string{"kind", "result"}),
		txRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chatcore_store_transaction_retries_total",
			Help: "Runs of a transaction's function beyond the first (serialization failures, lost connections).",
		}, []string{"kind"}),
		writeGroupSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "chatcore_store_write_group_size",
			Help:    "Updates committed together by one PostgreSQL write group.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64},
		}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "chatcore_webhook_deliveries_total",
			Help: "Outgoing webhook deliveries by outcome.",
		}, []string{"outcome"}),
		scheduled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "chatcore_scheduled_deliveries_total",
			Help: "Scheduled messages and reminders delivered.",
		}),
		queues: newQueueGauge(),
	}
	m.pollsWaiting = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "chatcore_event_polls_waiting",
		Help: "Polls of event queues waiting for events in the watched hubs.",
	}, func() float64 {
		m.mu.Lock()
		defer m.mu.Unlock()
		n := 0
		for _, h := range m.hubs {
			n += h.Waiting()
		}
		return float64(n)
	})
	m.queuesOpened = prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "chatcore_event_queues_registered_total",
		Help: "Event queues registered by the watched hubs.",
	}, func() float64 { reg, _ := m.hubCounts(); return float64(reg) })
	m.eventsDelivered = prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "chatcore_events_delivered_total",
		Help: "Events delivered to polls by the watched hubs.",
	}, func() float64 { _, del := m.hubCounts(); return float64(del) })
	// Families whose labels are known have their series from the start,
	// so a dashboard sees zeros rather than nothing.
	for _, kind := range []string{"view", "update"} {
		m.txRetries.WithLabelValues(kind)
	}
	for _, o := range webhooks.Outcomes {
		m.webhooks.WithLabelValues(o)
	}
	return m
}

func (m *Metrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.requests, m.txDuration, m.txRetries, m.writeGroupSize,
		m.pollsWaiting, m.queuesOpened, m.eventsDelivered, m.webhooks, m.scheduled, m.queues}
}

// Describe implements [prometheus.Collector].
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m.collectors() {
		c.Describe(ch)
	}
}

// Collect implements [prometheus.Collector].
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m.collectors() {
		c.Collect(ch)
	}
}

// hubCounts sums the watched hubs' counters.
func (m *Metrics) hubCounts() (registered, delivered uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, h := range m.hubs {
		r, d := h.Counts()
		registered += r
		delivered += d
	}
	return registered, delivered
}

// WatchHub makes the event-queue metrics (waiting polls, queues registered,
// events delivered) include h's.
func (m *Metrics) WatchHub(h Hub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hubs = append(m.hubs, h)
}

// knownMethods are the method label's values; any other method is "other".
var knownMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

// ObserveRequest records one HTTP request: route is its pattern (e.g.
// "/api/v1/messages/{message_id}", or "unmatched"), never the raw path.
func (m *Metrics) ObserveRequest(route, method string, code int, d time.Duration) {
	if !knownMethods[method] {
		method = "other"
	}
	if code < 100 || code > 599 {
		code = 0
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Observe(d.Seconds())
}

// WebhookOutcome counts one outgoing webhook delivery that ended with
// outcome (give it as webhooks.Options.OnOutcome).
func (m *Metrics) WebhookOutcome(outcome string) {
	m.webhooks.WithLabelValues(outcome).Inc()
}

// ScheduledDelivered counts the scheduled messages and reminders one
// delivery round delivered (give it to scheduled.RunObserved).
func (m *Metrics) ScheduledDelivered(n int) {
	m.scheduled.Add(float64(n))
}

// WriteGroupCommitted records the size of one committed PostgreSQL write
// group (give it as postgres.WithGroupCommitObserver).
func (m *Metrics) WriteGroupCommitted(updates int) {
	m.writeGroupSize.Observe(float64(updates))
}
