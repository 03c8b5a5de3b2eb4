package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// prefetchTests announce reads (store.Announce) and check that every
// answer is what the same read gives unannounced, which holds of every store.
var prefetchTests = []test{
	{"AnswersAsUnannounced", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		users := newUsers(t, st, human(realm, "a@acme.test"), human(realm, "b@acme.test"), human(realm, "c@acme.test"))
		general := newStream(t, st, realm, "General", false)
		quiet := newStream(t, st, realm, "quiet", true)
		protected := &store.Stream{RealmID: realm, Name: "protected", InviteOnly: true, DateCreated: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateLinkifier(ctx, &store.Linkifier{RealmID: realm, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://t/{id}"}))
			for _, u := range []store.UserID{users[2], users[0]} {
				is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: general.ID, UserID: u, Active: true}))
			}
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: general.ID, UserID: users[1]})) // inactive
			is.NoErr(tx.CreateStream(ctx, protected))                                                     // history not public to subscribers
			for i, u := range users {
				is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: protected.ID, UserID: u, Active: true,
					FirstVisibleMessageID: store.MessageID(i * 50)})) // sees from 0 (any), 50, 100
			}
		})
		rid := directRecipient(t, st, realm, users[0], users[1])
		var (
			version      int64
			realmStreams []store.Stream
			userSubs     []store.Subscription
		)
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			version, err = tx.LinkifiersVersion(ctx, realm)
			is.NoErr(err)
			realmStreams, err = tx.Streams(ctx, realm)
			is.NoErr(err)
			userSubs, err = tx.Subscriptions(ctx, 0, users[1])
			is.NoErr(err)
		})
		is.Equal(len(realmStreams), 3)
		is.Equal(len(userSubs), 2) // inactive in general, active in protected
		const missingRealm, missingStream = store.RealmID(9999), store.StreamID(9999)
		announce := store.Prefetch{
			Realms:  []store.RealmID{realm, missingRealm},
			Streams: []store.StreamID{general.ID, quiet.ID, missingStream},
			StreamNames: []store.StreamName{{RealmID: realm, Name: "GENERAL"}, {RealmID: realm, Name: "nowhere"},
				{RealmID: missingRealm, Name: "General"}},
			Subscribers:       true,
			Audiences:         []store.StreamID{general.ID, protected.ID, missingStream},
			RealmStreams:      []store.RealmID{realm, missingRealm},
			UserSubscriptions: []store.UserID{users[1], 9999},
			DirectRecipients:  []store.UserID{users[0], 9999},
		}
		check := func(ctx context.Context, tx store.Tx) {
			u, err := tx.User(ctx, users[0]) // an unannounced read first, as the Service's actor read
			is.NoErr(err)
			is.Equal(u.Email, "a@acme.test")
			r, err := tx.Realm(ctx, realm)
			is.NoErr(err)
			is.Equal(r.StringID, "acme") // the announced realm
			v, err := tx.LinkifiersVersion(ctx, realm)
			is.NoErr(err)
			is.Equal(v, version) // its linkifier version
			_, err = tx.Realm(ctx, missingRealm)
			is.True(errors.Is(err, store.ErrNotFound)) // an announced realm that does not exist
			s, err := tx.Stream(ctx, general.ID)
			is.NoErr(err)
			is.Equal(*s, *general) // the announced stream as created
			s.Description = "changed by the caller"
			byName, err := tx.StreamByName(ctx, realm, "GENERAL")
			is.NoErr(err)
			is.Equal(*byName, *general) // by name, its own copy
			again, err := tx.Stream(ctx, general.ID)
			is.NoErr(err)
			is.Equal(again.Description, general.Description) // a second read is not the first caller's value
			_, err = tx.Stream(ctx, missingStream)
			is.True(errors.Is(err, store.ErrNotFound)) // an announced id that does not exist
			_, err = tx.StreamByName(ctx, realm, "nowhere")
			is.True(errors.Is(err, store.ErrNotFound)) // an announced name that does not exist
			_, err = tx.StreamByName(ctx, missingRealm, "General")
			is.True(errors.Is(err, store.ErrNotFound)) // the name in another realm
			subs, err := tx.ActiveSubscriberIDs(ctx, general.ID)
			is.NoErr(err)
			is.Equal(subs, []store.UserID{users[0], users[2]}) // active subscribers, ascending
			none, err := tx.ActiveSubscriberIDs(ctx, quiet.ID)
			is.NoErr(err)
			is.Equal(len(none), 0) // a stream without subscribers
			s, audience, err := tx.StreamAudience(ctx, general.ID, 1)
			is.NoErr(err)
			is.Equal(s.Name, "General")                            // the audience's stream
			is.Equal(audience, []store.UserID{users[0], users[2]}) // history public: every active subscriber
			_, audience, err = tx.StreamAudience(ctx, protected.ID, 60)
			is.NoErr(err)
			is.Equal(audience, []store.UserID{users[0], users[1]}) // those who may see message 60
			_, audience, err = tx.StreamAudience(ctx, protected.ID, 100)
			is.NoErr(err)
			is.Equal(audience, users) // a second read, for another message
			_, _, err = tx.StreamAudience(ctx, missingStream, 1)
			is.True(errors.Is(err, store.ErrNotFound)) // an announced audience of no stream
			streams, err := tx.Streams(ctx, realm)
			is.NoErr(err)
			is.Equal(streams, realmStreams) // the realm's streams
			streams, err = tx.Streams(ctx, missingRealm)
			is.NoErr(err)
			is.Equal(len(streams), 0) // a realm without streams
			mine, err := tx.Subscriptions(ctx, 0, users[1])
			is.NoErr(err)
			is.Equal(mine, userSubs) // the user's subscriptions
			nobody, err := tx.Subscriptions(ctx, 0, 9999)
			is.NoErr(err)
			is.Equal(len(nobody), 0) // a user without subscriptions
			dms, err := tx.DirectRecipients(ctx, users[0])
			is.NoErr(err)
			is.Equal(dms, []store.RecipientID{rid}) // the user's direct conversations
			dms, err = tx.DirectRecipients(ctx, 9999)
			is.NoErr(err)
			is.Equal(len(dms), 0)
		}
		view(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, announce)
			check(ctx, tx)
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, announce)
			check(ctx, tx)
		})
	}},
	{"WritesComeFirst", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		users := newUsers(t, st, human(realm, "a@acme.test"), human(realm, "b@acme.test"))
		general := newStream(t, st, realm, "general", false)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, u := range users {
				is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: general.ID, UserID: u, Active: true}))
			}
		})
		announce := store.Prefetch{
			Realms:      []store.RealmID{realm},
			Streams:     []store.StreamID{general.ID},
			StreamNames: []store.StreamName{{RealmID: realm, Name: "general"}},
			Subscribers: true,
			Audiences:   []store.StreamID{general.ID},
		}
		rename := func(ctx context.Context, tx store.Tx, name string) {
			s := *general
			s.Name, s.Description = name, "renamed to "+name
			is.NoErr(tx.UpdateStream(ctx, &s))
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: general.ID, UserID: users[1]})) // unsubscribed
			r, err := tx.Realm(ctx, realm)
			is.NoErr(err)
			r.Name = name + " org"
			is.NoErr(tx.UpdateRealm(ctx, r))
		}
		seen := func(ctx context.Context, tx store.Tx, name string) {
			r, err := tx.Realm(ctx, realm)
			is.NoErr(err)
			is.Equal(r.Name, name+" org") // the realm as written
			s, err := tx.Stream(ctx, general.ID)
			is.NoErr(err)
			is.Equal(s.Description, "renamed to "+name) // the stream as written
			_, err = tx.StreamByName(ctx, realm, "general")
			is.Equal(errors.Is(err, store.ErrNotFound), name != "general") // the old name is gone
			subs, err := tx.ActiveSubscriberIDs(ctx, general.ID)
			is.NoErr(err)
			is.Equal(subs, []store.UserID{users[0]}) // the subscriber that is left
			_, audience, err := tx.StreamAudience(ctx, general.ID, 1)
			is.NoErr(err)
			is.Equal(audience, []store.UserID{users[0]}) // the audience that is left
		}
		// Announced, fetched with a read, then written over.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, announce)
			_, err := tx.User(ctx, users[0])
			is.NoErr(err)
			rename(ctx, tx, "one")
			seen(ctx, tx, "one")
		})
		// Announced, and written over before anything was read.
		announce.StreamNames[0].Name = "one"
		update(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, announce)
			rename(ctx, tx, "two")
			seen(ctx, tx, "two")
		})
		view(t, st, func(ctx context.Context, tx store.Tx) { seen(ctx, tx, "two") }) // and committed
	}},
	{"NewMessagesAsUnannounced", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		before := send(t, st, channelMessage(w.general, w.alice, "before"))[0]
		var plain, reacted, extra, dropped store.MessageID
		update(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, store.Prefetch{Realms: []store.RealmID{w.realm}, NewMessages: 2})
			_, err := tx.Realm(ctx, w.realm) // the reads go to the server
			is.NoErr(err)
			m := channelMessage(w.general, w.alice, "Plain")
			is.NoErr(tx.CreateMessage(ctx, m))
			plain = m.ID
			is.Equal(m.TopicKey, "plain") // set as unannounced
			r := channelMessage(w.general, w.bob, "reacted")
			r.Reactions = []store.Reaction{{UserID: w.alice, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}}
			is.NoErr(tx.CreateMessage(ctx, r))
			reacted = r.ID
			x := channelMessage(w.general, w.carol, "extra") // one more than announced
			is.NoErr(tx.CreateMessage(ctx, x))
			extra = x.ID
			got, err := tx.Message(ctx, plain)
			is.NoErr(err)
			is.Equal(got.Topic, "Plain") // a later read in the transaction sees the message
			is.Equal(got.SenderID, w.alice)
		})
		is.True(before < plain) // ids above every id used, all different
		is.True(plain != reacted && plain != extra && reacted != extra)
		err := st.Update(t.Context(), func(tx store.Tx) error {
			store.Announce(tx, store.Prefetch{Realms: []store.RealmID{w.realm}, NewMessages: 1})
			if _, err := tx.Realm(t.Context(), w.realm); err != nil {
				return err
			}
			m := channelMessage(w.general, w.alice, "rolled back")
			if err := tx.CreateMessage(t.Context(), m); err != nil {
				return err
			}
			dropped = m.ID
			return errAbort
		})
		is.True(errors.Is(err, errAbort))
		is.True(dropped != 0) // an id was given
		later := send(t, st, channelMessage(w.general, w.alice, "later"))[0]
		is.True(later > max(plain, reacted, extra)) // above the ids the announcement took
		got := query(t, st, store.MessageQuery{RealmID: w.realm, Limit: 10})
		want := []store.MessageID{before, plain, reacted, extra, later}
		slices.Sort(want)
		is.Equal(got, want) // committed; the rolled back one is not
	}},
	{"UserMessagesAsUnannounced", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newFlagWorld(t, st)
		ids := []store.MessageID{w.m3, w.m1, 999999, w.d, w.s}
		var want []store.UserMessage
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			want, err = tx.UserMessages(ctx, w.bob, ids)
			is.NoErr(err)
		})
		is.Equal(len(want), 4) // the unknown id left out
		announce := store.Prefetch{UserMessages: store.UserMessagesRead{User: w.bob, IDs: ids}}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, announce)
			_, err := tx.User(ctx, w.bob) // the reads go to the server
			is.NoErr(err)
			got, err := tx.UserMessages(ctx, w.bob, ids)
			is.NoErr(err)
			is.Equal(got, want) // the announced read
			got, err = tx.UserMessages(ctx, w.carol, ids)
			is.NoErr(err)
			is.Equal(len(got), 4)
			is.True(got[0].Received) // another user's, m1 from the start
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, announce)
			_, err := tx.User(ctx, w.bob)
			is.NoErr(err)
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{{UserID: w.bob, MessageID: w.m3, Flags: store.FlagStarred}}))
			got, err := tx.UserMessages(ctx, w.bob, ids)
			is.NoErr(err)
			is.Equal(got[1].ID, w.m3)
			is.Equal(got[1].Flags, store.FlagStarred) // the write is seen: the answer was forgotten
		})
	}},
	{"EventQueuesAsUnannounced", func(t *testing.T, st store.Store) {
		is := is.New(t)
		other := ev("elsewhere", 1)
		other.RealmID = 2
		ids := appendEvents(t, st, ev("a", 1), ev("b", 1), other)
		q := &store.EventQueue{ID: "q", RealmID: 1, UserID: 1, Params: []byte(`{"p":1}`), Lifespan: time.Minute,
			Position: ids[0], Acked: -1, Created: epoch, LastPoll: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.CreateEventQueue(ctx, q)) })
		var heads [3]int64 // of realms 0, 1 and 2, unannounced
		view(t, st, func(ctx context.Context, tx store.Tx) {
			for realm := range heads {
				var err error
				heads[realm], err = tx.LastEventID(ctx, store.RealmID(realm))
				is.NoErr(err)
			}
		})
		announce := store.Prefetch{EventQueues: []string{"q", "missing"}}
		view(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, announce)
			got, err := tx.EventQueue(ctx, "q")
			is.NoErr(err)
			is.Equal(*got, *q) // the announced queue
			head, err := tx.LastEventID(ctx, 1)
			is.NoErr(err)
			is.Equal(head, heads[1]) // its realm's head
			is.True(head >= ids[1])  // at or above the realm's entries
			_, err = tx.EventQueue(ctx, "missing")
			is.True(errors.Is(err, store.ErrNotFound)) // an announced queue that does not exist
			for _, realm := range []store.RealmID{0, 2} {
				head, err := tx.LastEventID(ctx, realm)
				is.NoErr(err)
				is.Equal(head, heads[realm]) // other realms' heads, as unannounced
			}
			got, err = tx.EventQueue(ctx, "q")
			is.NoErr(err)
			is.Equal(*got, *q) // read again
		})
		// Announced, then written over: the reads see the writes.
		update(t, st, func(ctx context.Context, tx store.Tx) {
			store.Announce(tx, announce)
			moved := *q
			moved.Position, moved.Acked = ids[1], 5
			is.NoErr(tx.UpdateEventQueue(ctx, &moved))
			more := []store.LoggedEvent{ev("c", 1)}
			is.NoErr(tx.AppendEvents(ctx, more))
			got, err := tx.EventQueue(ctx, "q")
			is.NoErr(err)
			is.Equal(got.Position, ids[1]) // the queue as written
			is.Equal(got.Acked, int64(5))
			head, err := tx.LastEventID(ctx, 1)
			is.NoErr(err)
			is.Equal(head, more[0].ID) // the realm's head past the append
		})
	}},
}
