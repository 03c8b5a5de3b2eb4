package eventqueue

import "sync/atomic"

// hubCounts are a Hub's monotonic counters, for metrics.
type hubCounts struct {
	registered atomic.Uint64
	delivered  atomic.Uint64
}

// Counts returns how many queues [Hub.Register] registered and how many
// events (heartbeats included) [Hub.Poll] answered since the Hub was made:
// counters for metrics (package metrics reads them through WatchHub).
func (h *Hub) Counts() (registered, delivered uint64) {
	return h.counts.registered.Load(), h.counts.delivered.Load()
}
