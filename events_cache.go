package chatcore

import (
	"encoding/json"
	"sync"

	"github.com/chatcore/chatcore/internal/fifocache"
)

// deliveryCache keeps, for the most recent log entries, what delivering them
// computes from their JSON: the parsed head and each content variant of a
// message event. A message fanned out to many queues is then parsed and
// rebuilt once, not once per queue. Entries are immutable once logged, so
// cached values never go stale; the cache holds at most deliveryCacheSize
// entries, dropping the oldest cached first.
type deliveryCache struct {
	entries *fifocache.Cache[int64, *cachedEntry]
}

const deliveryCacheSize = 1024

func newDeliveryCache() deliveryCache {
	return deliveryCache{entries: fifocache.New[int64, *cachedEntry](deliveryCacheSize)}
}

// cachedEntry is what the cache knows of one log entry.
type cachedEntry struct {
	head eventHead
	ok   bool // the entry parsed
	// msg is the message of a message event, parsed on first use by a
	// narrow; content[applyMarkdown] the event's JSON as a queue with that
	// apply_markdown gets it (without id), built on first use.
	once    sync.Once
	msg     messageHead
	msgOK   bool
	content [2][]byte
	built   [2]sync.Once
}

// entry returns the cached entry for e, parsing it when new.
func (c *deliveryCache) entry(e LoggedEvent) *cachedEntry {
	if ce, ok := c.entries.Get(e.ID); ok {
		return ce
	}
	ce := &cachedEntry{}
	ce.ok = json.Unmarshal(e.Data, &ce.head) == nil
	return c.entries.Add(e.ID, ce)
}

// message returns the parsed message of a message event.
func (ce *cachedEntry) message() (*messageHead, bool) {
	ce.once.Do(func() { ce.msgOK = json.Unmarshal(ce.head.Message, &ce.msg) == nil })
	return &ce.msg, ce.msgOK
}

// variant returns a message event's JSON for queues with applyMarkdown.
func (ce *cachedEntry) variant(p *queueParams, data []byte) []byte {
	i := 0
	if p.ApplyMarkdown {
		i = 1
	}
	ce.built[i].Do(func() {
		ce.content[i] = data
		if ce.head.Raw != nil {
			ce.content[i] = p.messageData(data, *ce.head.Raw)
		}
	})
	return ce.content[i]
}

// emptyTopic reports whether the entry names the empty topic: a channel
// message's subject or an event's topic.
func (ce *cachedEntry) emptyTopic() bool {
	if ce.head.Topic != nil && *ce.head.Topic == "" {
		return true
	}
	if ce.head.Type != "message" {
		return false
	}
	m, ok := ce.message()
	return ok && m.Type == "stream" && m.Subject == ""
}
