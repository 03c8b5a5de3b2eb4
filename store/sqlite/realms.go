package sqlite

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// Realm implements [store.RealmStore], from the row cache when it holds
// the row.
func (t *tx) Realm(ctx context.Context, id store.RealmID) (*store.Realm, error) {
	if r, ok := t.cachedRealm(id); ok {
		return r, nil
	}
	r, err := t.Tx.Realm(ctx, id)
	if err == nil {
		t.cacheRealm(r)
	}
	return r, err
}
