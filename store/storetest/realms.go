package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var realmTests = []test{
	{"UserDefaults", func(t *testing.T, st store.Store) {
		is := is.New(t)
		a, b := newRealm(t, st, "acme"), newRealm(t, st, "beta")
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.RealmUserDefaults(ctx, a)
			is.NoErr(err)                              // defaults read before any were stored
			is.Equal(got, store.DefaultSettings())     // Zulip's defaults until stored
			_, err = tx.RealmUserDefaults(ctx, 999999) // a realm without a row
			is.NoErr(err)                              // no row is no error
		})
		s := store.DefaultSettings()
		s.ColorScheme, s.Emojiset, s.EnterSends = 3, "text", true
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutRealmUserDefaults(ctx, a, &s)) // stored
		})
		s.EnterSends = false // the store kept its own copy
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.RealmUserDefaults(ctx, a)
			is.NoErr(err)
			is.Equal(got.ColorScheme, 3)   // int round-trips
			is.Equal(got.Emojiset, "text") // string round-trips
			is.True(got.EnterSends)        // bool round-trips, unaliased
			other, err := tx.RealmUserDefaults(ctx, b)
			is.NoErr(err)
			is.Equal(other, store.DefaultSettings()) // another realm keeps Zulip's defaults
		})
		s.EnterSends, s.ColorScheme = true, 2
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutRealmUserDefaults(ctx, a, &s)) // replaced
		})
		ctx := context.Background()
		errRollback := errors.New("roll back")
		err := st.Update(ctx, func(tx store.Tx) error {
			c := s
			c.ColorScheme = 1
			if err := tx.PutRealmUserDefaults(ctx, a, &c); err != nil {
				return err
			}
			return errRollback
		})
		is.True(errors.Is(err, errRollback)) // the transaction failed
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.RealmUserDefaults(ctx, a)
			is.NoErr(err)
			is.Equal(got, s) // the second put replaced the first; the rolled-back one left nothing
		})
	}},
	{"CreateAndRead", func(t *testing.T, st store.Store) {
		is := is.New(t)
		want := store.Realm{
			StringID: "acme", Name: "Acme", NameChangesDisabled: true, EmailChangesDisabled: true,
			RequireUniqueNames: true, EmptyTopicDisplayName: "misc", DateCreated: epoch,
			Description: "We **build**.", DefaultLanguage: "de", Deactivated: true, IconSource: "U", IconVersion: 3,
			Messages: store.MessagePolicy{
				ContentEditingDisabled: true, EditHistoryDisabled: true, ContentEditLimit: 30,
				MoveWithinChannelLimit: store.Unlimited, MoveBetweenChannelsLimit: 40, DeleteOwnLimit: 50,
				MoveBetweenTopics: store.GroupModerators, MoveBetweenChannels: store.GroupNobody,
				ResolveTopics: store.GroupMembers, DeleteAny: store.GroupOwners, DeleteOwn: store.GroupFullMembers,
			},
		}
		r := want
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateRealm(ctx, &r)) // realm created
		})
		is.True(r.ID > 0) // a zero id is replaced by a positive one
		want.ID = r.ID
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Realm(ctx, r.ID)
			is.NoErr(err)                   // realm found by id
			is.Equal(normRealm(*got), want) // every field round-trips
			got, err = tx.RealmByStringID(ctx, "acme")
			is.NoErr(err)                   // realm found by string id
			is.Equal(normRealm(*got), want) // same realm by string id
		})
	}},
	{"ListOrderedByID", func(t *testing.T, st store.Store) {
		is := is.New(t)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, r := range []store.Realm{{ID: 30, StringID: "c"}, {ID: 10, StringID: "a"}, {ID: 20, StringID: "b"}} {
				is.NoErr(tx.CreateRealm(ctx, &r)) // realm with explicit id created
			}
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			rs, err := tx.Realms(ctx)
			is.NoErr(err) // realms listed
			var got []store.RealmID
			for _, r := range rs {
				got = append(got, r.ID)
			}
			is.Equal(got, []store.RealmID{10, 20, 30}) // ordered by id
		})
	}},
	{"ExplicitIDsAndNextID", func(t *testing.T, st store.Store) {
		is := is.New(t)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			r := &store.Realm{ID: 7, StringID: "seven"}
			is.NoErr(tx.CreateRealm(ctx, r)) // explicit id accepted
			is.Equal(r.ID, store.RealmID(7)) // explicit id kept
			r = &store.Realm{StringID: "next"}
			is.NoErr(tx.CreateRealm(ctx, r)) // zero id accepted
			is.True(r.ID > 7)                // next id is above every id used
			r2 := &store.Realm{ID: 3, StringID: "three"}
			is.NoErr(tx.CreateRealm(ctx, r2)) // explicit id below the maximum accepted
			r3 := &store.Realm{StringID: "after"}
			is.NoErr(tx.CreateRealm(ctx, r3)) // zero id accepted
			is.True(r3.ID > r.ID)             // next id is still above every id used
		})
	}},
	{"Conflicts", func(t *testing.T, st store.Store) {
		is := is.New(t)
		id := newRealm(t, st, "acme")
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateRealm(ctx, &store.Realm{ID: id, StringID: "other"})
		})
		is.True(errors.Is(err, store.ErrConflict)) // duplicate id conflicts
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateRealm(ctx, &store.Realm{StringID: "acme"})
		})
		is.True(errors.Is(err, store.ErrConflict)) // duplicate string id conflicts
	}},
	{"NotFound", func(t *testing.T, st store.Store) {
		is := is.New(t)
		newRealm(t, st, "acme")
		ctx := context.Background()
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.Realm(ctx, 999)
			is.True(errors.Is(err, store.ErrNotFound)) // unknown id
			_, err = tx.RealmByStringID(ctx, "nope")
			is.True(errors.Is(err, store.ErrNotFound)) // unknown string id
			_, err = tx.RealmByStringID(ctx, "ACME")
			is.True(errors.Is(err, store.ErrNotFound)) // string ids compare exactly
		})
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.UpdateRealm(ctx, &store.Realm{ID: 999, StringID: "x"})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // updating an unknown realm
	}},
	{"Update", func(t *testing.T, st store.Store) {
		is := is.New(t)
		id := newRealm(t, st, "acme")
		update(t, st, func(ctx context.Context, tx store.Tx) {
			r, err := tx.Realm(ctx, id)
			is.NoErr(err) // realm found
			r.Name, r.RequireUniqueNames = "Renamed", true
			is.NoErr(tx.UpdateRealm(ctx, r)) // realm updated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			r, err := tx.Realm(ctx, id)
			is.NoErr(err)                        // realm found
			is.Equal(r.Name, "Renamed")          // new name stored
			is.Equal(r.RequireUniqueNames, true) // new flag stored
		})
	}},
}
