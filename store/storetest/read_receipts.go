package storetest

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var readReceiptTests = []test{
	{"RealmSettingRoundTrips", func(t *testing.T, st store.Store) {
		is := is.New(t)
		r := &store.Realm{StringID: "rr", Name: "rr org", DateCreated: epoch, ReadReceiptsDisabled: true}
		plain := newRealm(t, st, "plain")
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateRealm(ctx, r)) // realm created
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Realm(ctx, r.ID)
			is.NoErr(err)                     // realm read
			is.True(got.ReadReceiptsDisabled) // stored at creation
			got, err = tx.Realm(ctx, plain)
			is.NoErr(err)                      // realm read
			is.True(!got.ReadReceiptsDisabled) // the zero value: enabled
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Realm(ctx, r.ID)
			is.NoErr(err) // realm read
			got.ReadReceiptsDisabled = false
			is.NoErr(tx.UpdateRealm(ctx, got)) // realm updated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.RealmByStringID(ctx, "rr")
			is.NoErr(err)                      // realm read
			is.True(!got.ReadReceiptsDisabled) // changed by UpdateRealm
		})
	}},
}
