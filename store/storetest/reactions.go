package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// reactions reads the reactions of message id.
func reactions(tb testing.TB, st store.Store, id store.MessageID) []store.Reaction {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var out []store.Reaction
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		m, err := tx.Message(ctx, id)
		is.NoErr(err) // message read
		out = m.Reactions
	})
	return out
}

var reactionTests = []test{
	{"AddRemove", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ids := send(t, st, channelMessage(w.general, w.alice, "t"), channelMessage(w.general, w.alice, "t"))
		smile := store.Reaction{UserID: w.bob, EmojiName: "smile", EmojiCode: "1f642", ReactionType: "unicode_emoji"}
		zulip := store.Reaction{UserID: w.bob, EmojiName: "zulip", EmojiCode: "zulip", ReactionType: "zulip_extra_emoji"}
		carol := store.Reaction{UserID: w.carol, EmojiName: "smile", EmojiCode: "1f642", ReactionType: "unicode_emoji"}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.AddReaction(ctx, ids[0], smile)) // first reaction
			is.NoErr(tx.AddReaction(ctx, ids[0], zulip)) // same user, another emoji
			is.NoErr(tx.AddReaction(ctx, ids[0], carol)) // another user, same emoji
		})
		is.Equal(reactions(t, st, ids[0]), []store.Reaction{smile, zulip, carol}) // in the order added
		is.Equal(len(reactions(t, st, ids[1])), 0)                                // the other message has none

		ctx := context.Background()
		renamed := smile
		renamed.EmojiName = "slight_smile"
		err := st.Update(ctx, func(tx store.Tx) error { return tx.AddReaction(ctx, ids[0], renamed) })
		is.True(errors.Is(err, store.ErrConflict)) // same user, type and code, whatever the name
		otherType := smile
		otherType.ReactionType = "realm_emoji"
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.AddReaction(ctx, ids[0], otherType)) // the type is part of the key
		})
		err = st.Update(ctx, func(tx store.Tx) error { return tx.AddReaction(ctx, 999999, smile) })
		is.True(errors.Is(err, store.ErrNotFound)) // unknown message

		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.RemoveReaction(ctx, ids[0], w.bob, "unicode_emoji", "1f642")) // removed
		})
		is.Equal(reactions(t, st, ids[0]), []store.Reaction{zulip, carol, otherType}) // the others stay, in order
		for _, c := range []struct {
			id        store.MessageID
			user      store.UserID
			typ, code string
		}{
			{ids[0], w.bob, "unicode_emoji", "1f642"},   // already removed
			{ids[0], w.alice, "unicode_emoji", "1f642"}, // not alice's
			{ids[0], w.bob, "unicode_emoji", "zulip"},   // wrong type
			{ids[1], w.carol, "unicode_emoji", "1f642"}, // other message
			{999999, w.bob, "zulip_extra_emoji", "zulip"},
		} {
			err := st.Update(ctx, func(tx store.Tx) error { return tx.RemoveReaction(ctx, c.id, c.user, c.typ, c.code) })
			is.True(errors.Is(err, store.ErrNotFound)) // nothing to remove
		}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.AddReaction(ctx, ids[0], smile)) // added again: goes last
		})
		is.Equal(reactions(t, st, ids[0]), []store.Reaction{zulip, carol, otherType, smile})
		deleteBatch(t, st, store.MessageFilter{RealmID: w.realm}, 10)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.True(errors.Is(tx.AddReaction(ctx, ids[0], smile), store.ErrNotFound)) // deleted message
		})
	}},
	{"RolledBack", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		id := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		ctx := context.Background()
		boom := errors.New("boom")
		err := st.Update(ctx, func(tx store.Tx) error {
			is.NoErr(tx.AddReaction(ctx, id, store.Reaction{UserID: w.bob, EmojiName: "a", EmojiCode: "1f600", ReactionType: "unicode_emoji"}))
			return boom
		})
		is.True(errors.Is(err, boom))
		is.Equal(len(reactions(t, st, id)), 0) // nothing kept
	}},
}

// presences reads the rows matching q.
func presences(tb testing.TB, st store.Store, q store.PresenceQuery) []store.Presence {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var out []store.Presence
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		var err error
		out, err = tx.Presences(ctx, q)
		is.NoErr(err) // presences read
	})
	return out
}

func presenceUsers(ps []store.Presence) []store.UserID {
	out := []store.UserID{}
	for _, p := range ps {
		out = append(out, p.UserID)
	}
	return out
}

var presenceTests = []test{
	{"PutAndQuery", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		t0 := epoch
		rows := []store.Presence{
			{UserID: w.carol, LastActive: t0, LastConnected: t0},
			{UserID: w.alice, LastConnected: t0.Add(time.Minute)}, // never active
		}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutPresences(ctx, w.realm, rows)) // inserted
			is.NoErr(tx.PutPresences(ctx, w.realm, nil))  // nothing to write
		})
		is.Equal(rows[0].LastUpdateID, int64(1)) // numbers from the realm's sequence, in order
		is.Equal(rows[1].LastUpdateID, int64(2))
		got := presences(t, st, store.PresenceQuery{RealmID: w.realm})
		is.Equal(got, []store.Presence{ // ordered by user id, every field stored
			{UserID: w.alice, RealmID: w.realm, LastConnected: t0.Add(time.Minute), LastUpdateID: 2},
			{UserID: w.carol, RealmID: w.realm, LastActive: t0, LastConnected: t0, LastUpdateID: 1},
		})
		is.Equal(presenceUsers(presences(t, st, store.PresenceQuery{RealmID: w.realm, AfterUpdateID: 1})), []store.UserID{w.alice})
		is.Equal(presenceUsers(presences(t, st, store.PresenceQuery{RealmID: w.realm, AfterUpdateID: 2})), []store.UserID{})
		is.Equal(presenceUsers(presences(t, st, store.PresenceQuery{RealmID: w.realm, ConnectedSince: t0.Add(time.Second)})), []store.UserID{w.alice})
		is.Equal(presenceUsers(presences(t, st, store.PresenceQuery{RealmID: w.other})), []store.UserID{}) // other realm

		// Another realm has its own sequence.
		zed := []store.Presence{{UserID: w.zed, LastConnected: t0}}
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.PutPresences(ctx, w.other, zed)) })
		is.Equal(zed[0].LastUpdateID, int64(1))

		// A replacement takes the next number and never moves a time back.
		again := []store.Presence{{UserID: w.carol, LastConnected: t0.Add(-time.Hour)}, {UserID: w.alice, LastActive: t0.Add(2 * time.Minute), LastConnected: t0.Add(2 * time.Minute)}}
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.PutPresences(ctx, w.realm, again)) })
		is.Equal([]int64{again[0].LastUpdateID, again[1].LastUpdateID}, []int64{3, 4})
		got = presences(t, st, store.PresenceQuery{RealmID: w.realm, AfterUpdateID: 2})
		is.Equal(got, []store.Presence{
			{UserID: w.alice, RealmID: w.realm, LastActive: t0.Add(2 * time.Minute), LastConnected: t0.Add(2 * time.Minute), LastUpdateID: 4},
			{UserID: w.carol, RealmID: w.realm, LastActive: t0, LastConnected: t0, LastUpdateID: 3}, // stored times kept
		})

		view(t, st, func(ctx context.Context, tx store.Tx) {
			ps, err := tx.UserPresences(ctx, []store.UserID{w.carol, w.bob, w.zed, w.carol})
			is.NoErr(err)
			is.Equal(presenceUsers(ps), []store.UserID{w.carol, w.zed}) // only users with a row, any realm, sorted
			ps, err = tx.UserPresences(ctx, nil)
			is.NoErr(err)
			is.Equal(len(ps), 0)
		})
	}},
	{"OnlyActiveHumans", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutPresences(ctx, w.realm, []store.Presence{
				{UserID: w.alice, LastConnected: epoch}, {UserID: w.bob, LastConnected: epoch}, {UserID: w.bot, LastConnected: epoch},
			}))
			bob, err := tx.User(ctx, w.bob)
			is.NoErr(err)
			bob.IsActive = false
			is.NoErr(tx.UpdateUser(ctx, bob))
		})
		is.Equal(presenceUsers(presences(t, st, store.PresenceQuery{RealmID: w.realm})), []store.UserID{w.alice}) // no bot, no deactivated user
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ps, err := tx.UserPresences(ctx, []store.UserID{w.bob, w.bot})
			is.NoErr(err)
			is.Equal(presenceUsers(ps), []store.UserID{w.bob, w.bot}) // UserPresences does not filter
		})
	}},
	{"UnknownUserRollsBack", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.PutPresences(ctx, w.realm, []store.Presence{{UserID: w.alice, LastConnected: epoch}, {UserID: 999999, LastConnected: epoch}})
		})
		is.True(errors.Is(err, store.ErrNotFound))                                // unknown user
		is.Equal(len(presences(t, st, store.PresenceQuery{RealmID: w.realm})), 0) // nothing kept
		rows := []store.Presence{{UserID: w.alice, LastConnected: epoch}}
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.PutPresences(ctx, w.realm, rows)) })
		is.Equal(rows[0].LastUpdateID, int64(1)) // the failed write took no number
	}},
}
