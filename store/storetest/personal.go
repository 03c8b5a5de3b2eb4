package storetest

// Conformance of users' own settings: topic visibility policies (and the
// topic filter of message queries), muted users, statuses and alert words.

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// setTopic sets a policy in its own transaction and returns whether it
// changed.
func setTopic(tb testing.TB, st store.Store, user store.UserID, stream store.StreamID, topic string, p store.VisibilityPolicy) bool {
	tb.Helper()
	var changed bool
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		var err error
		changed, err = tx.SetUserTopic(ctx, &store.UserTopic{UserID: user, StreamID: stream, Topic: topic, Policy: p, LastUpdated: epoch})
		if err != nil {
			tb.Fatal(err)
		}
	})
	return changed
}

var personalTests = []test{
	{"UserTopics", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		is.True(!setTopic(t, st, w.alice, w.general.ID, "lunch", store.PolicyInherit)) // inherit without a row: nothing changes
		is.True(setTopic(t, st, w.alice, w.general.ID, "Lunch", store.PolicyMuted))    // muted
		is.True(!setTopic(t, st, w.alice, w.general.ID, "LUNCH", store.PolicyMuted))   // the same policy, by TopicKey: nothing changes
		is.True(setTopic(t, st, w.alice, w.general.ID, "lunch", store.PolicyFollowed)) // replaced
		is.True(setTopic(t, st, w.alice, w.secret.ID, "b", store.PolicyUnmuted))
		is.True(setTopic(t, st, w.alice, w.general.ID, "a", store.PolicyMuted))
		is.True(setTopic(t, st, w.bob, w.general.ID, "lunch", store.PolicyMuted))
		view(t, st, func(ctx context.Context, tx store.Tx) {
			rows, err := tx.UserTopics(ctx, w.alice)
			is.NoErr(err)
			is.Equal(len(rows), 3)
			is.Equal(rows[0].StreamID, w.general.ID)                                                          // ordered by channel
			is.Equal(rows[0].TopicKey, store.TopicKey("a"))                                                   // then topic key
			is.Equal(rows[1].Topic, "lunch")                                                                  // the name as last set
			is.Equal(rows[1].Policy, store.PolicyFollowed)                                                    // the policy as last set
			is.True(rows[1].LastUpdated.Equal(epoch))                                                         // the time stored
			is.Equal(rows[2].StreamID, w.secret.ID)                                                           // the other channel last
			rows, err = tx.TopicUserTopics(ctx, w.general.ID, store.TopicKey("LUNCH"))                        //
			is.NoErr(err)                                                                                     //
			is.Equal([]store.UserID{rows[0].UserID, rows[1].UserID}, []store.UserID{w.alice, w.bob})          // every user's row of the topic, by user
			is.Equal([]store.VisibilityPolicy{rows[0].Policy, rows[1].Policy}, list(store.PolicyFollowed, 1)) //
		})
		is.True(setTopic(t, st, w.alice, w.general.ID, "lunch", store.PolicyInherit)) // inherit deletes the row
		view(t, st, func(ctx context.Context, tx store.Tx) {
			rows, err := tx.TopicUserTopics(ctx, w.general.ID, store.TopicKey("lunch"))
			is.NoErr(err)
			is.Equal(len(rows), 1) // only bob's is left
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			_, err := tx.SetUserTopic(ctx, &store.UserTopic{UserID: 999999, StreamID: w.general.ID, Topic: "x", Policy: store.PolicyMuted, LastUpdated: epoch})
			return err
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown user
		err = st.Update(ctx, func(tx store.Tx) error {
			_, err := tx.SetUserTopic(ctx, &store.UserTopic{UserID: w.alice, StreamID: 999999, Topic: "x", Policy: store.PolicyMuted, LastUpdated: epoch})
			return err
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown channel
	}},
	{"TopicFilter", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		quiet := newStream(t, st, w.realm, "quiet", false)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, s := range []*store.Stream{w.general, quiet} {
				is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: s.ID, UserID: w.alice, Active: true,
					SubscriptionProperties: store.SubscriptionProperties{IsMuted: s == quiet}}))
			}
		})
		dm := directRecipient(t, st, w.realm, w.alice, w.bob)
		ids := send(t, st,
			channelMessage(w.general, w.bob, "plain"),         // 0
			channelMessage(w.general, w.bob, "Muted"),         // 1
			channelMessage(w.general, w.bob, "followed"),      // 2
			channelMessage(quiet, w.bob, "plain"),             // 3: muted channel
			channelMessage(quiet, w.bob, "unmuted"),           // 4: unmuted in a muted channel
			channelMessage(quiet, w.bob, "followed"),          // 5: followed in a muted channel
			directMessage(w.realm, dm, w.bob, w.alice, w.bob), // 6
		)
		setTopic(t, st, w.alice, w.general.ID, "muted", store.PolicyMuted)
		setTopic(t, st, w.alice, w.general.ID, "FOLLOWED", store.PolicyFollowed)
		setTopic(t, st, w.alice, quiet.ID, "unmuted", store.PolicyUnmuted)
		setTopic(t, st, w.alice, quiet.ID, "followed", store.PolicyFollowed)
		setTopic(t, st, w.bob, w.general.ID, "plain", store.PolicyMuted) // another user's row changes nothing for alice
		pick := func(is ...int) []store.MessageID {
			out := []store.MessageID{}
			for _, i := range is {
				out = append(out, ids[i])
			}
			return out
		}
		for _, flagUser := range []store.UserID{0, w.alice} { // the plain and the received reads
			q := func(f store.TopicFilter) []store.MessageID {
				got := query(t, st, store.MessageQuery{RealmID: w.realm, FlagUser: flagUser, TopicUser: w.alice, TopicFilter: f})
				if got == nil {
					got = []store.MessageID{}
				}
				return got
			}
			is.Equal(q(store.TopicsAll), pick(0, 1, 2, 3, 4, 5, 6))          // no filter
			is.Equal(q(store.TopicsInHome), pick(0, 2, 4, 5, 6))             // muted topic and muted channel left out
			is.Equal(q(store.TopicsInHomeOfChannel), pick(0, 2, 3, 4, 5, 6)) // only the muted topic left out
			is.Equal(q(store.TopicsMuted), pick(1, 3))                       // what in:home leaves out
			is.Equal(q(store.TopicsFollowed), pick(2, 5))                    // followed topics
			// Combined, every condition holds.
			is.Equal(q(store.TopicsInHome|store.TopicsMuted), pick())                        // in:home and is:muted: nothing
			is.Equal(q(store.TopicsInHome|store.TopicsFollowed), pick(2, 5))                 // followed topics are in home
			is.Equal(q(store.TopicsMuted|store.TopicsFollowed), pick())                      // a followed topic is never muted
			is.Equal(q(store.TopicsInHomeOfChannel|store.TopicsMuted), pick(3))              // muted by its channel, not its topic
			is.Equal(q(store.TopicsInHome|store.TopicsInHomeOfChannel), pick(0, 2, 4, 5, 6)) // the stricter wins
		}
		got := query(t, st, store.MessageQuery{RealmID: w.realm, TopicUser: w.bob, TopicFilter: store.TopicsMuted})
		is.Equal(got, pick(0)) // bob's own rows; bob subscribes to nothing muted
	}},
	{"MutedUsers", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.AddMutedUser(ctx, store.MutedUser{UserID: w.alice, MutedUserID: w.carol, DateMuted: epoch}))
			is.NoErr(tx.AddMutedUser(ctx, store.MutedUser{UserID: w.alice, MutedUserID: w.bob, DateMuted: epoch}))
			is.NoErr(tx.AddMutedUser(ctx, store.MutedUser{UserID: w.bob, MutedUserID: w.carol, DateMuted: epoch}))
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ms, err := tx.MutedUsers(ctx, w.alice)
			is.NoErr(err)
			is.Equal(len(ms), 2)
			is.Equal([]store.UserID{ms[0].MutedUserID, ms[1].MutedUserID}, []store.UserID{w.bob, w.carol}) // by muted user
			is.True(ms[0].DateMuted.Equal(epoch))                                                          // time stored
			muters, err := tx.MutersOf(ctx, w.carol)
			is.NoErr(err)
			is.Equal(muters, []store.UserID{w.alice, w.bob}) // who muted carol, ascending
			muters, err = tx.MutersOf(ctx, w.alice)
			is.NoErr(err)
			is.Equal(len(muters), 0) // nobody muted alice
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.AddMutedUser(ctx, store.MutedUser{UserID: w.alice, MutedUserID: w.bob, DateMuted: epoch})
		})
		is.True(errors.Is(err, store.ErrConflict)) // muted twice
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.AddMutedUser(ctx, store.MutedUser{UserID: w.alice, MutedUserID: 999999, DateMuted: epoch})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown user
		update(t, st, func(ctx context.Context, tx store.Tx) { is.NoErr(tx.RemoveMutedUser(ctx, w.alice, w.bob)) })
		err = st.Update(ctx, func(tx store.Tx) error { return tx.RemoveMutedUser(ctx, w.alice, w.bob) })
		is.True(errors.Is(err, store.ErrNotFound)) // not muted any more
	}},
	{"UserStatuses", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ctx := context.Background()
		err := st.View(ctx, func(tx store.Tx) error { _, err := tx.UserStatus(ctx, w.alice); return err })
		is.True(errors.Is(err, store.ErrNotFound)) // no status yet
		s := store.UserStatus{UserID: w.bob, RealmID: w.realm, StatusText: "out", EmojiName: "car", EmojiCode: "1f697", ReactionType: "unicode_emoji", Updated: epoch}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutUserStatus(ctx, store.UserStatus{UserID: w.bob, RealmID: w.realm, StatusText: "first", Updated: epoch}))
			is.NoErr(tx.PutUserStatus(ctx, s)) // replaces
			is.NoErr(tx.PutUserStatus(ctx, store.UserStatus{UserID: w.alice, RealmID: w.realm, StatusText: "here", ReactionType: "unicode_emoji", Updated: epoch}))
			is.NoErr(tx.PutUserStatus(ctx, store.UserStatus{UserID: w.zed, RealmID: w.other, StatusText: "elsewhere", Updated: epoch}))
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.UserStatus(ctx, w.bob)
			is.NoErr(err)
			is.True(got.Updated.Equal(s.Updated))
			got.Updated = s.Updated
			is.Equal(*got, s) // every field stored, the last put kept
			all, err := tx.UserStatuses(ctx, w.realm)
			is.NoErr(err)
			is.Equal(len(all), 2) // the realm's only
			is.Equal([]store.UserID{all[0].UserID, all[1].UserID}, []store.UserID{w.alice, w.bob})
		})
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.PutUserStatus(ctx, store.UserStatus{UserID: 999999, RealmID: w.realm, Updated: epoch})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown user
	}},
	{"AlertWords", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.AddAlertWords(ctx, w.realm, w.alice, []string{"Lunch", "coffee", "LUNCH", "tea"}))
			is.NoErr(tx.AddAlertWords(ctx, w.realm, w.alice, []string{"lunch", "Cake"}))
			is.NoErr(tx.AddAlertWords(ctx, w.realm, w.bob, []string{"deploy"}))
			is.NoErr(tx.AddAlertWords(ctx, w.other, w.zed, []string{"zed"}))
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ws, err := tx.AlertWords(ctx, w.alice)
			is.NoErr(err)
			is.Equal(ws, []string{"Lunch", "coffee", "tea", "Cake"}) // as added, repeats in any case skipped
			all, err := tx.RealmAlertWords(ctx, w.realm)
			is.NoErr(err)
			is.Equal(len(all), 5)                                            // the realm's only
			is.Equal(all[4], store.AlertWord{UserID: w.bob, Word: "deploy"}) // by user, then as added
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.RemoveAlertWords(ctx, w.alice, []string{"LUNCH", "nothing", "tea"}))
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			ws, err := tx.AlertWords(ctx, w.alice)
			is.NoErr(err)
			is.Equal(ws, []string{"coffee", "Cake"}) // removed in any case
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error { return tx.AddAlertWords(ctx, w.realm, 999999, []string{"x"}) })
		is.True(errors.Is(err, store.ErrNotFound)) // unknown user
	}},
}
