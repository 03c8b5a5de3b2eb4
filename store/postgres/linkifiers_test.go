package postgres_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// TestRealmBringsLinkifierVersion: reading a realm reads its linkifier
// version along, so that LinkifiersVersion after it costs no round trip,
// and a linkifier written in the same transaction still raises the version
// the transaction reads.
func TestRealmBringsLinkifierVersion(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st, trips := tracedStore(t)
	realm := createRealm(t, st, "links")

	version := func(tx store.Tx) int64 {
		_, err := tx.Realm(ctx, realm.ID)
		is.NoErr(err) // realm read
		v, err := tx.LinkifiersVersion(ctx, realm.ID)
		is.NoErr(err) // version read
		return v
	}
	var none, created, after int64
	before := trips.n.Load()
	is.NoErr(st.View(ctx, func(tx store.Tx) error { none = version(tx); return nil }))
	is.Equal(trips.n.Load()-before, int64(2)) // BEGIN with the realm's read, ROLLBACK: the version came along
	is.Equal(none, int64(0))                  // no linkifier yet

	err := st.Update(ctx, func(tx store.Tx) error {
		is.Equal(version(tx), none) // nothing written yet
		l := &store.Linkifier{RealmID: realm.ID, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://example.com/{id}"}
		if err := tx.CreateLinkifier(ctx, l); err != nil {
			return err
		}
		created, _ = tx.LinkifiersVersion(ctx, realm.ID)
		return nil
	})
	is.NoErr(err)
	is.True(created > none) // the transaction's own write raised the version it reads
	is.NoErr(st.View(ctx, func(tx store.Tx) error { after = version(tx); return nil }))
	is.Equal(after, created) // and that is the committed version
}
