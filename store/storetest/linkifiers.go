package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

var linkifierTests = []test{
	{"CRUD", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a := &chatcore.Linkifier{ID: 4001, RealmID: w.realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://t/{id}", Order: 2}
		b := &chatcore.Linkifier{RealmID: w.realm, Pattern: "PR(?P<id>[0-9]+)", URLTemplate: "https://p/{id}", Order: 1}
		c := &chatcore.Linkifier{RealmID: w.realm, Pattern: "X(?P<id>[0-9]+)", URLTemplate: "https://x/{id}", Order: 2}
		o := &chatcore.Linkifier{RealmID: w.other, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://o/{id}"}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, l := range []*chatcore.Linkifier{a, b, c, o} {
				is.NoErr(tx.CreateLinkifier(ctx, l)) // linkifier created; the same pattern in another realm is fine
			}
		})
		is.Equal(a.ID, chatcore.LinkifierID(4001)) // explicit id kept
		is.True(b.ID > 4001 && c.ID > b.ID)        // next ids above every id used
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			got, err := tx.Linkifier(ctx, a.ID)
			is.NoErr(err)      // linkifier found
			is.Equal(*got, *a) // every field round-trips
			ls, err := tx.Linkifiers(ctx, w.realm)
			is.NoErr(err)                                  // linkifiers listed
			is.Equal(ls, []chatcore.Linkifier{*b, *a, *c}) // the realm's linkifiers by Order, then id
		})
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			u := *a
			u.Pattern, u.URLTemplate, u.Order = "#(?P<n>[0-9]+)", "https://t/{n}", 0
			is.NoErr(tx.UpdateLinkifier(ctx, &u))   // linkifier updated
			is.NoErr(tx.DeleteLinkifier(ctx, c.ID)) // linkifier deleted
		})
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			ls, err := tx.Linkifiers(ctx, w.realm)
			is.NoErr(err)                             // linkifiers listed
			is.Equal(len(ls), 2)                      // one was deleted
			is.Equal(ls[0].ID, a.ID)                  // the updated order applies
			is.Equal(ls[0].Pattern, "#(?P<n>[0-9]+)") // the new pattern is stored
			_, err = tx.Linkifier(ctx, c.ID)
			is.True(errors.Is(err, chatcore.ErrNotFound)) // a deleted linkifier is not found
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx chatcore.Tx) error { return tx.DeleteLinkifier(ctx, c.ID) })
		is.True(errors.Is(err, chatcore.ErrNotFound)) // deleting it twice
		err = st.Update(ctx, func(tx chatcore.Tx) error { return tx.UpdateLinkifier(ctx, c) })
		is.True(errors.Is(err, chatcore.ErrNotFound)) // updating a deleted linkifier
		err = st.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateLinkifier(ctx, &chatcore.Linkifier{RealmID: w.realm, Pattern: "PR(?P<id>[0-9]+)", URLTemplate: "https://q/{id}"})
		})
		is.True(errors.Is(err, chatcore.ErrConflict)) // a pattern already used in the realm
		err = st.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateLinkifier(ctx, &chatcore.Linkifier{ID: b.ID, RealmID: w.realm, Pattern: "new", URLTemplate: "https://q"})
		})
		is.True(errors.Is(err, chatcore.ErrConflict)) // a duplicate id
		err = st.Update(ctx, func(tx chatcore.Tx) error {
			u := *b
			u.Pattern = "#(?P<n>[0-9]+)"
			return tx.UpdateLinkifier(ctx, &u)
		})
		is.True(errors.Is(err, chatcore.ErrConflict)) // updating onto another linkifier's pattern
		err = st.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateLinkifier(ctx, &chatcore.Linkifier{RealmID: w.realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://t/{id}"})
		})
		is.NoErr(err) // the pattern freed by the update can be used again
	}},
}
