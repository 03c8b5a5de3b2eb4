package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// flagWorld is a world with bob subscribed to general from message since on,
// carol subscribed from the start, and messages: m1 (general, before bob's
// subscription), m2 and m3 (general), d (a DM alice→bob), s (secret, nobody
// subscribed but alice).
type flagWorld struct {
	*world
	m1, m2, m3, d, s store.MessageID
}

func newFlagWorld(tb testing.TB, st store.Store) *flagWorld {
	tb.Helper()
	is := is.New(tb)
	w := &flagWorld{world: newWorld(tb, st)}
	w.m1 = send(tb, st, channelMessage(w.general, w.alice, "t"))[0]
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.general.ID, UserID: w.bob, Active: true, SinceMessageID: w.m1 + 1})) // bob joins after m1
		is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.general.ID, UserID: w.carol, Active: true}))                         // carol from the start
		is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.secret.ID, UserID: w.alice, Active: true}))                          // alice in secret
	})
	m3 := channelMessage(w.general, w.alice, "t")
	m3.DefaultFlags = store.FlagStreamWildcardMentioned
	ids := send(tb, st, channelMessage(w.general, w.alice, "t"), m3)
	w.m2, w.m3 = ids[0], ids[1]
	rcpt := directRecipient(tb, st, w.realm, w.alice, w.bob)
	w.d = send(tb, st, directMessage(w.realm, rcpt, w.alice, w.alice, w.bob))[0]
	w.s = send(tb, st, channelMessage(w.secret, w.alice, "x"))[0]
	return w
}

func userMessages(tb testing.TB, st store.Store, user store.UserID, ids ...store.MessageID) map[store.MessageID]store.UserMessage {
	tb.Helper()
	out := map[store.MessageID]store.UserMessage{}
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		ums, err := tx.UserMessages(ctx, user, ids)
		is.New(tb).NoErr(err) // user messages read
		for _, um := range ums {
			out[um.ID] = um
		}
	})
	return out
}

var flagTests = []test{
	{"active subscriber ids ascending", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.general.ID, UserID: w.alice, Active: false})) // inactive
		})
		var got, none []store.UserID
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			got, err = tx.ActiveSubscriberIDs(ctx, w.general.ID)
			is.NoErr(err) // subscribers read
			none, err = tx.ActiveSubscriberIDs(ctx, w.elsewhere.ID)
			is.NoErr(err) // no subscribers
		})
		is.Equal(got, []store.UserID{w.bob, w.carol}) // active only, ascending
		is.Equal(len(none), 0)                        // empty channel
	}},
	{"stream audience", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ch := newStream(t, st, w.realm, "audience", true)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, s := range []store.Subscription{
				{StreamID: ch.ID, UserID: w.carol, Active: true, FirstVisibleMessageID: 50},
				{StreamID: ch.ID, UserID: w.alice, Active: true},
				{StreamID: ch.ID, UserID: w.bob, Active: true, FirstVisibleMessageID: 10},
				{StreamID: ch.ID, UserID: w.bot, Active: false},
			} {
				is.NoErr(tx.PutSubscription(ctx, s)) // subscription stored
			}
		})
		audience := func(id store.StreamID, upTo store.MessageID) (*store.Stream, []store.UserID, error) {
			var s *store.Stream
			var users []store.UserID
			var err error
			view(t, st, func(ctx context.Context, tx store.Tx) { s, users, err = tx.StreamAudience(ctx, id, upTo) })
			return s, users, err
		}
		got, users, err := audience(ch.ID, 10)
		is.NoErr(err)                                            // audience read
		is.Equal(*got, *ch)                                      // the channel as stored
		is.Equal(users, []store.UserID{w.alice, w.bob, w.carol}) // public history: every active subscriber, ascending
		update(t, st, func(ctx context.Context, tx store.Tx) {
			ch.HistoryPublicToSubscribers = false
			is.NoErr(tx.UpdateStream(ctx, ch)) // history protected
		})
		_, users, err = audience(ch.ID, 10)
		is.NoErr(err)                                   // audience read
		is.Equal(users, []store.UserID{w.alice, w.bob}) // protected: those who could see message 10
		_, users, err = audience(ch.ID, 9)
		is.NoErr(err)                            // audience read
		is.Equal(users, []store.UserID{w.alice}) // message 9 is older than bob's first visible message
		_, users, err = audience(w.elsewhere.ID, 10)
		is.NoErr(err)           // a channel without subscribers
		is.Equal(len(users), 0) // nobody
		_, _, err = audience(ch.ID+1000, 10)
		is.True(errors.Is(err, store.ErrNotFound)) // unknown channel
	}},
	{"received is derived from subscriptions and DM membership", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		bob := userMessages(t, st, w.bob, w.m1, w.m2, w.m3, w.d, w.s, 999999)
		is.Equal(len(bob), 5)                                            // the unknown id is left out
		is.True(!bob[w.m1].Received)                                     // sent before bob's subscription
		is.True(bob[w.m2].Received && bob[w.m2].Flags == 0)              // covered by the subscription
		is.Equal(bob[w.m3].Flags, store.FlagStreamWildcardMentioned)     // DefaultFlags for receivers
		is.True(bob[w.d].Received)                                       // DM participant
		is.Equal(bob[w.d].DirectMembers, []store.UserID{w.alice, w.bob}) // participants carried
		is.True(!bob[w.s].Received)                                      // not subscribed
		carol := userMessages(t, st, w.carol, w.m1, w.d)
		is.True(carol[w.m1].Received)                                                                                // since 0 covers everything
		is.True(!carol[w.d].Received)                                                                                // not a participant
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.DeactivateSubscriptions(ctx, w.carol)) }) // carol leaves
		is.True(!userMessages(t, st, w.carol, w.m2)[w.m2].Received)                                                  // inactive subscriptions receive nothing
	}},
	{"rows override and make messages received", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{
				{UserID: w.bob, MessageID: w.m1, Flags: store.FlagRead | store.FlagHistorical | store.FlagStarred},
				{UserID: w.bob, MessageID: w.m2, Flags: store.FlagMentioned},
			})) // rows written
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{{UserID: w.bob, MessageID: w.m2, Flags: store.FlagRead}})) // replaced
		})
		bob := userMessages(t, st, w.bob, w.m1, w.m2)
		is.True(bob[w.m1].Received)                                                      // a historical row makes it received
		is.Equal(bob[w.m1].Flags, store.FlagRead|store.FlagHistorical|store.FlagStarred) // row flags
		is.Equal(bob[w.m2].Flags, store.FlagRead)                                        // the row was replaced
	}},
	{"update flags over a set returns the changed ids", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		var changed, again, unread []store.MessageID
		update(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			changed, err = tx.UpdateUserMessageFlags(ctx, w.bob, []store.MessageID{w.d, w.m1, w.m2, w.m3, w.s, 999999}, store.FlagRead, true)
			is.NoErr(err) // marked read
			again, err = tx.UpdateUserMessageFlags(ctx, w.bob, []store.MessageID{w.m2, w.d}, store.FlagRead, true)
			is.NoErr(err) // marked read again
			unread, err = tx.UpdateUserMessageFlags(ctx, w.bob, []store.MessageID{w.m3}, store.FlagRead, false)
			is.NoErr(err) // marked unread
		})
		is.Equal(changed, []store.MessageID{w.m2, w.m3, w.d}) // only received messages, ascending
		is.Equal(len(again), 0)                               // nothing changes twice
		is.Equal(unread, []store.MessageID{w.m3})             // removal reported
		bob := userMessages(t, st, w.bob, w.m2, w.m3)
		is.Equal(bob[w.m2].Flags, store.FlagRead)                                       // read kept
		is.Equal(bob[w.m3].Flags, store.FlagStreamWildcardMentioned)                    // default flags kept when the row is written
		is.Equal(userMessages(t, st, w.carol, w.m2)[w.m2].Flags, store.MessageFlags(0)) // other users untouched
	}},
	{"unread messages newest first, with a limit", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		unread := func(user store.UserID, limit int) []store.MessageID {
			var ids []store.MessageID
			view(t, st, func(ctx context.Context, tx store.Tx) {
				ums, err := tx.UnreadMessages(ctx, user, limit)
				is.NoErr(err) // unread read
				for _, um := range ums {
					ids = append(ids, um.ID)
				}
			})
			return ids
		}
		is.Equal(unread(w.bob, 10), []store.MessageID{w.d, w.m3, w.m2}) // DM and covered channel messages
		is.Equal(unread(w.bob, 2), []store.MessageID{w.d, w.m3})        // limited, newest first
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.UpdateUserMessageFlags(ctx, w.bob, []store.MessageID{w.m3}, store.FlagRead, true)
			is.NoErr(err)                                                                                                                  // m3 read
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{{UserID: w.bob, MessageID: w.m1, Flags: store.FlagHistorical}})) // historical unread
		})
		is.Equal(unread(w.bob, 10), []store.MessageID{w.d, w.m2, w.m1}) // read left out, historical unread row counted
	}},
	{"flagged ids and message queries by flags", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.UpdateUserMessageFlags(ctx, w.bob, []store.MessageID{w.m2, w.d}, store.FlagStarred, true)
			is.NoErr(err) // starred
			_, err = tx.UpdateUserMessageFlags(ctx, w.bob, []store.MessageID{w.d}, store.FlagRead, true)
			is.NoErr(err) // read
		})
		var starred, wild []store.MessageID
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			starred, err = tx.FlaggedMessageIDs(ctx, w.bob, store.FlagStarred)
			is.NoErr(err) // starred read
			wild, err = tx.FlaggedMessageIDs(ctx, w.bob, store.FlagStreamWildcardMentioned)
			is.NoErr(err) // wildcard read
		})
		is.Equal(starred, []store.MessageID{w.m2, w.d}) // ascending
		is.Equal(wild, []store.MessageID{w.m3})         // derived flags found too
		q := store.MessageQuery{RealmID: w.realm, FlagUser: w.bob}
		unreadQ, starredQ, mentionQ, newest := q, q, q, q
		unreadQ.NoFlags = store.FlagRead
		starredQ.AllFlags = store.FlagStarred
		mentionQ.AnyFlags = store.FlagMentioned | store.FlagStreamWildcardMentioned
		newest.NoFlags, newest.Newest, newest.Limit = store.FlagRead, true, 1
		is.Equal(query(t, st, unreadQ), []store.MessageID{w.m2, w.m3}) // received and unread
		is.Equal(query(t, st, starredQ), []store.MessageID{w.m2, w.d}) // starred
		is.Equal(query(t, st, mentionQ), []store.MessageID{w.m3})      // any of the mention flags
		is.Equal(query(t, st, newest), []store.MessageID{w.m3})        // order and limit apply
		unreadQ.Recipients = []store.RecipientID{w.general.RecipientID}
		unreadQ.AfterID = w.m2
		is.Equal(query(t, st, unreadQ), []store.MessageID{w.m3}) // combined with the other conditions
	}},
	{"deleting messages deletes their flag rows", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.UpdateUserMessageFlags(ctx, w.bob, []store.MessageID{w.m2, w.m3}, store.FlagStarred, true)
			is.NoErr(err) // starred
		})
		deleted := deleteBatch(t, st, store.MessageFilter{RealmID: w.realm, StreamID: w.general.ID}, 1)
		is.Equal(deleted[0].ID, w.m3) // newest deleted
		var starred []store.MessageID
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			starred, err = tx.FlaggedMessageIDs(ctx, w.bob, store.FlagStarred)
			is.NoErr(err) // starred read
		})
		is.Equal(starred, []store.MessageID{w.m2}) // the deleted message's row went with it
	}},
	{"the sender's own message is read without a row", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st) // alice sent every message; she receives d (DM) and s (secret)
		alice := userMessages(t, st, w.alice, w.d, w.s, w.m2)
		is.True(alice[w.d].Received && alice[w.d].Flags == store.FlagRead) // her DM: read
		is.True(alice[w.s].Received && alice[w.s].Flags == store.FlagRead) // her channel message: read
		is.True(!alice[w.m2].Received)                                     // not subscribed to general: not received
		var unread []store.UserMessage
		var rows []store.UserMessageFlags
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			unread, err = tx.UnreadMessages(ctx, w.alice, 10)
			is.NoErr(err) // unread read
			rows, err = tx.MessageFlagRows(ctx, w.d)
			is.NoErr(err) // flag rows read
		})
		is.Equal(len(unread), 0)                                                                                                  // nothing she sent is unread
		is.Equal(rows, []store.UserMessageFlags{{UserID: w.alice, MessageID: w.d, Flags: store.FlagRead}})                        // listed: her flags differ from the defaults
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.alice, AllFlags: store.FlagRead}), list(w.d, w.s)) // is:read
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.alice, NoFlags: store.FlagRead}), []store.MessageID(nil))
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.alice, AnyFlags: store.FlagRead | store.FlagStarred, Newest: true, Limit: 1}), list(w.s))
		// No row: leaving the channel takes the message away.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.secret.ID, UserID: w.alice, Active: false}))
		})
		is.True(!userMessages(t, st, w.alice, w.s)[w.s].Received) // no row held it
	}},
	{"the sender marks their own message unread, read again, starred, mentioned", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		flag := func(ids []store.MessageID, f store.MessageFlags, add bool) []store.MessageID {
			var changed []store.MessageID
			update(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				changed, err = tx.UpdateUserMessageFlags(ctx, w.alice, ids, f, add)
				is.NoErr(err) // flags updated
			})
			return changed
		}
		is.Equal(flag(list(w.d, w.s), store.FlagRead, false), list(w.d, w.s)) // marked unread: both change
		alice := userMessages(t, st, w.alice, w.d, w.s)
		is.Equal(alice[w.d].Flags, store.MessageFlags(0)) // unread through a row
		is.Equal(alice[w.s].Flags, store.MessageFlags(0))
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.alice, NoFlags: store.FlagRead}), list(w.d, w.s)) // is:unread
		var unread []store.UserMessage
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			unread, err = tx.UnreadMessages(ctx, w.alice, 10)
			is.NoErr(err) // unread read
		})
		is.Equal(len(unread), 2)                                      // both count
		is.Equal(len(flag(list(w.d, w.s), store.FlagRead, false)), 0) // already unread
		is.Equal(flag(list(w.s), store.FlagRead, true), list(w.s))    // read again
		is.Equal(userMessages(t, st, w.alice, w.s)[w.s].Flags, store.FlagRead)
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.alice, NoFlags: store.FlagRead}), list(w.d))
		is.Equal(flag(list(w.s, w.d), store.FlagStarred, true), list(w.d, w.s)) // starred
		alice = userMessages(t, st, w.alice, w.d, w.s)
		is.Equal(alice[w.s].Flags, store.FlagRead|store.FlagStarred)
		is.Equal(alice[w.d].Flags, store.FlagStarred)
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.alice, AllFlags: store.FlagStarred}), list(w.d, w.s))
		is.Equal(flag(list(w.s), store.FlagStarred, false), list(w.s)) // unstarred: what is derived again
		is.Equal(userMessages(t, st, w.alice, w.s)[w.s].Flags, store.FlagRead)
		// Back to what is derived, the row went: leaving the channel takes
		// the message away.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.secret.ID, UserID: w.alice, Active: false}))
		})
		is.True(!userMessages(t, st, w.alice, w.s)[w.s].Received) // no row left
		// A mention of herself is a row, read and mentioned.
		m := send(t, st, directMessage(w.realm, message(t, st, w.d).RecipientID, w.alice, w.alice, w.bob))[0]
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{{UserID: w.alice, MessageID: m, Flags: store.FlagRead | store.FlagMentioned}}))
		})
		is.Equal(userMessages(t, st, w.alice, m)[m].Flags, store.FlagRead|store.FlagMentioned)
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.alice, AnyFlags: store.MentionFlags}), list(m))
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.alice, NoFlags: store.FlagRead}), list(w.d)) // still only the one marked unread
	}},
	{"a read mark moving over the user's own messages leaves them read", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)                                     // carol has m1, m2, m3 unread
		c := send(t, st, channelMessage(w.general, w.carol, "t"))[0] // carol's own: read
		a := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		update(t, st, func(ctx context.Context, tx store.Tx) {
			changed, err := tx.UpdateUserMessageFlags(ctx, w.carol, list(a), store.FlagRead, true)
			is.NoErr(err)              // marked read
			is.Equal(changed, list(a)) // only a changed
		})
		carol := userMessages(t, st, w.carol, w.m1, w.m2, w.m3, c, a)
		is.Equal(carol[c].Flags, store.FlagRead) // still read
		is.Equal(carol[a].Flags, store.FlagRead)
		is.Equal(carol[w.m3].Flags, store.FlagStreamWildcardMentioned) // still unread
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.carol, NoFlags: store.FlagRead}), list(w.m1, w.m2, w.m3))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.MarkReadThrough(ctx, w.carol, w.general.RecipientID, a)) // all read
		})
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.carol, NoFlags: store.FlagRead}), []store.MessageID(nil))
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: w.carol, AllFlags: store.FlagRead}), list(w.m1, w.m2, w.m3, c, a))
	}},
}
