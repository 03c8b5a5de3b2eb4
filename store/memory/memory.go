// Package memory is an in-memory [store.Store] for tests, examples and
// embedders that need no persistence.
//
// One sync.RWMutex guards all data: View transactions share the read lock,
// Update transactions hold the write lock, so readers never observe a
// transaction in progress. Every write of an Update records its inverse in an
// undo log, which is replayed when fn returns an error, panics or the context
// is done at commit time. Values go in and out as deep copies: callers cannot
// reach stored state through returned slices or pointers.
package memory

import (
	"cmp"
	"context"
	"errors"
	"sync"

	"github.com/chatcore/chatcore/store"
)

// Errors returned by the memory store besides the chatcore sentinels.
var (
	// ErrReadOnly is returned by the write methods of a Tx passed to View.
	ErrReadOnly = errors.New("memory: write in a read-only transaction")
	// ErrTxDone is returned by a Tx used after its transaction ended.
	ErrTxDone = errors.New("memory: transaction has already ended")
	// ErrClosed is returned by View and Update after Close.
	ErrClosed = errors.New("memory: store is closed")
)

var _ store.Store = (*Store)(nil)

// Store is an in-memory store.Store. Create it with New; the zero value is
// not usable. A Store is safe for concurrent use; writers are serialised.
type Store struct {
	mu     sync.RWMutex
	closed bool
	d      data
}

// New returns an empty Store.
func New() *Store {
	return &Store{d: newData()}
}

// View runs fn in a read-only transaction. It returns ctx.Err() without
// calling fn when ctx is done before fn would start, ErrClosed after Close, and
// otherwise what fn returns. Writes through the Tx fail with ErrReadOnly.
func (s *Store) View(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &tx{d: &s.d}
	defer func() { t.done = true }()
	return fn(t)
}

// Update runs fn in a read-write transaction holding the store's write lock.
// It commits when fn returns nil and ctx is still live; otherwise, and when fn
// panics (the panic propagates), every write of fn is undone. It returns
// ctx.Err() without calling fn when ctx is done before fn would start.
// Calling View or Update of the same store inside fn deadlocks.
func (s *Store) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t := &tx{d: &s.d, writable: true}
	committed := false
	defer func() {
		t.done = true
		if !committed {
			t.rollback()
		}
	}()
	if err := fn(t); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	committed = true
	return nil
}

// Close marks the store closed; later View and Update calls fail with
// ErrClosed. It waits for running transactions and always returns nil.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// tx implements store.Tx over the store's data. Writes append their inverse
// to undo.
type tx struct {
	d        *data
	writable bool
	done     bool
	undo     []func()
}

var _ store.Tx = (*tx)(nil)

// read reports whether the transaction may still be used.
func (t *tx) read() error {
	if t.done {
		return ErrTxDone
	}
	return nil
}

// write reports whether the transaction may write.
func (t *tx) write() error {
	if t.done {
		return ErrTxDone
	}
	if !t.writable {
		return ErrReadOnly
	}
	return nil
}

// rollback undoes every recorded write, newest first.
func (t *tx) rollback() {
	for i := len(t.undo) - 1; i >= 0; i-- {
		t.undo[i]()
	}
	t.undo = nil
}

// put sets m[k] = v, recording the previous state.
func put[K comparable, V any](t *tx, m map[K]V, k K, v V) {
	old, had := m[k]
	t.undo = append(t.undo, func() {
		if had {
			m[k] = old
		} else {
			delete(m, k)
		}
	})
	m[k] = v
}

// del deletes m[k], recording the previous state.
func del[K comparable, V any](t *tx, m map[K]V, k K) {
	old, had := m[k]
	if !had {
		return
	}
	t.undo = append(t.undo, func() { m[k] = old })
	delete(m, k)
}

// listOf returns the list m[k], creating an empty one when missing. Empty lists
// are harmless, so their creation is not undone.
func listOf[K comparable, T cmp.Ordered](m map[K]*idList[T], k K) *idList[T] {
	l := m[k]
	if l == nil {
		l = new(idList[T])
		m[k] = l
	}
	return l
}

// index adds id to the list m[k], recording the change.
func index[K comparable, T cmp.Ordered](t *tx, m map[K]*idList[T], k K, id T) {
	l := listOf(m, k)
	if l.add(id) {
		t.undo = append(t.undo, func() { l.remove(id) })
	}
}

// unindex removes id from the list m[k], recording the change.
func unindex[K comparable, T cmp.Ordered](t *tx, m map[K]*idList[T], k K, id T) {
	l := m[k]
	if l != nil && l.remove(id) {
		t.undo = append(t.undo, func() { l.add(id) })
	}
}

// useID records that id is taken, raising *top (the highest id ever used for
// the kind) when needed.
func useID[T cmp.Ordered](t *tx, top *T, id T) {
	if id <= *top {
		return
	}
	old := *top
	t.undo = append(t.undo, func() { *top = old })
	*top = id
}
