package eventqueue

import (
	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/eventwire"
	"github.com/chatcore/chatcore/internal/fifocache"
)

// deliveryCache keeps, for the most recent log entries, what delivering them
// computes from their JSON: the parsed head and each content variant of a
// message event (an [eventwire.Entry]). A message fanned out to many queues
// is then parsed and rebuilt once, not once per queue. Entries are immutable
// once logged, so cached values never go stale; the cache holds at most
// deliveryCacheSize entries, dropping the oldest cached first.
type deliveryCache struct {
	entries *fifocache.Cache[int64, *eventwire.Entry]
}

const deliveryCacheSize = 1024

func newDeliveryCache() deliveryCache {
	return deliveryCache{entries: fifocache.New[int64, *eventwire.Entry](deliveryCacheSize)}
}

// entry returns the cached entry for e, parsing it when new.
func (c *deliveryCache) entry(e chatcore.LoggedEvent) *eventwire.Entry {
	if ce, ok := c.entries.Get(e.ID); ok {
		return ce
	}
	return c.entries.Add(e.ID, eventwire.Parse(e.Data))
}
