package sqlite

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// LinkifiersVersion implements [store.LinkifierStore], from the row cache
// when it holds the realm's version. The triggers of migration 0004 raise
// the version on every insert, update and delete of a linkifiers row.
func (t *tx) LinkifiersVersion(ctx context.Context, realm store.RealmID) (int64, error) {
	if v, ok := lookup(t, linkifiersTable, linkifiersMap, realm); ok {
		return v, nil
	}
	v, err := t.Tx.LinkifiersVersion(ctx, realm)
	if err == nil {
		remember(t, linkifiersTable, linkifiersMap, realm, v)
	}
	return v, err
}
