package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var draftEditTests = []test{
	{"GetUpdateDelete", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		d := &store.Draft{UserID: w.alice, Type: store.MessageTypeStream, StreamID: w.general.ID, Topic: "t", Content: "one", LastEdit: epoch}
		other := &store.Draft{UserID: w.bob, Content: "bob's", LastEdit: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateDraft(ctx, d))     // draft created
			is.NoErr(tx.CreateDraft(ctx, other)) // draft created
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Draft(ctx, d.ID)
			is.NoErr(err)                              // draft read
			is.Equal(normDraft(*got), normDraft(*d))   // every field stored
			_, err = tx.Draft(ctx, other.ID+1000)      //
			is.True(errors.Is(err, store.ErrNotFound)) // unknown id
		})
		changed := store.Draft{ID: d.ID, UserID: w.bob, Type: store.MessageTypePrivate, To: []store.UserID{w.bob, w.carol},
			Content: "two", LastEdit: epoch.Add(time.Hour)}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.UpdateDraft(ctx, &changed)) // draft updated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Draft(ctx, d.ID)
			is.NoErr(err) // draft read
			want := changed
			want.UserID = w.alice                        // the owner never changes
			is.Equal(normDraft(*got), normDraft(want))   // every other field overwritten, the stream cleared
			got, err = tx.Draft(ctx, other.ID)           //
			is.NoErr(err)                                // other draft read
			is.Equal(normDraft(*got), normDraft(*other)) // other draft untouched
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.UpdateDraft(ctx, &store.Draft{ID: other.ID + 1000, UserID: w.alice})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // updating an unknown draft
		err = st.Update(ctx, func(tx store.Tx) error {
			if err := tx.DeleteDraft(ctx, d.ID); err != nil {
				return err
			}
			return errAbort
		})
		is.True(errors.Is(err, errAbort)) // rolled back
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.Draft(ctx, d.ID)
			is.NoErr(err) // a rolled-back delete deletes nothing
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.DeleteDraft(ctx, d.ID)) // draft deleted
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.Draft(ctx, d.ID)
			is.True(errors.Is(err, store.ErrNotFound)) // gone
			ds, err := tx.Drafts(ctx, w.alice)
			is.NoErr(err)        // drafts listed
			is.Equal(len(ds), 0) // gone from the user's list too
			ds, err = tx.Drafts(ctx, w.bob)
			is.NoErr(err)        // drafts listed
			is.Equal(len(ds), 1) // bob keeps his
		})
		err = st.Update(ctx, func(tx store.Tx) error { return tx.DeleteDraft(ctx, d.ID) })
		is.True(errors.Is(err, store.ErrNotFound)) // deleting twice
	}},
	{"RecentDrafts", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		edits := []time.Duration{3, 1, 3, 2} // hours after epoch
		ids := make([]store.DraftID, len(edits))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for i, h := range edits {
				d := &store.Draft{UserID: w.alice, Content: "c", LastEdit: epoch.Add(h * time.Hour)}
				is.NoErr(tx.CreateDraft(ctx, d)) // draft created
				ids[i] = d.ID
			}
			is.NoErr(tx.CreateDraft(ctx, &store.Draft{UserID: w.bob, Content: "c", LastEdit: epoch.Add(9 * time.Hour)})) // another user's
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ds, err := tx.RecentDrafts(ctx, w.alice, 10)
			is.NoErr(err) // drafts listed
			var got []store.DraftID
			for _, d := range ds {
				got = append(got, d.ID)
			}
			is.Equal(got, []store.DraftID{ids[2], ids[0], ids[3], ids[1]}) // newest edit first, ties by id descending, only alice's
			ds, err = tx.RecentDrafts(ctx, w.alice, 2)
			is.NoErr(err)              // drafts listed
			is.Equal(len(ds), 2)       // at most limit
			is.Equal(ds[1].ID, ids[0]) // the first two of the order
			ds, err = tx.RecentDrafts(ctx, w.carol, 5)
			is.NoErr(err)        // no drafts is fine
			is.Equal(len(ds), 0) // carol has none
		})
	}},
}
