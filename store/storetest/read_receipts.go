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
	{"SharingReadReceipts", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.UpdateUserSettings(ctx, w.carol, []store.SettingValue{{Name: "send_read_receipts", Value: false}})) // carol keeps her reads private
			u, err := tx.User(ctx, w.bob)
			is.NoErr(err) // bob read
			u.IsActive = false
			is.NoErr(tx.UpdateUser(ctx, u)) // bob deactivated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.SharingReadReceipts(ctx, w.realm, []store.UserID{w.bot, w.carol, w.alice, w.bob, w.zed, w.alice, 999999})
			is.NoErr(err)                                 // answered
			is.Equal(got, []store.UserID{w.alice, w.bot}) // active, sharing, of the realm; sorted, once each
			got, err = tx.SharingReadReceipts(ctx, w.other, []store.UserID{w.zed, w.alice})
			is.NoErr(err)                        // answered
			is.Equal(got, []store.UserID{w.zed}) // only the other realm's
			got, err = tx.SharingReadReceipts(ctx, w.realm, nil)
			is.NoErr(err)                   // no ids is fine
			is.Equal(got, []store.UserID{}) // an empty list
		})
	}},
}
