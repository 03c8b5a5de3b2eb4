package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// realmEmojis lists the realm's custom emoji with UTC times.
func realmEmojis(tb testing.TB, st store.Store, realm store.RealmID) []store.RealmEmoji {
	tb.Helper()
	var out []store.RealmEmoji
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		es, err := tx.RealmEmojis(ctx, realm)
		if err != nil {
			tb.Fatalf("realm emoji: %v", err)
		}
		for _, e := range es {
			e.Created = e.Created.UTC()
			out = append(out, e)
		}
	})
	return out
}

var realmEmojiTests = []test{
	{"CreateDeactivateReuse", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a := &store.RealmEmoji{RealmID: w.realm, Name: "party_parrot", AuthorID: w.alice, FileName: "1.gif", ContentType: "image/gif", Created: epoch.Add(300 * time.Millisecond)}
		b := &store.RealmEmoji{RealmID: w.other, Name: "party_parrot", AuthorID: w.zed, FileName: "2.png", ContentType: "image/png", Created: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateRealmEmoji(ctx, a)) // created
			is.NoErr(tx.CreateRealmEmoji(ctx, b)) // the same name in another realm
		})
		is.True(a.ID > 0 && b.ID > a.ID)
		want := *a
		want.Created = epoch
		is.Equal(realmEmojis(t, st, w.realm), []store.RealmEmoji{want}) // every field round-trips, whole seconds
		is.Equal(len(realmEmojis(t, st, 9999)), 0)                      // a realm without emoji
		ctx := context.Background()
		dup := &store.RealmEmoji{RealmID: w.realm, Name: "party_parrot", AuthorID: w.bob, FileName: "x.png", ContentType: "image/png", Created: epoch}
		err := st.Update(ctx, func(tx store.Tx) error { return tx.CreateRealmEmoji(ctx, dup) })
		is.True(errors.Is(err, store.ErrConflict)) // an active name is taken
		a.Deactivated = true
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.UpdateRealmEmoji(ctx, a)) })
		dup.ID = 0
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.CreateRealmEmoji(ctx, dup)) }) // free again once deactivated
		got := realmEmojis(t, st, w.realm)
		is.Equal(len(got), 2)        // the deactivated one stays
		is.True(got[0].Deactivated)  // deactivated
		is.True(!got[1].Deactivated) // the new one
		is.True(got[1].ID > b.ID)    // ids never reused
		missing := &store.RealmEmoji{ID: 99999}
		err = st.Update(ctx, func(tx store.Tx) error { return tx.UpdateRealmEmoji(ctx, missing) })
		is.True(errors.Is(err, store.ErrNotFound)) // unknown emoji
	}},
}
