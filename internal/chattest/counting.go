package chattest

import (
	"context"
	"sync/atomic"

	"github.com/chatcore/chatcore"
)

// CountingStore wraps a store and counts the transactions run on it, for
// tests that assert a call was refused before any transaction or ran no more
// than a baseline. Set Store before use; it is safe for concurrent use.
type CountingStore struct {
	chatcore.Store
	views, updates atomic.Int64
}

// TxCount is how many transactions of each kind a [CountingStore] has run.
type TxCount struct{ Views, Updates int64 }

// View counts a View transaction and runs it on the wrapped store.
func (s *CountingStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.views.Add(1)
	return s.Store.View(ctx, fn)
}

// Update counts an Update transaction and runs it on the wrapped store.
func (s *CountingStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, fn)
}

// Count returns the transactions run so far.
func (s *CountingStore) Count() TxCount {
	return TxCount{Views: s.views.Load(), Updates: s.updates.Load()}
}
