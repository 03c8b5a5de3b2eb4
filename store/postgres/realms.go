package postgres

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

// realmWithVersionSQL reads realm $1 with its linkifier version.
const realmWithVersionSQL = "SELECT " + sqlstore.RealmCols + ", coalesce((SELECT version FROM linkifier_versions WHERE realm_id = $1), 0) FROM realms WHERE id = $1"

// Realm implements [store.RealmStore].
// The realm's linkifier version comes with it (see tx.linkifierVersions):
// the Service reads it next for every message it renders.
func (t *tx) Realm(ctx context.Context, id store.RealmID) (*store.Realm, error) {
	var r store.Realm
	var version int64
	if f, ok := take(t.answers().realms, id); ok {
		if f == nil {
			return nil, notFound(fmt.Sprintf("realm %d", id))
		}
		r, version = f.realm, f.linkifiersVersion
	} else {
		row := t.queryRow(ctx, realmWithVersionSQL, id)
		if err := sqlstore.ScanRealm(row, &r, &version); err != nil {
			return nil, classify(err, fmt.Sprintf("realm %d", id))
		}
	}
	if t.linkifierVersions == nil {
		t.linkifierVersions = map[store.RealmID]int64{}
	}
	t.linkifierVersions[id] = version
	return &r, nil
}
