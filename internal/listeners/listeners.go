// Package listeners keeps a set of callbacks that callers can run without a
// lock while others add and remove callbacks.
package listeners

import (
	"sync"
	"sync/atomic"
)

// Set is a set of callbacks taking a T. The zero value is empty and ready to
// use; Add and its remove functions take a lock, Len and Call do not. Safe for
// concurrent use.
type Set[T any] struct {
	mu   sync.Mutex
	next int
	fns  atomic.Pointer[[]entry[T]] // replaced, never modified
}

type entry[T any] struct {
	id int
	fn func(T)
}

// Add adds fn to the set and returns the function that removes it again
// (calling it more than once removes it once).
func (s *Set[T]) Add(fn func(T)) (remove func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.next
	s.next++
	var cur []entry[T]
	if p := s.fns.Load(); p != nil {
		cur = *p
	}
	next := append(append(make([]entry[T], 0, len(cur)+1), cur...), entry[T]{id, fn})
	s.fns.Store(&next)
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		var kept []entry[T]
		for _, e := range *s.fns.Load() {
			if e.id != id {
				kept = append(kept, e)
			}
		}
		s.fns.Store(&kept)
	}
}

// Len returns the number of callbacks in the set.
func (s *Set[T]) Len() int {
	if p := s.fns.Load(); p != nil {
		return len(*p)
	}
	return 0
}

// Call calls every callback in the set with v, in the order they were added,
// on the calling goroutine. Callbacks added or removed meanwhile may or may
// not be called.
func (s *Set[T]) Call(v T) {
	p := s.fns.Load()
	if p == nil {
		return
	}
	for _, e := range *p {
		e.fn(v)
	}
}
