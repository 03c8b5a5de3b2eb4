package metrics_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/metrics"
	"github.com/chatcore/chatcore/store/memory"
)

type fakeHub struct{ waiting, registered, delivered int }

func (h *fakeHub) Waiting() int { return h.waiting }
func (h *fakeHub) Counts() (uint64, uint64) {
	return uint64(h.registered), uint64(h.delivered)
}

func TestMetrics(t *testing.T) {
	is := is.New(t)
	m := metrics.New()
	reg := prometheus.NewPedanticRegistry() // checks Describe against Collect
	is.NoErr(reg.Register(m))

	// Store transactions: timed, and the extra runs of a retried Update counted.
	st := m.InstrumentStore(chattest.RetryingStore{Store: memory.New()})
	svc := chatcore.New(st)
	_, err := svc.IsEmpty(context.Background()) // one View
	is.NoErr(err)
	is.NoErr(st.Update(context.Background(), func(tx chatcore.Tx) error { return nil })) // one Update, run twice
	is.Equal(testutil.ToFloat64(counter(t, reg, "chatcore_store_transaction_retries_total", "kind", "update")), 1.0)
	is.Equal(testutil.ToFloat64(counter(t, reg, "chatcore_store_transaction_retries_total", "kind", "view")), 0.0)

	_, single := m.InstrumentStore(memory.New()).(chatcore.SingleReadStore)
	_, memSingle := chatcore.Store(memory.New()).(chatcore.SingleReadStore)
	is.Equal(single, memSingle) // the read hint is kept exactly when the store has it

	h := &fakeHub{waiting: 2, registered: 5, delivered: 9}
	m.WatchHub(h)
	m.WatchHub(&fakeHub{waiting: 1, registered: 1, delivered: 1})
	m.WebhookOutcome("reply")
	m.WebhookOutcome("reply")
	m.ScheduledDelivered(3)
	m.WriteGroupCommitted(4)
	m.ObserveRequest("/api/v1/users/me", "BREW", 200, time.Millisecond) // an unknown method is "other"
	m.ObserveRequest("/api/v1/users/me", "GET", 200, time.Millisecond)

	want := `
# HELP chatcore_event_polls_waiting Polls of event queues waiting for events in the watched hubs.
# TYPE chatcore_event_polls_waiting gauge
chatcore_event_polls_waiting 3
# HELP chatcore_event_queues_registered_total Event queues registered by the watched hubs.
# TYPE chatcore_event_queues_registered_total counter
chatcore_event_queues_registered_total 6
# HELP chatcore_events_delivered_total Events delivered to polls by the watched hubs.
# TYPE chatcore_events_delivered_total counter
chatcore_events_delivered_total 10
# HELP chatcore_scheduled_deliveries_total Scheduled messages and reminders delivered.
# TYPE chatcore_scheduled_deliveries_total counter
chatcore_scheduled_deliveries_total 3
`
	is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(want), "chatcore_event_polls_waiting",
		"chatcore_event_queues_registered_total", "chatcore_events_delivered_total", "chatcore_scheduled_deliveries_total"))
	h.delivered = 20 // counters follow the hubs
	is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(strings.Replace(want, "chatcore_events_delivered_total 10", "chatcore_events_delivered_total 21", 1)), "chatcore_events_delivered_total"))

	is.Equal(testutil.ToFloat64(counter(t, reg, "chatcore_webhook_deliveries_total", "outcome", "reply")), 2.0)
	n, err := testutil.GatherAndCount(reg, "chatcore_webhook_deliveries_total")
	is.NoErr(err)
	is.Equal(n, 6) // every outcome has its series from the start
	n, err = testutil.GatherAndCount(reg, "chatcore_http_request_duration_seconds")
	is.NoErr(err)
	is.Equal(n, 2) // GET and other
	n, err = testutil.GatherAndCount(reg, "chatcore_store_write_group_size")
	is.NoErr(err)
	is.Equal(n, 1)
}

// counter finds the series of family name with the label value in reg.
func counter(t *testing.T, reg *prometheus.Registry, name, label, value string) prometheus.Collector {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					c := prometheus.NewCounter(prometheus.CounterOpts{Name: "x"})
					c.Add(s.GetCounter().GetValue())
					return c
				}
			}
		}
	}
	t.Fatalf("no %s{%s=%q}", name, label, value)
	return nil
}
