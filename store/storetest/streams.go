package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var streamTests = []test{
	{"SubscriptionProperties", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		users := newUsers(t, st, human(realm, "a@acme.test"), human(realm, "b@acme.test"))
		c := newStream(t, st, realm, "general", false)
		yes, no := true, false
		props := store.SubscriptionProperties{
			Color: "#c2c2c2", PinToTop: true, IsMuted: true,
			DesktopNotifications: &yes, AudibleNotifications: &no, PushNotifications: nil,
			EmailNotifications: &no, WildcardMentionsNotify: &yes,
		}
		want := store.Subscription{StreamID: c.ID, UserID: users[0], Active: true, SinceMessageID: 5, SubscriptionProperties: props}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutSubscription(ctx, want))                                                 // stored
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: c.ID, UserID: users[1]})) // an inactive one, no properties
		})
		yes = false // the store keeps its own copy of the pointed-to values
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Subscription(ctx, c.ID, users[0])
			is.NoErr(err)                              // found
			is.Equal(*got.DesktopNotifications, true)  // the value as put
			is.Equal(got.PushNotifications, nil)       // nil stays nil: inherit
			is.Equal(*got.AudibleNotifications, false) // false is not nil
			is.Equal(got.Color, "#c2c2c2")             // colour round-trips
			is.True(got.PinToTop && got.IsMuted)       // booleans round-trip
			list, err := tx.Subscriptions(ctx, c.ID, 0)
			is.NoErr(err)                                                            // listed
			is.Equal(len(list), 2)                                                   // both rows
			is.Equal(list[0].SubscriptionProperties.Color, "#c2c2c2")                // properties in lists too
			is.Equal(list[1].SubscriptionProperties, store.SubscriptionProperties{}) // zero properties
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			sub, err := tx.Subscription(ctx, c.ID, users[0])
			is.NoErr(err)
			sub.Active, sub.DesktopNotifications, sub.Color = false, nil, "#ffffff"
			is.NoErr(tx.PutSubscription(ctx, *sub)) // replaced
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Subscription(ctx, c.ID, users[0])
			is.NoErr(err)
			is.Equal(got.DesktopNotifications, nil) // back to inherit
			is.Equal(got.Color, "#ffffff")          // replaced colour
			is.True(!got.Active && got.IsMuted)     // the rest kept as put
		})
	}},
	{"RealmSubscribers", func(t *testing.T, st store.Store) {
		is := is.New(t)
		acme, other := newRealm(t, st, "acme"), newRealm(t, st, "other")
		users := newUsers(t, st, human(acme, "a@acme.test"), human(acme, "b@acme.test"), human(other, "c@other.test"),
			human(acme, "gone@acme.test"))
		b := newStream(t, st, acme, "b", false)
		a := newStream(t, st, acme, "a", true)
		o := newStream(t, st, other, "o", false)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, s := range []store.Subscription{
				{StreamID: b.ID, UserID: users[1], Active: true},
				{StreamID: b.ID, UserID: users[0], Active: true, SubscriptionProperties: store.SubscriptionProperties{Color: "#000000"}},
				{StreamID: a.ID, UserID: users[0], Active: false},
				{StreamID: a.ID, UserID: users[1], Active: true},
				{StreamID: o.ID, UserID: users[2], Active: true},
				{StreamID: b.ID, UserID: users[3], Active: true},
			} {
				is.NoErr(tx.PutSubscription(ctx, s))
			}
			gone, err := tx.User(ctx, users[3])
			is.NoErr(err)
			gone.IsActive = false
			is.NoErr(tx.UpdateUser(ctx, gone)) // deactivated, its subscription left active
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.RealmSubscribers(ctx, acme)
			is.NoErr(err) // listed
			is.Equal(got, []store.Subscriber{{StreamID: b.ID, UserID: users[0]}, {StreamID: b.ID, UserID: users[1]},
				{StreamID: a.ID, UserID: users[1]}}) // active subscriptions of active users of the realm, by stream then user
			none, err := tx.RealmSubscribers(ctx, 999)
			is.NoErr(err)          // an unknown realm
			is.Equal(len(none), 0) // has none
		})
	}},
	{"StreamTopics", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		u := newUsers(t, st, human(realm, "a@acme.test"))[0]
		c := newStream(t, st, realm, "general", false)
		d := newStream(t, st, realm, "empty", false)
		ids := send(t, st, channelMessage(c, u, "Lunch"), channelMessage(c, u, "plans"), channelMessage(c, u, "LUNCH"),
			channelMessage(c, u, ""), channelMessage(c, u, "plans"))
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.StreamTopics(ctx, c.ID, 0)
			is.NoErr(err) // listed
			is.Equal(got, []store.TopicSummary{
				{Name: "plans", MaxID: ids[4]}, {Name: "", MaxID: ids[3]}, {Name: "LUNCH", MaxID: ids[2]},
			}) // one per topic key, named as the newest message, newest first
			got, err = tx.StreamTopics(ctx, c.ID, ids[3])
			is.NoErr(err)                                                                                  // from an id on
			is.Equal(got, []store.TopicSummary{{Name: "plans", MaxID: ids[4]}, {Name: "", MaxID: ids[3]}}) // older messages left out
			got, err = tx.StreamTopics(ctx, d.ID, 0)
			is.NoErr(err)         // a channel without messages
			is.Equal(len(got), 0) // has no topics
		})
	}},
	{"TopicParticipants", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		u := newUsers(t, st, human(realm, "a@acme.test"), human(realm, "b@acme.test"), human(realm, "c@acme.test"),
			human(realm, "d@acme.test"), human(realm, "e@acme.test"))
		c := newStream(t, st, realm, "general", false)
		d := newStream(t, st, realm, "other", false)
		ids := send(t, st, channelMessage(c, u[2], "Lunch"), channelMessage(c, u[0], "LUNCH"), channelMessage(c, u[2], "lunch"),
			channelMessage(c, u[3], "plans"), channelMessage(d, u[4], "lunch"))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, r := range []struct {
				msg  store.MessageID
				user store.UserID
			}{{ids[0], u[1]}, {ids[1], u[1]}, {ids[2], u[0]}, {ids[3], u[4]}, {ids[4], u[3]}} {
				is.NoErr(tx.AddReaction(ctx, r.msg, store.Reaction{UserID: r.user, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}))
			}
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.TopicParticipants(ctx, c.ID, store.TopicKey("lunch"))
			is.NoErr(err)                                           // listed
			is.Equal(got, []store.UserID{u[0], u[1], u[2]})         // senders and reactors of the topic (any case), each once, ascending
			none, err := tx.TopicParticipants(ctx, c.ID, "nothing") // a topic without messages
			is.NoErr(err)
			is.Equal(len(none), 0) // has none
		})
	}},
	{"CreateAndRead", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		want := store.Stream{
			RealmID: realm, Name: "Café Talk", Description: "coffee", InviteOnly: true,
			HistoryPublicToSubscribers: false, IsArchived: true, FirstMessageID: 77, DateCreated: epoch,
			CreatorID: 9, RenderedDescription: "<p>coffee</p>",
		}
		s := want
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateStream(ctx, &s)) // channel created
		})
		is.True(s.ID > 0)          // id filled in
		is.True(s.RecipientID > 0) // recipient id filled in
		want.ID, want.RecipientID = s.ID, s.RecipientID
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Stream(ctx, s.ID)
			is.NoErr(err)                    // channel found
			is.Equal(normStream(*got), want) // every field round-trips
			got, err = tx.StreamByName(ctx, realm, "CAFÉ TALK")
			is.NoErr(err)          // found by name, compared by FoldKey
			is.Equal(got.ID, s.ID) // the same channel
			_, err = tx.StreamByName(ctx, realm, "Cafe Talk")
			is.True(errors.Is(err, store.ErrNotFound)) // accents matter
			_, err = tx.Stream(ctx, s.ID+1000)
			is.True(errors.Is(err, store.ErrNotFound)) // unknown id
		})
	}},
	{"ListAndIDs", func(t *testing.T, st store.Store) {
		is := is.New(t)
		acme, other := newRealm(t, st, "acme"), newRealm(t, st, "other")
		b := &store.Stream{ID: 61, RealmID: acme, Name: "b"}
		a := &store.Stream{ID: 40, RealmID: acme, Name: "a"}
		c := &store.Stream{RealmID: acme, Name: "c"}
		o := &store.Stream{RealmID: other, Name: "a"}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, s := range []*store.Stream{b, a, c, o} {
				is.NoErr(tx.CreateStream(ctx, s)) // channel created
			}
		})
		is.Equal(a.ID, store.StreamID(40)) // explicit id kept
		is.True(c.ID > 61)                 // next id above every id used
		rcpts := map[store.RecipientID]bool{a.RecipientID: true, b.RecipientID: true, c.RecipientID: true, o.RecipientID: true}
		is.Equal(len(rcpts), 4) // every channel has its own recipient id
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ss, err := tx.Streams(ctx, acme)
			is.NoErr(err) // channels listed
			var got []store.StreamID
			for _, s := range ss {
				got = append(got, s.ID)
			}
			is.Equal(got, []store.StreamID{40, 61, c.ID}) // the realm's channels ordered by id
			s, err := tx.StreamByName(ctx, other, "A")
			is.NoErr(err)        // the same name in another realm
			is.Equal(s.ID, o.ID) // is another channel
		})
	}},
	{"Conflicts", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		s := newStream(t, st, realm, "Straße", false)
		ctx := context.Background()
		create := func(n *store.Stream) error {
			return st.Update(ctx, func(tx store.Tx) error { return tx.CreateStream(ctx, n) })
		}
		is.True(errors.Is(create(&store.Stream{ID: s.ID, RealmID: realm, Name: "x"}), store.ErrConflict)) // duplicate id
		is.True(errors.Is(create(&store.Stream{RealmID: realm, Name: "STRASSE"}), store.ErrConflict))     // duplicate name by FoldKey
		other := newStream(t, st, realm, "other", false)
		err := st.Update(ctx, func(tx store.Tx) error {
			o := *other
			o.Name = "strasse"
			return tx.UpdateStream(ctx, &o)
		})
		is.True(errors.Is(err, store.ErrConflict)) // renaming onto another channel's name
	}},
	{"Update", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		s := newStream(t, st, realm, "old", false)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Stream(ctx, s.ID)
			is.NoErr(err) // channel found
			got.Name, got.Description, got.InviteOnly, got.IsArchived, got.FirstMessageID = "New", "d", true, true, 5
			is.NoErr(tx.UpdateStream(ctx, got)) // channel updated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Stream(ctx, s.ID)
			is.NoErr(err)                                    // channel found
			is.Equal(got.Name, "New")                        // name stored
			is.Equal(got.InviteOnly, true)                   // privacy stored
			is.Equal(got.IsArchived, true)                   // archive flag stored
			is.Equal(got.FirstMessageID, store.MessageID(5)) // first message id stored
			is.Equal(got.RecipientID, s.RecipientID)         // recipient unchanged
			_, err = tx.StreamByName(ctx, realm, "old")
			is.True(errors.Is(err, store.ErrNotFound)) // the old name is free
			_, err = tx.StreamByName(ctx, realm, "new")
			is.NoErr(err) // the new name is found
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.UpdateStream(ctx, &store.Stream{ID: s.ID + 1000, RealmID: realm, Name: "ghost"})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // updating an unknown channel
	}},
	{"ReadAgainInTransaction", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			first, err := tx.Stream(ctx, w.general.ID)
			is.NoErr(err)
			first.Name = "changed by the caller" // the store's answers are the caller's own
			again, err := tx.Stream(ctx, w.general.ID)
			is.NoErr(err)
			is.Equal(again.Name, "general") // read again, unchanged
			m := channelMessage(w.general, w.alice, "t")
			is.NoErr(tx.CreateMessage(ctx, m))
			again.Description, again.FirstMessageID = "new", m.ID
			is.NoErr(tx.UpdateStream(ctx, again))
			after, err := tx.Stream(ctx, w.general.ID)
			is.NoErr(err)
			is.Equal(after.Description, "new") // the transaction's own write is seen
			is.Equal(after.FirstMessageID, m.ID)
		})
	}},
	{"Subscriptions", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		subs := []store.Subscription{
			{StreamID: w.secret.ID, UserID: w.bob, Active: true, FirstVisibleMessageID: 10},
			{StreamID: w.general.ID, UserID: w.carol, Active: true},
			{StreamID: w.general.ID, UserID: w.alice, Active: false},
			{StreamID: w.secret.ID, UserID: w.alice, Active: true},
		}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, s := range subs {
				is.NoErr(tx.PutSubscription(ctx, s)) // subscription stored
			}
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.general.ID, UserID: w.alice, Active: true, FirstVisibleMessageID: 3})) // replacing a subscription
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Subscription(ctx, w.general.ID, w.alice)
			is.NoErr(err)                                                                                                       // subscription found
			is.Equal(*got, store.Subscription{StreamID: w.general.ID, UserID: w.alice, Active: true, FirstVisibleMessageID: 3}) // the replacement is stored
			_, err = tx.Subscription(ctx, w.general.ID, w.bob)
			is.True(errors.Is(err, store.ErrNotFound)) // no subscription
			byStream, err := tx.Subscriptions(ctx, w.general.ID, 0)
			is.NoErr(err) // subscriptions of a channel listed
			is.Equal(byStream, []store.Subscription{
				{StreamID: w.general.ID, UserID: w.alice, Active: true, FirstVisibleMessageID: 3},
				{StreamID: w.general.ID, UserID: w.carol, Active: true},
			}) // ordered by user
			byUser, err := tx.Subscriptions(ctx, 0, w.alice)
			is.NoErr(err)                                                                                                   // subscriptions of a user listed
			is.Equal(len(byUser), 2)                                                                                        // both of alice's
			is.Equal([]store.StreamID{byUser[0].StreamID, byUser[1].StreamID}, []store.StreamID{w.general.ID, w.secret.ID}) // ordered by channel
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.DeactivateSubscriptions(ctx, w.alice)) // alice's subscriptions deactivated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			byUser, err := tx.Subscriptions(ctx, 0, w.alice)
			is.NoErr(err)            // inactive subscriptions are still listed
			is.Equal(len(byUser), 2) // both of alice's
			for _, s := range byUser {
				is.Equal(s.Active, false) // deactivated
			}
			bob, err := tx.Subscription(ctx, w.secret.ID, w.bob)
			is.NoErr(err)                                                                                                     // bob's subscription found
			is.Equal(*bob, store.Subscription{StreamID: w.secret.ID, UserID: w.bob, Active: true, FirstVisibleMessageID: 10}) // other users untouched
		})
	}},
}
