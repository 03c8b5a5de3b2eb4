package chatcore_test

import (
	"context"
	"errors"

	"github.com/chatcore/chatcore"
)

// errDeletionInjected is the failure deletionHookStore injects.
var errDeletionInjected = errors.New("injected store failure")

// deletionHookStore wraps a Store; inside Update transactions it counts the
// DeleteMessages calls and lets a test act after each one (cancel a context,
// fail) and make DeactivateSubscriptions fail. Used by one goroutine at a time.
type deletionHookStore struct {
	chatcore.Store
	deletes  int // DeleteMessages calls so far
	maxBatch int // the largest batch DeleteMessages returned
	// filters are the filters of the DeleteMessages calls so far.
	filters []chatcore.MessageFilter
	// afterDelete, when set, runs after the n-th (from 1) DeleteMessages call
	// has deleted its batch; an error it returns becomes the call's error.
	afterDelete func(n int) error
	failSubs    bool // DeactivateSubscriptions fails
}

// wrap makes s wrap base, for chattest.Wrap.
func (s *deletionHookStore) wrap(base chatcore.Store) chatcore.Store { s.Store = base; return s }

func (s *deletionHookStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(deletionHookTx{tx, s}) })
}

type deletionHookTx struct {
	chatcore.Tx
	s *deletionHookStore
}

func (t deletionHookTx) DeleteMessages(ctx context.Context, f chatcore.MessageFilter, limit int) ([]chatcore.DeletedMessage, error) {
	deleted, err := t.Tx.DeleteMessages(ctx, f, limit)
	if err != nil {
		return nil, err
	}
	t.s.deletes++
	t.s.maxBatch = max(t.s.maxBatch, len(deleted))
	t.s.filters = append(t.s.filters, f)
	if t.s.afterDelete != nil {
		if err := t.s.afterDelete(t.s.deletes); err != nil {
			return nil, err
		}
	}
	return deleted, nil
}

func (t deletionHookTx) DeactivateSubscriptions(ctx context.Context, user chatcore.UserID) error {
	if t.s.failSubs {
		return errDeletionInjected
	}
	return t.Tx.DeactivateSubscriptions(ctx, user)
}
