package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var emailChangeTests = []test{
	{"CreateReadDelete", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a1 := &store.EmailChange{Key: "k1", UserID: w.alice, RealmID: w.realm, OldEmail: "alice@x.test", NewEmail: "a1@x.test", CreatedAt: epoch}
		a2 := &store.EmailChange{Key: "k2", UserID: w.alice, RealmID: w.realm, OldEmail: "alice@x.test", NewEmail: "a2@x.test", CreatedAt: epoch}
		b := &store.EmailChange{Key: "k3", UserID: w.bob, RealmID: w.realm, OldEmail: "bob@x.test", NewEmail: "b@x.test", CreatedAt: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, c := range []*store.EmailChange{a1, a2, b} {
				is.NoErr(tx.CreateEmailChange(ctx, c)) // pending change created
			}
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateEmailChange(ctx, &store.EmailChange{Key: "k1", UserID: w.bob, RealmID: w.realm})
		})
		is.True(errors.Is(err, store.ErrConflict)) // duplicate key
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.EmailChange(ctx, "k2")
			is.NoErr(err)                                         // pending change found
			is.Equal(normEmailChange(*got), normEmailChange(*a2)) // every field round-trips
			_, err = tx.EmailChange(ctx, "nope")
			is.True(errors.Is(err, store.ErrNotFound)) // unknown key
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.DeleteEmailChanges(ctx, w.alice)) // alice's pending changes deleted
			is.NoErr(tx.DeleteEmailChanges(ctx, w.carol)) // deleting none is fine
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			for _, k := range []string{"k1", "k2"} {
				_, err := tx.EmailChange(ctx, k)
				is.True(errors.Is(err, store.ErrNotFound)) // alice's changes are gone
			}
			_, err := tx.EmailChange(ctx, "k3")
			is.NoErr(err) // bob's change is untouched
		})
	}},
}
