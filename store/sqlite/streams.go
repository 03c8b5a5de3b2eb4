package sqlite

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// Stream implements [store.StreamStore], from the row cache when it
// holds the row.
func (t *tx) Stream(ctx context.Context, id store.StreamID) (*store.Stream, error) {
	if s, ok := t.cachedStream(id); ok {
		return s, nil
	}
	s, err := t.Tx.Stream(ctx, id)
	if err == nil {
		t.cacheStream(s)
	}
	return s, err
}

// StreamByName implements [store.StreamStore], from the row cache when it
// holds the row.
func (t *tx) StreamByName(ctx context.Context, realm store.RealmID, name string) (*store.Stream, error) {
	if s, ok := t.cachedStreamByName(realm, store.FoldKey(name)); ok {
		return s, nil
	}
	s, err := t.Tx.StreamByName(ctx, realm, name)
	if err == nil {
		t.cacheStream(s)
	}
	return s, err
}
