package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// unreadIDs returns the ids UnreadMessages gives, in its order.
func unreadIDs(tb testing.TB, st store.Store, user store.UserID, limit int) []store.MessageID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var ids []store.MessageID
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		ums, err := tx.UnreadMessages(ctx, user, limit)
		is.NoErr(err) // unread messages read
		for _, um := range ums {
			is.True(um.Received && um.Flags&store.FlagRead == 0) // received, unread
			ids = append(ids, um.ID)
		}
	})
	return ids
}

// flagRows returns MessageFlagRows as a map from user to flags.
func flagRows(tb testing.TB, st store.Store, msg store.MessageID) map[store.UserID]store.MessageFlags {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	out := map[store.UserID]store.MessageFlags{}
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		rows, err := tx.MessageFlagRows(ctx, msg)
		is.NoErr(err) // flag rows read
		for i, r := range rows {
			is.Equal(r.MessageID, msg)                     // the message's
			is.True(i == 0 || rows[i-1].UserID < r.UserID) // ordered by user, once each
			out[r.UserID] = r.Flags
		}
	})
	return out
}

var receivedTests = []test{
	{"received messages merge channels, conversations and rows", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		// bob received m2, m3 (general from m1+1) and d; a row for s makes
		// it his too (a historical message), and none is m1's.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{{UserID: w.bob, MessageID: w.s, Flags: store.FlagHistorical}}))
		})
		q := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob}
		is.Equal(query(t, st, q), list(w.m2, w.m3, w.d, w.s)) // oldest first
		q.Newest = true
		is.Equal(query(t, st, q), list(w.s, w.d, w.m3, w.m2)) // newest first
		q.Limit = 2
		is.Equal(query(t, st, q), list(w.s, w.d)) // the two newest
		q.BeforeID = w.d
		is.Equal(query(t, st, q), list(w.m3, w.m2)) // before d
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AfterID: w.m2, Limit: 2}
		is.Equal(query(t, st, q), list(w.m3, w.d)) // after m2
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, Recipients: list(w.general.RecipientID, w.secret.RecipientID)}
		is.Equal(query(t, st, q), list(w.m2, w.m3, w.s)) // those recipients only
		q.TopicKey = ptr(store.TopicKey("x"))
		is.Equal(query(t, st, q), list(w.s))                                                                  // the topic's
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.other, FlagUser: w.bob}), []store.MessageID(nil)) // another realm's
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.carol, Newest: true}
		is.Equal(query(t, st, q), list(w.m3, w.m2, w.m1)) // carol: general from the start
		// Rows for messages bob also receives through his memberships:
		// each message still comes once, and a limit counts messages.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{
				{UserID: w.bob, MessageID: w.m2, Flags: store.FlagRead}, {UserID: w.bob, MessageID: w.m3, Flags: store.FlagRead},
				{UserID: w.bob, MessageID: w.d, Flags: store.FlagRead | store.FlagStarred}}))
		})
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob}
		is.Equal(query(t, st, q), list(w.m2, w.m3, w.d, w.s)) // every message once
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, Newest: true, Limit: 3}
		is.Equal(query(t, st, q), list(w.s, w.d, w.m3)) // the three newest
		q.AllFlags = store.FlagRead
		is.Equal(query(t, st, q), list(w.d, w.m3, w.m2)) // the rows' flags decide
		dm := directRecipient(t, st, w.realm, w.alice, w.bob)
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, Recipients: list(dm)}
		is.Equal(query(t, st, q), list(w.d)) // the conversation's message, once
		q.Recipients = list(dm, w.secret.RecipientID)
		is.Equal(query(t, st, q), list(w.d, w.s)) // and the historical one of a channel he is not in
	}},
	{"flag narrows over received messages", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.UpdateUserMessageFlags(ctx, w.bob, list(w.m2), store.FlagStarred, true)
			is.NoErr(err)
			_, err = tx.UpdateUserMessageFlags(ctx, w.bob, list(w.d), store.FlagRead, true)
			is.NoErr(err)
		})
		starred := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AllFlags: store.FlagStarred}
		is.Equal(query(t, st, starred), list(w.m2)) // is:starred
		mentioned := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AnyFlags: store.MentionFlags}
		is.Equal(query(t, st, mentioned), list(w.m3)) // is:mentioned: @**all** in m3's default flags
		unread := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, NoFlags: store.FlagRead}
		is.Equal(query(t, st, unread), list(w.m2, w.m3)) // is:unread
		read := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AllFlags: store.FlagRead}
		is.Equal(query(t, st, read), list(w.d)) // read
		var flagged []store.MessageID
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			flagged, err = tx.FlaggedMessageIDs(ctx, w.bob, store.FlagStreamWildcardMentioned)
			is.NoErr(err)
		})
		is.Equal(flagged, list(w.m3)) // derived wildcard mention
	}},
	{"flag narrows over default flags beyond mentions", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		// Default flags may hold any bit: a message starred for everyone
		// who received it, one collapsed and wildcard-mentioned.
		starred := channelMessage(w.general, w.alice, "t")
		starred.DefaultFlags = store.FlagStarred
		collapsed := channelMessage(w.general, w.alice, "t")
		collapsed.DefaultFlags = store.FlagCollapsed | store.FlagStreamWildcardMentioned
		ids := send(t, st, starred, collapsed)
		q := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AllFlags: store.FlagStarred}
		is.Equal(query(t, st, q), list(ids[0])) // is:starred: the default star, not m3's mention
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AllFlags: store.FlagCollapsed | store.FlagStreamWildcardMentioned}
		is.Equal(query(t, st, q), list(ids[1])) // both bits by default
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AnyFlags: store.FlagStarred | store.FlagCollapsed, NoFlags: store.FlagRead}
		is.Equal(query(t, st, q), list(ids[0], ids[1])) // either, unread
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AnyFlags: store.FlagRead, NoFlags: store.FlagRead}
		is.Equal(query(t, st, q), []store.MessageID(nil)) // read, yet unread
		q = store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AnyFlags: store.FlagStarred | store.FlagStreamWildcardMentioned}
		is.Equal(query(t, st, q), list(w.m3, ids[0], ids[1])) // a mention bit among them: every default flag
	}},
	{"read marks", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		is.Equal(unreadIDs(t, st, w.bob, 10), list(w.d, w.m3, w.m2)) // everything unread, newest first
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.MarkReadThrough(ctx, w.bob, w.general.RecipientID, w.m2))
			is.NoErr(tx.MarkReadThrough(ctx, w.bob, w.general.RecipientID, w.m1)) // a mark never falls
		})
		um := userMessages(t, st, w.bob, w.m1, w.m2, w.m3)
		is.Equal(um[w.m2].Flags, store.FlagRead)                                                    // covered by the mark
		is.Equal(um[w.m3].Flags, store.FlagStreamWildcardMentioned)                                 // above it: default flags
		is.True(!um[w.m1].Received)                                                                 // before bob's subscription: still not his
		is.Equal(unreadIDs(t, st, w.bob, 10), list(w.d, w.m3))                                      // m2 read
		is.Equal(flagRows(t, st, w.m2), map[store.UserID]store.MessageFlags{w.bob: store.FlagRead}) // his derived read, listed
		is.Equal(len(flagRows(t, st, w.m3)), 0)                                                     // default flags for everyone
		// A row still decides: marked unread below the mark, m2 is unread.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			changed, err := tx.UpdateUserMessageFlags(ctx, w.bob, list(w.m2), store.FlagRead, false)
			is.NoErr(err)
			is.Equal(changed, list(w.m2)) // m2 was read
		})
		is.Equal(unreadIDs(t, st, w.bob, 10), list(w.d, w.m3, w.m2)) // unread again
		// Marking through m3 reads m2's row too, and leaves other flags.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.UpdateUserMessageFlags(ctx, w.bob, list(w.m2), store.FlagStarred, true)
			is.NoErr(err)
			is.NoErr(tx.MarkReadThrough(ctx, w.bob, w.general.RecipientID, w.m3))
		})
		um = userMessages(t, st, w.bob, w.m2, w.m3)
		is.Equal(um[w.m2].Flags, store.FlagRead|store.FlagStarred)                                  // the row read, starred kept
		is.Equal(um[w.m3].Flags, store.FlagRead|store.FlagStreamWildcardMentioned)                  // derived, read
		is.Equal(unreadIDs(t, st, w.bob, 10), list(w.d))                                            // only the DM
		is.Equal(userMessages(t, st, w.carol, w.m3)[w.m3].Flags, store.FlagStreamWildcardMentioned) // carol's own
		later := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		is.Equal(unreadIDs(t, st, w.bob, 10), list(later, w.d)) // a new message is above the mark
	}},
	{"reading in any order keeps every flag", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.general.ID, UserID: w.carol, Active: true}))
		})
		var ids []store.MessageID
		for range 12 {
			ids = append(ids, send(t, st, channelMessage(w.general, w.alice, "t"))[0])
		}
		// Carol reads 9, then 0..4, then 7: what is read is exactly that,
		// whatever the store records to keep it.
		read := map[store.MessageID]bool{}
		for _, batch := range [][]int{{9}, {0, 1, 2, 3, 4}, {7}} {
			var pick []store.MessageID
			for _, i := range batch {
				pick = append(pick, ids[i])
				read[ids[i]] = true
			}
			update(t, st, func(ctx context.Context, tx store.Tx) {
				changed, err := tx.UpdateUserMessageFlags(ctx, w.carol, pick, store.FlagRead, true)
				is.NoErr(err)
				is.Equal(changed, pick) // each became read
			})
			um := userMessages(t, st, w.carol, ids...)
			var unread []store.MessageID
			for i := len(ids) - 1; i >= 0; i-- {
				is.Equal(um[ids[i]].Flags&store.FlagRead != 0, read[ids[i]]) // read exactly when marked
				if !read[ids[i]] {
					unread = append(unread, ids[i])
				}
			}
			is.Equal(unreadIDs(t, st, w.carol, 100), unread) // the others, newest first
			for _, id := range ids {
				f, listed := flagRows(t, st, id)[w.carol]
				if !listed {
					f = 0 // the message's DefaultFlags
				}
				is.Equal(f, um[id].Flags) // MessageFlagRows tells every receiver's flags
			}
		}
		is.Equal(unreadIDs(t, st, w.carol, 2), list(ids[11], ids[10])) // the limit keeps the newest
	}},
	{"message conditions", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.general.ID, UserID: w.bob, Active: true}))
		})
		link := channelMessage(w.general, w.alice, "t")
		link.Has = store.HasLink
		image := channelMessage(w.general, w.bob, "✔ done")
		image.Has = store.HasLink | store.HasImage | store.HasAttachment
		image.Reactions = []store.Reaction{{UserID: w.alice, EmojiName: "smile", EmojiCode: "1f604", ReactionType: store.ReactionUnicodeEmoji}}
		plain := channelMessage(w.general, w.alice, "✔")
		ids := send(t, st, link, image, plain)
		is.Equal(message(t, st, ids[1]).Has, image.Has) // Has stored as given
		for _, flagUser := range []store.UserID{0, w.bob} {
			q := func(f func(*store.MessageQuery)) []store.MessageID {
				mq := store.MessageQuery{RealmID: w.realm, Recipients: list(w.general.RecipientID), FlagUser: flagUser}
				f(&mq)
				return query(t, st, mq)
			}
			is.Equal(q(func(q *store.MessageQuery) { q.SenderID = w.alice }), list(ids[0], ids[2]))              // sender
			is.Equal(q(func(q *store.MessageQuery) { q.Has = store.HasLink }), list(ids[0], ids[1]))             // has:link
			is.Equal(q(func(q *store.MessageQuery) { q.Has = store.HasImage }), list(ids[1]))                    // has:image
			is.Equal(q(func(q *store.MessageQuery) { q.HasReaction = true }), list(ids[1]))                      // has:reaction
			is.Equal(q(func(q *store.MessageQuery) { q.TopicPrefix = "✔ " }), list(ids[1]))                      // resolved
			is.Equal(q(func(q *store.MessageQuery) { q.TopicPrefix = "✔"; q.SenderID = w.alice }), list(ids[2])) // both
			is.Equal(q(func(q *store.MessageQuery) { q.TopicPrefix = "%" }), []store.MessageID(nil))             // a prefix, not a pattern
		}
	}},
	{"read below the mark and own messages above it", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		// In general, from m2 on for bob: m2, m3 (alice), then bob's own o1,
		// alice's a1, bob's o2; bob's mark at m3.
		ids := send(t, st, channelMessage(w.general, w.bob, "t"), channelMessage(w.general, w.alice, "t"),
			channelMessage(w.general, w.bob, "u"))
		o1, a1, o2 := ids[0], ids[1], ids[2]
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.MarkReadThrough(ctx, w.bob, w.general.RecipientID, w.m3))
		})
		read := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, AllFlags: store.FlagRead}
		is.Equal(query(t, st, read), list(w.m2, w.m3, o1, o2)) // below the mark, and his own above it; not alice's a1
		read.Newest, read.Limit = true, 3
		is.Equal(query(t, st, read), list(o2, o1, w.m3)) // merged newest first across the two ranges
		read.Newest, read.Limit, read.Recipients = false, 0, []store.RecipientID{w.general.RecipientID}
		read.AllFlags |= store.FlagStarred
		is.Equal(query(t, st, read), []store.MessageID(nil)) // read and starred: none
		unread := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, NoFlags: store.FlagRead, Recipients: []store.RecipientID{w.general.RecipientID}}
		is.Equal(query(t, st, unread), list(a1)) // the rest
		um := userMessages(t, st, w.bob, o1, a1, o2)
		is.Equal(um[o1].Flags, store.FlagRead) // his own, read without a row
		is.Equal(um[a1].Flags, store.MessageFlags(0))
		is.Equal(um[o2].Flags, store.FlagRead)
	}},
	{"a user in hundreds of channels", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		const n = 450 // more ranges than one statement merges
		var want []store.MessageID
		for i := range n {
			ch := newStream(t, st, w.realm, fmt.Sprintf("c%d", i), false)
			update(t, st, func(ctx context.Context, tx store.Tx) {
				is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: ch.ID, UserID: w.bob, Active: true}))
			})
			want = append(want, send(t, st, channelMessage(ch, w.alice, "t"))[0])
		}
		got := query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.bob})
		is.Equal(got, want) // every channel's message, in id order
		got = query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, Newest: true, Limit: 3})
		is.Equal(got, list(want[n-1], want[n-2], want[n-3])) // the newest three
		is.Equal(len(unreadIDs(t, st, w.bob, 1000)), n)      // all unread
		// Rows in the ranges of every statement: each message still once.
		rows := make([]store.UserMessageFlags, n)
		for i, id := range want {
			rows[i] = store.UserMessageFlags{UserID: w.bob, MessageID: id, Flags: store.FlagStarred}
		}
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.PutUserMessageFlags(ctx, rows)) })
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.bob}), want) // every channel's message, once
		got = query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.bob, Newest: true, Limit: 2})
		is.Equal(got, list(want[n-1], want[n-2])) // the newest two
	}},
}
