package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var linkifierTests = []test{
	{"CRUD", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a := &store.Linkifier{ID: 4001, RealmID: w.realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://t/{id}", Order: 2}
		b := &store.Linkifier{RealmID: w.realm, Pattern: "PR(?P<id>[0-9]+)", URLTemplate: "https://p/{id}", Order: 1}
		c := &store.Linkifier{RealmID: w.realm, Pattern: "X(?P<id>[0-9]+)", URLTemplate: "https://x/{id}", Order: 2}
		o := &store.Linkifier{RealmID: w.other, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://o/{id}"}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, l := range []*store.Linkifier{a, b, c, o} {
				is.NoErr(tx.CreateLinkifier(ctx, l)) // linkifier created; the same pattern in another realm is fine
			}
		})
		is.Equal(a.ID, store.LinkifierID(4001)) // explicit id kept
		is.True(b.ID > 4001 && c.ID > b.ID)     // next ids above every id used
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Linkifier(ctx, a.ID)
			is.NoErr(err)      // linkifier found
			is.Equal(*got, *a) // every field round-trips
			ls, err := tx.Linkifiers(ctx, w.realm)
			is.NoErr(err)                               // linkifiers listed
			is.Equal(ls, []store.Linkifier{*b, *a, *c}) // the realm's linkifiers by Order, then id
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			u := *a
			u.Pattern, u.URLTemplate, u.Order = "#(?P<n>[0-9]+)", "https://t/{n}", 0
			is.NoErr(tx.UpdateLinkifier(ctx, &u))   // linkifier updated
			is.NoErr(tx.DeleteLinkifier(ctx, c.ID)) // linkifier deleted
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ls, err := tx.Linkifiers(ctx, w.realm)
			is.NoErr(err)                             // linkifiers listed
			is.Equal(len(ls), 2)                      // one was deleted
			is.Equal(ls[0].ID, a.ID)                  // the updated order applies
			is.Equal(ls[0].Pattern, "#(?P<n>[0-9]+)") // the new pattern is stored
			_, err = tx.Linkifier(ctx, c.ID)
			is.True(errors.Is(err, store.ErrNotFound)) // a deleted linkifier is not found
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error { return tx.DeleteLinkifier(ctx, c.ID) })
		is.True(errors.Is(err, store.ErrNotFound)) // deleting it twice
		err = st.Update(ctx, func(tx store.Tx) error { return tx.UpdateLinkifier(ctx, c) })
		is.True(errors.Is(err, store.ErrNotFound)) // updating a deleted linkifier
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: w.realm, Pattern: "PR(?P<id>[0-9]+)", URLTemplate: "https://q/{id}"})
		})
		is.True(errors.Is(err, store.ErrConflict)) // a pattern already used in the realm
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateLinkifier(ctx, &store.Linkifier{ID: b.ID, RealmID: w.realm, Pattern: "new", URLTemplate: "https://q"})
		})
		is.True(errors.Is(err, store.ErrConflict)) // a duplicate id
		err = st.Update(ctx, func(tx store.Tx) error {
			u := *b
			u.Pattern = "#(?P<n>[0-9]+)"
			return tx.UpdateLinkifier(ctx, &u)
		})
		is.True(errors.Is(err, store.ErrConflict)) // updating onto another linkifier's pattern
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: w.realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://t/{id}"})
		})
		is.NoErr(err) // the pattern freed by the update can be used again
	}},
	{"Version", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ctx := context.Background()
		versions := func(t *testing.T) (mine, other int64) {
			is := is.New(t)
			view(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				mine, err = tx.LinkifiersVersion(ctx, w.realm)
				is.NoErr(err) // version read
				other, err = tx.LinkifiersVersion(ctx, w.other)
				is.NoErr(err) // other realm's version read
			})
			return mine, other
		}
		mine, other := versions(t)
		is.Equal(mine, int64(0))  // no linkifier written yet
		is.Equal(other, int64(0)) // nor in the other realm
		view(t, st, func(ctx context.Context, tx store.Tx) {
			v, err := tx.LinkifiersVersion(ctx, 987654)
			is.NoErr(err)         // an unknown realm is no error
			is.Equal(v, int64(0)) // and has version 0
		})
		l := &store.Linkifier{RealmID: w.realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://t/{id}", Order: 1}
		m := &store.Linkifier{RealmID: w.realm, Pattern: "PR(?P<id>[0-9]+)", URLTemplate: "https://p/{id}", Order: 2}
		for _, step := range []struct {
			name  string
			write func(tx store.Tx) error
		}{
			{"create", func(tx store.Tx) error { return tx.CreateLinkifier(ctx, l) }},
			{"create another", func(tx store.Tx) error { return tx.CreateLinkifier(ctx, m) }},
			{"update", func(tx store.Tx) error {
				u := *l
				u.URLTemplate = "https://u/{id}"
				return tx.UpdateLinkifier(ctx, &u)
			}},
			{"reorder", func(tx store.Tx) error {
				a, b := *l, *m
				a.Order, b.Order = 2, 1
				if err := tx.UpdateLinkifier(ctx, &a); err != nil {
					return err
				}
				return tx.UpdateLinkifier(ctx, &b)
			}},
			{"delete", func(tx store.Tx) error { return tx.DeleteLinkifier(ctx, m.ID) }},
		} {
			t.Run(step.name, func(t *testing.T) {
				is := is.New(t)
				var inTx int64
				is.NoErr(st.Update(ctx, func(tx store.Tx) error {
					if err := step.write(tx); err != nil {
						return err
					}
					var err error
					inTx, err = tx.LinkifiersVersion(ctx, w.realm)
					return err
				})) // the write commits
				now, otherNow := versions(t)
				is.True(now > mine)       // the write raises the version
				is.Equal(inTx, now)       // the writing transaction sees the version it committed
				is.Equal(otherNow, other) // another realm's version is untouched
				mine = now
			})
		}
		errRollback := errors.New("roll back")
		err := st.Update(ctx, func(tx store.Tx) error {
			is.NoErr(tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: w.realm, Pattern: "X(?P<id>[0-9]+)", URLTemplate: "https://x/{id}"})) // created
			v, err := tx.LinkifiersVersion(ctx, w.realm)
			is.NoErr(err)     // version read in the transaction
			is.True(v > mine) // raised inside the transaction
			return errRollback
		})
		is.True(errors.Is(err, errRollback)) // the transaction rolled back
		now, _ := versions(t)
		is.Equal(now, mine) // the rollback restores the version
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: w.other, Pattern: "Y(?P<id>[0-9]+)", URLTemplate: "https://y/{id}"})) // created in the other realm
		})
		now, otherNow := versions(t)
		is.Equal(now, mine)       // a write in another realm leaves this realm's version
		is.True(otherNow > other) // and raises that realm's
	}},
}
