package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var groupTests = []test{
	{"CreateAndRead", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		b := &store.Group{ID: 70, RealmID: w.realm, Name: "b", Description: "second", Members: []store.UserID{w.bob}}
		a := &store.Group{RealmID: w.realm, Name: "a", Description: "first", Members: []store.UserID{w.alice, w.carol}, Subgroups: []store.GroupID{70}}
		f := &store.Group{RealmID: w.other, Name: "a", Members: []store.UserID{w.zed}}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateGroup(ctx, b)) // group with explicit id created
			is.NoErr(tx.CreateGroup(ctx, a)) // group with zero id created
			is.NoErr(tx.CreateGroup(ctx, f)) // the same name in another realm is fine
		})
		is.Equal(b.ID, store.GroupID(70)) // explicit id kept
		is.True(a.ID > 70)                // next id above every id used
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Group(ctx, a.ID)
			is.NoErr(err)                            // group found
			is.Equal(normGroup(*got), normGroup(*a)) // every field round-trips
			gs, err := tx.Groups(ctx, w.realm)
			is.NoErr(err)                                                              // groups listed
			is.Equal(len(gs), 2)                                                       // only the realm's groups
			is.Equal([]store.GroupID{gs[0].ID, gs[1].ID}, []store.GroupID{b.ID, a.ID}) // ordered by id
			_, err = tx.Group(ctx, 99999)
			is.True(errors.Is(err, store.ErrNotFound)) // unknown group
		})
	}},
	{"Conflicts", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		g := &store.Group{RealmID: w.realm, Name: "support"}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateGroup(ctx, g)) // group created
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateGroup(ctx, &store.Group{ID: g.ID, RealmID: w.realm, Name: "other"})
		})
		is.True(errors.Is(err, store.ErrConflict)) // duplicate id
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateGroup(ctx, &store.Group{RealmID: w.realm, Name: "support"})
		})
		is.True(errors.Is(err, store.ErrConflict)) // duplicate name in the realm
	}},
	{"MembersRecursive", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		inactive := human(w.realm, "gone@x.test")
		inactive.IsActive = false
		ids := newUsers(t, st, inactive, human(w.realm, "dave@x.test"))
		gone, dave := ids[0], ids[1]
		const a, b, c, d = 801, 802, 803, 804
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, g := range []*store.Group{
				{ID: a, RealmID: w.realm, Name: "a", Members: []store.UserID{w.carol}, Subgroups: []store.GroupID{b}},
				{ID: b, RealmID: w.realm, Name: "b", Members: []store.UserID{w.alice, w.carol, w.bot}, Subgroups: []store.GroupID{c}},
				{ID: c, RealmID: w.realm, Name: "c", Members: []store.UserID{gone, w.bob}, Subgroups: []store.GroupID{a, b}},
				{ID: d, RealmID: w.realm, Name: "d", Members: []store.UserID{dave}},
			} {
				is.NoErr(tx.CreateGroup(ctx, g)) // group created; subgroups may name later groups
			}
		})
		members := func(groups ...store.GroupID) []store.UserID {
			var got []store.UserID
			view(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				got, err = tx.GroupMembers(ctx, groups)
				is.NoErr(err) // members read
			})
			return list(got...)
		}
		is.Equal(members(a), []store.UserID{w.alice, w.bob, w.carol})          // recursive, cycle-safe, sorted, no bots, no deactivated users
		is.Equal(members(c), []store.UserID{w.alice, w.bob, w.carol})          // the cycle reaches every group from any of them
		is.Equal(members(d, a), []store.UserID{w.alice, w.bob, w.carol, dave}) // several groups, merged and sorted
		is.Equal(members(99999), nil)                                          // an unknown group has no members
		is.Equal(members(), nil)                                               // no groups, no members
	}},
}
