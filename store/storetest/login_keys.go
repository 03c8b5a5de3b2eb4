package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var loginKeyTests = []test{
	{"AddLookUpTrim", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		keys := []*store.LoginKey{
			{Hash: "h1", UserID: w.alice, Created: epoch},
			{Hash: "h2", UserID: w.alice, Created: epoch.Add(time.Minute)},
			{Hash: "h3", UserID: w.alice, Created: epoch.Add(2 * time.Minute)},
			{Hash: "h4", UserID: w.bob, Created: epoch},
		}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, k := range keys {
				is.NoErr(tx.AddLoginKey(ctx, k)) // key stored
			}
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.AddLoginKey(ctx, &store.LoginKey{Hash: "h1", UserID: w.bob, Created: epoch})
		})
		is.True(errors.Is(err, store.ErrConflict)) // a hash is unique
		owner := func(hash string) (store.UserID, error) {
			var id store.UserID
			var err error
			view(t, st, func(ctx context.Context, tx store.Tx) { id, err = tx.LoginKeyUser(ctx, hash) })
			return id, err
		}
		id, err := owner("h2")
		is.NoErr(err)
		is.Equal(id, w.alice) // the key's user
		_, err = owner("nope")
		is.True(errors.Is(err, store.ErrNotFound)) // unknown hash
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.TrimLoginKeys(ctx, w.alice, 2)
			is.NoErr(err)
			is.Equal(n, 1) // the oldest of three
		})
		_, err = owner("h1")
		is.True(errors.Is(err, store.ErrNotFound)) // trimmed
		for _, h := range []string{"h2", "h3", "h4"} {
			_, err = owner(h)
			is.NoErr(err) // the newest kept, the other user's untouched
		}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.TrimLoginKeys(ctx, w.alice, 0)
			is.NoErr(err)
			is.Equal(n, 2) // keep 0: every key of the user
		})
		_, err = owner("h3")
		is.True(errors.Is(err, store.ErrNotFound))
		err = st.View(ctx, func(tx store.Tx) error {
			return tx.AddLoginKey(ctx, &store.LoginKey{Hash: "h9", UserID: w.bob, Created: epoch})
		})
		is.True(err != nil) // a View does not write
	}},
}
