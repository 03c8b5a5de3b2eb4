package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// message reads one message that must exist.
func message(tb testing.TB, st store.Store, id store.MessageID) *store.Message {
	tb.Helper()
	var m *store.Message
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		var err error
		m, err = tx.Message(ctx, id)
		is.New(tb).NoErr(err) // message read
	})
	return m
}

var messageEditTests = []test{
	{"SetRenderedContent overwrites the rendering alone", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		m := channelMessage(w.general, w.alice, "t")
		m.EditHistory = []store.EditHistoryEntry{{UserID: w.alice, Timestamp: epoch, PrevContent: "first", PrevRenderedContent: "<p>first</p>"}}
		id := send(t, st, m)[0]
		before := *message(t, st, id)
		ctx := context.Background()
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.SetRenderedContent(ctx, id, "<p>thumbnailed</p>")) // stored
		})
		err := st.Update(ctx, func(tx store.Tx) error { return tx.SetRenderedContent(ctx, 999999, "x") })
		is.True(errors.Is(err, store.ErrNotFound)) // unknown message
		got := message(t, st, id)
		is.Equal(got.RenderedContent, "<p>thumbnailed</p>")
		is.Equal(got.Content, before.Content)                // content kept
		is.Equal(len(got.EditHistory), 1)                    // no history entry
		is.True(got.LastEditedAt.Equal(before.LastEditedAt)) // not an edit
	}},
	{"EditMessage overwrites the edit's fields and prepends history", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		m := channelMessage(w.general, w.alice, "old")
		m.Reactions = []store.Reaction{{UserID: w.bob, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}}
		m.EditHistory = []store.EditHistoryEntry{{UserID: w.alice, Timestamp: epoch, PrevContent: "first", PrevRenderedContent: "<p>first</p>"}}
		id := send(t, st, m)[0]
		edited := *message(t, st, id)
		edited.Content, edited.RenderedContent, edited.IsMeMessage = "new", "<p>new</p>", true
		edited.DefaultFlags = store.FlagStreamWildcardMentioned
		edited.Topic = "New"
		edited.LastEditedAt, edited.LastMovedAt = epoch.Add(time.Hour), epoch.Add(2*time.Hour)
		old, topic := "old", "New"
		entry := store.EditHistoryEntry{UserID: w.bob, Timestamp: epoch.Add(time.Hour), PrevContent: "hello",
			PrevRenderedContent: "<p>hello</p>", PrevTopic: &old, Topic: &topic}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.EditMessage(ctx, &edited, entry)) // edit stored
			missing := edited
			missing.ID = 999999
			err := tx.EditMessage(ctx, &missing, entry)
			is.True(errors.Is(err, store.ErrNotFound)) // unknown message
		})
		got := message(t, st, id)
		is.Equal(got.Content, "new")
		is.Equal(got.RenderedContent, "<p>new</p>")
		is.True(got.IsMeMessage)
		is.Equal(got.DefaultFlags, store.FlagStreamWildcardMentioned)
		is.Equal(got.Topic, "New")
		is.Equal(got.TopicKey, store.TopicKey("New")) // key follows the topic
		is.True(got.LastEditedAt.Equal(epoch.Add(time.Hour)))
		is.True(got.LastMovedAt.Equal(epoch.Add(2 * time.Hour)))
		is.Equal(len(got.Reactions), 1)                                                                                           // reactions kept
		is.Equal(len(got.EditHistory), 2)                                                                                         // entry added
		is.Equal(got.EditHistory[0].UserID, w.bob)                                                                                // most recent first
		is.Equal(*got.EditHistory[0].PrevTopic, "old")                                                                            // topic change recorded
		is.Equal(got.EditHistory[0].PrevContent, "hello")                                                                         // content change recorded
		is.Equal(got.EditHistory[1].PrevContent, "first")                                                                         // older entry kept
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, TopicKey: new(store.TopicKey("new"))}), []store.MessageID{id}) // found by its new topic
	}},
	{"MoveMessages within a channel", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ids := send(t, st, channelMessage(w.general, w.alice, "A"), channelMessage(w.general, w.bob, "a"),
			channelMessage(w.general, w.alice, "other"), channelMessage(w.general, w.alice, "A"),
			channelMessage(w.secret, w.alice, "A"))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{{UserID: w.bob, MessageID: ids[0], Flags: store.FlagStarred}}))
		})
		prev, topic := "A", "B"
		mv := store.MessageMove{RealmID: w.realm, StreamID: w.general.ID, TopicKey: store.TopicKey("a"),
			ToStream: w.general.ID, ToRecipient: w.general.RecipientID, ToTopic: "B", MovedAt: epoch.Add(time.Hour),
			Entry: store.EditHistoryEntry{UserID: w.carol, Timestamp: epoch.Add(time.Hour), PrevTopic: &prev, Topic: &topic}}
		var first, second, third []store.MessageID
		update(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			first, err = tx.MoveMessages(ctx, mv, 2)
			is.NoErr(err) // first batch
			mv.MinID = first[len(first)-1] + 1
			second, err = tx.MoveMessages(ctx, mv, 2)
			is.NoErr(err) // second batch
			third, err = tx.MoveMessages(ctx, mv, 2)
			is.NoErr(err) // the cursor stays: nothing at or after it is left in the old topic
			_, err = tx.MoveMessages(ctx, mv, 0)
			is.True(err != nil) // a limit must be positive
		})
		is.Equal(first, []store.MessageID{ids[0], ids[1]}) // lowest ids first, topic folded
		is.Equal(second, []store.MessageID{ids[3]})        // the rest of the topic
		is.Equal(len(third), 0)
		m := message(t, st, ids[1])
		is.Equal(m.Topic, "B")
		is.True(m.LastMovedAt.Equal(epoch.Add(time.Hour)))
		is.Equal(len(m.EditHistory), 1)
		is.Equal(*m.EditHistory[0].Topic, "B")
		is.Equal(message(t, st, ids[2]).Topic, "other")                               // other topic untouched
		is.Equal(message(t, st, ids[4]).Topic, "A")                                   // other channel untouched
		is.Equal(userMessages(t, st, w.bob, ids[0])[ids[0]].Flags, store.FlagStarred) // flags stay within a channel
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{w.general.RecipientID},
			TopicKey: new(store.TopicKey("b"))}), []store.MessageID{ids[0], ids[1], ids[3]}) // found under the new topic

		// BeforeID bounds the range.
		back := mv
		back.TopicKey, back.ToTopic, back.MinID, back.BeforeID = store.TopicKey("B"), "A", 0, ids[1]
		update(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.MoveMessages(ctx, back, 10)
			is.NoErr(err)
			is.Equal(got, []store.MessageID{ids[0]}) // only ids below BeforeID
		})
	}},
	{"MoveMessages to another channel carries flags over", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, s := range []store.Subscription{
				{StreamID: w.general.ID, UserID: w.alice, Active: true},
				{StreamID: w.general.ID, UserID: w.bob, Active: true},
				{StreamID: w.general.ID, UserID: w.carol, Active: true},
				{StreamID: w.secret.ID, UserID: w.alice, Active: true, SinceMessageID: 999999}, // joined later
				{StreamID: w.secret.ID, UserID: w.bob, Active: true},
			} {
				is.NoErr(tx.PutSubscription(ctx, s))
			}
		})
		m := channelMessage(w.general, w.alice, "t")
		m.DefaultFlags = store.FlagStreamWildcardMentioned
		id := send(t, st, m)[0]
		other := send(t, st, channelMessage(w.secret, w.alice, "x"))[0] // not moved
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{
				{UserID: w.bob, MessageID: id, Flags: store.FlagRead | store.FlagStarred},
				{UserID: w.carol, MessageID: id, Flags: store.FlagRead},
			}))
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.MoveMessages(ctx, store.MessageMove{RealmID: w.realm, StreamID: w.general.ID, TopicKey: "t",
				ToStream: w.secret.ID, ToRecipient: w.secret.RecipientID, ToTopic: "t", MovedAt: epoch}, 10)
			is.NoErr(err)
			is.Equal(got, []store.MessageID{id})
		})
		moved := message(t, st, id)
		is.Equal(moved.StreamID, w.secret.ID)
		is.Equal(moved.RecipientID, w.secret.RecipientID)
		is.Equal(userMessages(t, st, w.bob, id)[id].Flags, store.FlagRead|store.FlagStarred) // a row is kept
		alice := userMessages(t, st, w.alice, id)[id]
		is.True(alice.Received)                                                 // still received though her new subscription starts later
		is.Equal(alice.Flags, store.FlagRead|store.FlagStreamWildcardMentioned) // the derived flags she had (her own message: read)
		is.True(!userMessages(t, st, w.carol, id)[id].Received)                 // not subscribed to the new channel: row gone
		is.True(userMessages(t, st, w.bob, other)[other].Received)              // other messages untouched
		var rows []store.UserMessageFlags
		view(t, st, func(ctx context.Context, tx store.Tx) {
			var err error
			rows, err = tx.MessageFlagRows(ctx, id)
			is.NoErr(err)
		})
		is.Equal(rows, []store.UserMessageFlags{
			{UserID: w.alice, MessageID: id, Flags: store.FlagRead | store.FlagStreamWildcardMentioned},
			{UserID: w.bob, MessageID: id, Flags: store.FlagRead | store.FlagStarred},
		}) // every active subscriber of the new channel has a row, by user
	}},
	{"MoveMessages gives new subscribers read rows", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		id := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.PutSubscription(ctx, store.Subscription{StreamID: w.secret.ID, UserID: w.carol, Active: true}))
			_, err := tx.MoveMessages(ctx, store.MessageMove{RealmID: w.realm, StreamID: w.general.ID, TopicKey: "t",
				ToStream: w.secret.ID, ToRecipient: w.secret.RecipientID, ToTopic: "t", MovedAt: epoch}, 10)
			is.NoErr(err)
		})
		um := userMessages(t, st, w.carol, id)[id]
		is.True(um.Received)               // carol has the message now
		is.Equal(um.Flags, store.FlagRead) // but it is not unread for her
	}},
	{"DeleteMessages by ids", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ids := send(t, st, channelMessage(w.general, w.alice, "t"), channelMessage(w.general, w.alice, "t"),
			channelMessage(w.general, w.alice, "t"))
		del := deleteBatch(t, st, store.MessageFilter{RealmID: w.realm, IDs: []store.MessageID{ids[1], 999999}}, 10)
		is.Equal(len(del), 1)
		is.Equal(del[0].ID, ids[1])                                                                               // only the listed id
		is.Equal(len(deleteBatch(t, st, store.MessageFilter{RealmID: w.realm, IDs: []store.MessageID{}}, 10)), 0) // empty list: nothing
		is.Equal(len(deleteBatch(t, st, store.MessageFilter{RealmID: w.other, IDs: ids}, 10)), 0)                 // other realm: nothing
	}},
}
