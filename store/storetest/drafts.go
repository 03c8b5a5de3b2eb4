package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var draftTests = []test{
	{"CreateListDelete", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		d1 := &store.Draft{ID: 5001, UserID: w.alice, Type: store.MessageTypeStream, StreamID: w.general.ID, Topic: "x", Content: "one", LastEdit: epoch}
		d2 := &store.Draft{UserID: w.alice, Type: store.MessageTypePrivate, To: []store.UserID{w.bob}, Content: "two", LastEdit: epoch.Add(time.Second)}
		d3 := &store.Draft{UserID: w.bob, Content: "three", LastEdit: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, d := range []*store.Draft{d1, d2, d3} {
				is.NoErr(tx.CreateDraft(ctx, d)) // draft created
			}
		})
		is.Equal(d1.ID, store.DraftID(5001)) // explicit id kept
		is.True(d2.ID > 5001)                // next id above every id used
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ds, err := tx.Drafts(ctx, w.alice)
			is.NoErr(err)                                                                                              // drafts listed
			is.Equal(len(ds), 2)                                                                                       // only alice's drafts
			is.Equal([]store.Draft{normDraft(ds[0]), normDraft(ds[1])}, []store.Draft{normDraft(*d1), normDraft(*d2)}) // ordered by id, every field stored
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error { return tx.CreateDraft(ctx, &store.Draft{ID: d1.ID, UserID: w.bob}) })
		is.True(errors.Is(err, store.ErrConflict)) // duplicate id
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.DeleteDrafts(ctx, w.alice)
			is.NoErr(err)  // drafts deleted
			is.Equal(n, 2) // both of alice's
			n, err = tx.DeleteDrafts(ctx, w.carol)
			is.NoErr(err)  // deleting no drafts is fine
			is.Equal(n, 0) // carol had none
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ds, err := tx.Drafts(ctx, w.alice)
			is.NoErr(err)        // drafts listed
			is.Equal(len(ds), 0) // alice has none left
			ds, err = tx.Drafts(ctx, w.bob)
			is.NoErr(err)        // drafts listed
			is.Equal(len(ds), 1) // bob's draft is untouched
		})
	}},
	{"DeleteDraftsOf", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, u := range []store.UserID{w.alice, w.alice, w.bob, w.carol, w.zed} {
				is.NoErr(tx.CreateDraft(ctx, &store.Draft{UserID: u, Content: "c", LastEdit: epoch})) // draft created
			}
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.DeleteDraftsOf(ctx, nil)
			is.NoErr(err)  // an empty list is fine
			is.Equal(n, 0) // and deletes nothing
			n, err = tx.DeleteDraftsOf(ctx, []store.UserID{w.alice, w.carol, w.alice, 999999})
			is.NoErr(err)  // duplicates and unknown ids are fine
			is.Equal(n, 3) // alice's two drafts and carol's one
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			for _, c := range []struct {
				user store.UserID
				want int
			}{{w.alice, 0}, {w.carol, 0}, {w.bob, 1}, {w.zed, 1}} {
				ds, err := tx.Drafts(ctx, c.user)
				is.NoErr(err)             // drafts listed
				is.Equal(len(ds), c.want) // only the listed users lost their drafts
			}
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			if _, err := tx.DeleteDraftsOf(ctx, []store.UserID{w.bob, w.zed}); err != nil {
				return err
			}
			return errAbort
		})
		is.True(errors.Is(err, errAbort)) // the transaction failed
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ds, err := tx.Drafts(ctx, w.bob)
			is.NoErr(err)        // drafts listed
			is.Equal(len(ds), 1) // a rolled-back DeleteDraftsOf deletes nothing
		})
	}},
}
