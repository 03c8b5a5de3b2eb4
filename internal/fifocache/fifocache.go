// Package fifocache is a map of bounded size, safe for concurrent use, that
// forgets its oldest keys first.
package fifocache

import "sync"

// Cache maps keys to values, holding at most the size given to [New]: adding
// a key to a full cache forgets the key added longest ago (replacing the
// value of a key already held does not make it younger). A nil *Cache holds
// nothing: Get finds nothing and Add and Put store nothing. Safe for
// concurrent use.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	entries map[K]V
	order   []K // the keys held, oldest at next once the ring is full
	next    int
	size    int
}

// New returns an empty cache holding at most size keys (at least one). It
// allocates as keys are added, not up front.
func New[K comparable, V any](size int) *Cache[K, V] {
	return &Cache[K, V]{size: max(size, 1)}
}

// Get returns the value held for k.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	if c == nil {
		var zero V
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.entries[k]
	return v, ok
}

// Add stores v for k unless k already has a value, and returns the value k
// has afterwards: the one held before, or v. Callers that build v outside
// the cache thus all end up with the first value stored.
func (c *Cache[K, V]) Add(k K, v V) V {
	if c == nil {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[k]; ok {
		return old
	}
	c.insert(k, v)
	return v
}

// Put stores v for k, replacing a value held already only when replace
// reports true of it.
func (c *Cache[K, V]) Put(k K, v V, replace func(old V) bool) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[k]; ok {
		if replace(old) {
			c.entries[k] = v
		}
		return
	}
	c.insert(k, v)
}

// insert adds k, which the cache does not hold, forgetting the oldest key
// when full. c.mu is held.
func (c *Cache[K, V]) insert(k K, v V) {
	if c.entries == nil {
		c.entries = make(map[K]V)
	}
	if len(c.order) < c.size {
		c.order = append(c.order, k)
	} else {
		delete(c.entries, c.order[c.next])
		c.order[c.next] = k
		c.next = (c.next + 1) % c.size
	}
	c.entries[k] = v
}

// Len returns the number of keys held.
func (c *Cache[K, V]) Len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
