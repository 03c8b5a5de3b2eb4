package chattest

import (
	"context"
	"errors"
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

// errRetried ends the first, discarded run of a [RetryingStore] transaction.
var errRetried = errors.New("chattest: attempt discarded")

// RetryingStore wraps a store and runs fn of every Update twice: first in a
// transaction it rolls back, then in the one it commits, as a store that
// retries a transaction it could not serialise does (store/postgres). A
// Service over it must behave as over the wrapped store: the first run
// leaves no effect. Use it with [Wrap].
type RetryingStore struct{ chatcore.Store }

// Update runs fn in a transaction that is rolled back, then in one that
// commits.
func (s RetryingStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	err := s.Store.Update(ctx, func(tx chatcore.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errRetried
	})
	if !errors.Is(err, errRetried) {
		return err
	}
	return s.Store.Update(ctx, fn)
}
