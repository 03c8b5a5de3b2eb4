package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/chatcore/chatcore"
)

const (
	// queueCountTimeout is the deadline of the store read behind
	// chatcore_event_queues; a scrape waits for it at most
	// queueCountTimeout+queueCountGrace (the grace lets a read that honours
	// its context report its end before the scrape moves on).
	queueCountTimeout = time.Second
	queueCountGrace   = 100 * time.Millisecond
	// maxCountedQueues bounds that read: the store counts no further.
	maxCountedQueues = 1_000_000
)

// queueGauge is the chatcore_event_queues collector: at each scrape it
// counts the queues of every watched store, within queueCountTimeout, and
// reports the sum of the last counts that succeeded.
type queueGauge struct {
	desc *prometheus.Desc

	mu     sync.Mutex
	stores []*queueStore
}

// queueStore is one watched store with its last good count.
type queueStore struct {
	st chatcore.Store

	mu      sync.Mutex
	last    int
	ok      bool          // last holds a count that succeeded
	running chan struct{} // closed when the read in flight ends; nil when none is
}

func newQueueGauge() *queueGauge {
	return &queueGauge{desc: prometheus.NewDesc("chatcore_event_queues",
		"Event queues stored now, in every realm (shared by every instance on the store).", nil, nil)}
}

// Describe implements [prometheus.Collector].
func (g *queueGauge) Describe(ch chan<- *prometheus.Desc) { ch <- g.desc }

// Collect implements [prometheus.Collector]. It reports nothing until a
// watched store has answered once.
func (g *queueGauge) Collect(ch chan<- prometheus.Metric) {
	g.mu.Lock()
	stores := append([]*queueStore(nil), g.stores...)
	g.mu.Unlock()
	total, seen := 0, false
	for _, s := range stores {
		if n, ok := s.count(); ok {
			total += n
			seen = true
		}
	}
	if seen {
		ch <- prometheus.MustNewConstMetric(g.desc, prometheus.GaugeValue, float64(total))
	}
}

// count starts a read of the store's queue count unless one is in flight,
// waits for it at most queueCountTimeout+queueCountGrace, and returns the last good count.
// A read that outlives the wait finishes in the background (its context
// ends it at the same deadline) and is never started twice.
func (s *queueStore) count() (int, bool) {
	s.mu.Lock()
	if s.running == nil {
		done := make(chan struct{})
		s.running = done
		go s.read(done)
	}
	done := s.running
	s.mu.Unlock()
	t := time.NewTimer(queueCountTimeout + queueCountGrace)
	select {
	case <-done:
	case <-t.C:
	}
	t.Stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.ok
}

// read counts the store's queues and records the count when it succeeds.
func (s *queueStore) read(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), queueCountTimeout)
	defer cancel()
	var n int
	fn := func(tx chatcore.Tx) error {
		var err error
		n, err = tx.CountEventQueues(ctx, chatcore.EventQueueFilter{Limit: maxCountedQueues})
		return err
	}
	var err error
	if one, ok := s.st.(chatcore.SingleReadStore); ok {
		err = one.ViewSingle(ctx, fn)
	} else {
		err = s.st.View(ctx, fn)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil {
		s.last, s.ok = n, true
	}
	s.running = nil
	close(done)
}

// WatchStore makes chatcore_event_queues count the event queues stored in
// st (every realm's; the queues of every instance sharing st). The count is
// read at each scrape in one short read transaction, bounded in rows
// (1,000,000) and in time (1 s): when it fails or is late the scrape
// reports the last count that succeeded (nothing before the first). Give
// st itself rather than [Metrics.InstrumentStore]'s result, so scrapes are
// not counted as the server's transactions; watch each store once (the
// gauge sums the watched stores).
func (m *Metrics) WatchStore(st chatcore.Store) {
	m.queues.mu.Lock()
	defer m.queues.mu.Unlock()
	m.queues.stores = append(m.queues.stores, &queueStore{st: st})
}
