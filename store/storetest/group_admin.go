package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var groupAdminTests = []test{
	{"SystemGroupsByRole", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		admin := human(w.realm, "admin@x.test")
		admin.Role = store.RoleAdministrator
		guest := human(w.realm, "guest@x.test")
		guest.Role = store.RoleGuest
		gone := human(w.realm, "gone@x.test")
		gone.Role, gone.IsActive = store.RoleOwner, false
		ids := newUsers(t, st, admin, guest, gone)
		adminID, guestID := ids[0], ids[1]
		admins := &store.Group{RealmID: w.realm, Name: "role:administrators", IsSystemGroup: true,
			SystemRole: store.RoleAdministrator, DateCreated: epoch}
		everyone := &store.Group{RealmID: w.realm, Name: "role:everyone", IsSystemGroup: true, SystemRole: store.RoleGuest}
		nobody := &store.Group{RealmID: w.realm, Name: "role:nobody", IsSystemGroup: true}
		theirs := &store.Group{RealmID: w.other, Name: "role:everyone", IsSystemGroup: true, SystemRole: store.RoleGuest}
		named := &store.Group{RealmID: w.realm, Name: "ops", CreatorID: w.alice, DateCreated: epoch, Members: []store.UserID{w.bob}}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, g := range []*store.Group{admins, everyone, nobody, theirs, named} {
				is.NoErr(tx.CreateGroup(ctx, g)) // group created
			}
			is.NoErr(tx.ChangeSubgroups(ctx, named.ID, []store.GroupID{admins.ID}, nil)) // a system group as subgroup
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Group(ctx, admins.ID)
			is.NoErr(err)
			is.Equal(normGroup(*got), normGroup(*admins)) // system fields round-trip
			got, err = tx.Group(ctx, named.ID)
			is.NoErr(err)
			is.Equal(got.CreatorID, w.alice)      // creator round-trips
			is.True(got.DateCreated.Equal(epoch)) // date round-trips
			is.True(!got.IsSystemGroup)           // a named group is not a system group
			m, err := tx.GroupMembers(ctx, []store.GroupID{admins.ID})
			is.NoErr(err)
			is.Equal(m, []store.UserID{adminID}) // by role: active humans at most administrator
			m, err = tx.GroupMembers(ctx, []store.GroupID{everyone.ID})
			is.NoErr(err)
			is.Equal(m, list(w.alice, w.bob, w.carol, adminID, guestID)) // every active human of the realm, no bots
			m, err = tx.GroupMembers(ctx, []store.GroupID{nobody.ID})
			is.NoErr(err)
			is.Equal(len(m), 0) // nobody
			m, err = tx.GroupMembers(ctx, []store.GroupID{theirs.ID})
			is.NoErr(err)
			is.Equal(m, []store.UserID{w.zed}) // only its own realm's users
			m, err = tx.GroupMembers(ctx, []store.GroupID{named.ID})
			is.NoErr(err)
			is.Equal(m, list(w.bob, adminID)) // direct members and a system subgroup's
		})
		var changed []store.UserID
		update(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			changed, err = tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: w.realm, GroupIDs: []store.GroupID{admins.ID},
				Setting: "color_scheme", Value: 2})
			is.NoErr(err)
		})
		is.Equal(changed, []store.UserID{adminID}) // bulk settings expand a system group by role
	}},
	{"UpdateGroup", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a := &store.Group{RealmID: w.realm, Name: "a", Members: []store.UserID{w.alice}}
		b := &store.Group{RealmID: w.realm, Name: "b"}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateGroup(ctx, a))
			is.NoErr(tx.CreateGroup(ctx, b))
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.UpdateGroup(ctx, &store.Group{ID: a.ID, Name: "renamed", Description: "new", Deactivated: true})) // updated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Group(ctx, a.ID)
			is.NoErr(err)
			is.Equal(got.Name, "renamed")                  // name written
			is.Equal(got.Description, "new")               // description written
			is.True(got.Deactivated)                       // deactivation written
			is.Equal(got.Members, []store.UserID{w.alice}) // members kept
			is.Equal(got.RealmID, w.realm)                 // realm kept
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.UpdateGroup(ctx, &store.Group{ID: b.ID, Name: "renamed"})
		})
		is.True(errors.Is(err, store.ErrConflict)) // a name in use
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.UpdateGroup(ctx, &store.Group{ID: 99999, Name: "x"})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown group
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateGroup(ctx, &store.Group{RealmID: w.realm, Name: "a"})) // the old name is free again
		})
	}},
	{"ChangeEdges", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a := &store.Group{RealmID: w.realm, Name: "a", Members: []store.UserID{w.alice}}
		b := &store.Group{RealmID: w.realm, Name: "b"}
		c := &store.Group{RealmID: w.realm, Name: "c"}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, g := range []*store.Group{a, b, c} {
				is.NoErr(tx.CreateGroup(ctx, g))
			}
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.ChangeGroupMembers(ctx, a.ID, []store.UserID{w.carol, w.bob, w.alice}, nil)) // add, one already there
			is.NoErr(tx.ChangeGroupMembers(ctx, a.ID, nil, []store.UserID{w.alice, w.zed}))          // remove, one not there
			is.NoErr(tx.ChangeSubgroups(ctx, a.ID, []store.GroupID{c.ID, b.ID}, nil))
			is.NoErr(tx.ChangeSubgroups(ctx, a.ID, []store.GroupID{b.ID}, []store.GroupID{c.ID}))
			is.NoErr(tx.ChangeGroupMembers(ctx, b.ID, nil, nil)) // nothing to do
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Group(ctx, a.ID)
			is.NoErr(err)
			is.Equal(list(got.Members...), list(w.bob, w.carol)) // members changed
			is.Equal(list(got.Subgroups...), list(b.ID))         // subgroups changed
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.ChangeGroupMembers(ctx, 99999, []store.UserID{w.alice}, nil)
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown group
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.ChangeSubgroups(ctx, 99999, nil, []store.GroupID{a.ID})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown group
	}},
	{"GroupSettings", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		anon := store.GroupSetting{RealmID: w.realm, Kind: store.SettingOfChannel, ObjectID: int64(w.general.ID),
			Name: "can_send_message_group", Value: store.GroupSettingValue{DirectMembers: []store.UserID{w.alice, w.bob}, DirectSubgroups: []store.GroupID{7}}}
		named := store.GroupSetting{RealmID: w.realm, Kind: store.SettingOfRealm, ObjectID: int64(w.realm),
			Name: "can_create_groups", Value: store.GroupSettingValue{GroupID: 5}}
		theirs := store.GroupSetting{RealmID: w.other, Kind: store.SettingOfRealm, ObjectID: int64(w.other),
			Name: "can_create_groups", Value: store.GroupSettingValue{GroupID: 9}}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, s := range []store.GroupSetting{anon, named, theirs} {
				is.NoErr(tx.PutGroupSetting(ctx, s)) // setting stored
			}
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.GroupSettings(ctx, w.realm)
			is.NoErr(err)
			is.Equal(got, []store.GroupSetting{named, anon}) // the realm's, ordered by kind, round-tripped
		})
		named.Value = store.GroupSettingValue{DirectMembers: []store.UserID{w.carol}}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutGroupSetting(ctx, named)) // replaced
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.GroupSettings(ctx, w.realm)
			is.NoErr(err)
			is.Equal(got, []store.GroupSetting{named, anon}) // the value replaced, not added
			got, err = tx.GroupSettings(ctx, w.other)
			is.NoErr(err)
			is.Equal(got, []store.GroupSetting{theirs}) // other realm apart
			got, err = tx.ChannelGroupSettings(ctx, w.general.ID)
			is.NoErr(err)
			is.Equal(got, []store.GroupSetting{anon}) // the channel's alone
			got, err = tx.ChannelGroupSettings(ctx, w.secret.ID)
			is.NoErr(err)
			is.Equal(len(got), 0) // a channel without stored settings
		})
	}},
	{"DefaultStreams", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.SetDefaultStream(ctx, w.realm, w.secret.ID, true))
			is.NoErr(tx.SetDefaultStream(ctx, w.realm, w.general.ID, true))
			is.NoErr(tx.SetDefaultStream(ctx, w.realm, w.general.ID, true)) // twice is a no-op
			is.NoErr(tx.SetDefaultStream(ctx, w.other, w.elsewhere.ID, true))
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.DefaultStreams(ctx, w.realm)
			is.NoErr(err)
			is.Equal(got, list(w.general.ID, w.secret.ID)) // the realm's, ascending
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.SetDefaultStream(ctx, w.realm, w.secret.ID, false))
			is.NoErr(tx.SetDefaultStream(ctx, w.realm, w.secret.ID, false)) // removing what is not there
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.DefaultStreams(ctx, w.realm)
			is.NoErr(err)
			is.Equal(got, []store.StreamID{w.general.ID}) // removed
			got, err = tx.DefaultStreams(ctx, w.other)
			is.NoErr(err)
			is.Equal(got, []store.StreamID{w.elsewhere.ID}) // the other realm's apart
		})
	}},
}
