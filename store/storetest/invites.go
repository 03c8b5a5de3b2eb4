package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var inviteTests = []test{
	{"CreateReadUpdate", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		one := &store.Invite{RealmID: w.realm, Key: "key1", Email: "New@x.test", InviterID: w.alice, InviteAs: store.RoleMember,
			StreamIDs: []store.StreamID{w.general.ID, w.secret.ID}, NotifyReferrer: true, CreatedAt: epoch,
			ExpiresAt: epoch.Add(24 * time.Hour)}
		multi := &store.Invite{RealmID: w.realm, Key: "key2", MultiUse: true, InviterID: w.bob, InviteAs: store.RoleGuest,
			IncludeRealmDefaultStreams: true, CreatedAt: epoch.Add(time.Hour)}
		theirs := &store.Invite{ID: 50, RealmID: w.other, Key: "key3", Email: "new@x.test", InviterID: w.zed, InviteAs: store.RoleMember, CreatedAt: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, inv := range []*store.Invite{one, multi, theirs} {
				is.NoErr(tx.CreateInvite(ctx, inv)) // invitation created
			}
		})
		is.True(one.ID != 0 && multi.ID > one.ID) // zero ids filled in, ascending
		is.Equal(theirs.ID, store.InviteID(50))   // an explicit id is kept
		ctx := context.Background()
		for _, dup := range []*store.Invite{
			{RealmID: w.realm, Key: "key1", CreatedAt: epoch},          // a key in use
			{ID: one.ID, RealmID: w.realm, Key: "x", CreatedAt: epoch}, // an id in use
		} {
			err := st.Update(ctx, func(tx store.Tx) error { return tx.CreateInvite(ctx, dup) })
			is.True(errors.Is(err, store.ErrConflict)) // duplicate refused
		}
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateInvite(ctx, &store.Invite{RealmID: 999, Key: "k9", CreatedAt: epoch})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown realm
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Invite(ctx, one.ID)
			is.NoErr(err)        // found by id
			is.Equal(*got, *one) // every field round-trips
			got, err = tx.InviteByKey(ctx, "key2")
			is.NoErr(err)          // found by key
			is.Equal(*got, *multi) // a multi-use link round-trips (no channels, never expires)
			_, err = tx.Invite(ctx, 999)
			is.True(errors.Is(err, store.ErrNotFound)) // unknown id
			_, err = tx.InviteByKey(ctx, "nope")
			is.True(errors.Is(err, store.ErrNotFound)) // unknown key
			all, err := tx.Invites(ctx, store.InviteFilter{RealmID: w.realm})
			is.NoErr(err)
			is.Equal(inviteIDs(all), []store.InviteID{one.ID, multi.ID}) // the realm's only, by id
			mine, err := tx.Invites(ctx, store.InviteFilter{RealmID: w.realm, InviterID: w.bob})
			is.NoErr(err)
			is.Equal(inviteIDs(mine), []store.InviteID{multi.ID}) // by inviter
			byEmail, err := tx.Invites(ctx, store.InviteFilter{RealmID: w.realm, Email: "NEW@X.TEST"})
			is.NoErr(err)
			is.Equal(inviteIDs(byEmail), []store.InviteID{one.ID}) // by address, case-insensitively
			recent, err := tx.Invites(ctx, store.InviteFilter{RealmID: w.realm, CreatedSince: epoch.Add(30 * time.Minute)})
			is.NoErr(err)
			is.Equal(inviteIDs(recent), []store.InviteID{multi.ID}) // created since
			limited, err := tx.Invites(ctx, store.InviteFilter{RealmID: w.realm, Limit: 1})
			is.NoErr(err)
			is.Equal(inviteIDs(limited), []store.InviteID{one.ID}) // limited
		})
		one.Status, one.UsedByID, one.Key = store.InviteUsed, w.carol, "key1b"
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.UpdateInvite(ctx, one)) // invitation updated, key too
		})
		err = st.Update(ctx, func(tx store.Tx) error {
			c := *multi
			c.Key = "key1b"
			return tx.UpdateInvite(ctx, &c)
		})
		is.True(errors.Is(err, store.ErrConflict)) // another invitation's key
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.UpdateInvite(ctx, &store.Invite{ID: 999, Key: "q", CreatedAt: epoch})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown invitation
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.InviteByKey(ctx, "key1b")
			is.NoErr(err)
			is.Equal(*got, *one) // the update stuck
			_, err = tx.InviteByKey(ctx, "key1")
			is.True(errors.Is(err, store.ErrNotFound)) // the old key is gone
			used := store.InviteUsed
			done, err := tx.Invites(ctx, store.InviteFilter{RealmID: w.realm, Status: &used})
			is.NoErr(err)
			is.Equal(inviteIDs(done), []store.InviteID{one.ID}) // by status
		})
	}},
	{"UpdateBotService", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		s := &store.BotService{BotID: w.bot, Name: "svc", BaseURL: "https://a.test/", Token: "t1", Interface: "generic"}
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.CreateBotService(ctx, s)) })
		s.BaseURL, s.Interface = "https://b.test/hook", "slack"
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.UpdateBotService(ctx, s)) }) // service updated
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.BotServices(ctx, w.bot)
			is.NoErr(err)
			is.Equal(got, []store.BotService{*s}) // the new URL and interface
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error { return tx.UpdateBotService(ctx, &store.BotService{ID: 999, BotID: w.bot}) })
		is.True(errors.Is(err, store.ErrNotFound)) // unknown service
	}},
}

func inviteIDs(invs []store.Invite) []store.InviteID {
	ids := []store.InviteID{}
	for _, inv := range invs {
		ids = append(ids, inv.ID)
	}
	return ids
}
