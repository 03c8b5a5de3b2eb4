package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var serverSecretTests = []test{
	{"FirstWriterWins", func(t *testing.T, st store.Store) {
		is := is.New(t)
		ctx := context.Background()
		var first, again, other []byte
		update(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			first, err = tx.ServerSecret(ctx, "signing", []byte("one"))
			is.NoErr(err)
			again, err = tx.ServerSecret(ctx, "signing", []byte("two"))
			is.NoErr(err)
		})
		is.Equal(string(first), "one") // the fresh value stored
		is.Equal(string(again), "one") // the stored value kept
		first[0] = 'X'                 // the caller's copy
		update(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			again, err = tx.ServerSecret(ctx, "signing", []byte("three"))
			is.NoErr(err)
			other, err = tx.ServerSecret(ctx, "other", []byte("four"))
			is.NoErr(err)
		})
		is.Equal(string(again), "one")  // in a later transaction too
		is.Equal(string(other), "four") // each name its own

		// A rolled-back transaction leaves no secret.
		boom := errors.New("boom")
		err := st.Update(ctx, func(tx store.Tx) error {
			if _, err := tx.ServerSecret(ctx, "rolled back", []byte("five")); err != nil {
				return err
			}
			return boom
		})
		is.True(errors.Is(err, boom))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			v, err := tx.ServerSecret(ctx, "rolled back", []byte("six"))
			is.NoErr(err)
			is.Equal(string(v), "six") // the rolled-back value is gone
		})

		// Empty and oversized values are refused, and a view cannot store.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.ServerSecret(ctx, "empty", nil)
			is.True(err != nil) // an empty value
			_, err = tx.ServerSecret(ctx, "big", bytes.Repeat([]byte{1}, store.MaxServerSecretLen+1))
			is.True(err != nil) // too long
		})
		err = st.View(ctx, func(tx store.Tx) error {
			_, err := tx.ServerSecret(ctx, "signing", []byte("seven"))
			return err
		})
		is.True(err != nil) // a read-only transaction writes nothing
	}},
}
