package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/matryer/is"
)

// message reads one message that must exist.
func message(tb testing.TB, st chatcore.Store, id chatcore.MessageID) *chatcore.Message {
	tb.Helper()
	var m *chatcore.Message
	view(tb, st, func(ctx context.Context, tx chatcore.Tx) {
		var err error
		m, err = tx.Message(ctx, id)
		is.New(tb).NoErr(err) // message read
	})
	return m
}

var messageEditTests = []test{
	{"EditMessage overwrites the edit's fields and prepends history", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		m := channelMessage(w.general, w.alice, "old")
		m.Reactions = []chatcore.Reaction{{UserID: w.bob, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}}
		m.EditHistory = []chatcore.EditHistoryEntry{{UserID: w.alice, Timestamp: epoch, PrevContent: "first", PrevRenderedContent: "<p>first</p>"}}
		id := send(t, st, m)[0]
		edited := *message(t, st, id)
		edited.Content, edited.RenderedContent, edited.IsMeMessage = "new", "<p>new</p>", true
		edited.DefaultFlags = chatcore.FlagStreamWildcardMentioned
		edited.Topic = "New"
		edited.LastEditedAt, edited.LastMovedAt = epoch.Add(time.Hour), epoch.Add(2*time.Hour)
		old, topic := "old", "New"
		entry := chatcore.EditHistoryEntry{UserID: w.bob, Timestamp: epoch.Add(time.Hour), PrevContent: "hello",
			PrevRenderedContent: "<p>hello</p>", PrevTopic: &old, Topic: &topic}
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.EditMessage(ctx, &edited, entry)) // edit stored
			missing := edited
			missing.ID = 999999
			err := tx.EditMessage(ctx, &missing, entry)
			is.True(errors.Is(err, chatcore.ErrNotFound)) // unknown message
		})
		got := message(t, st, id)
		is.Equal(got.Content, "new")
		is.Equal(got.RenderedContent, "<p>new</p>")
		is.True(got.IsMeMessage)
		is.Equal(got.DefaultFlags, chatcore.FlagStreamWildcardMentioned)
		is.Equal(got.Topic, "New")
		is.Equal(got.TopicKey, chatcore.TopicKey("New")) // key follows the topic
		is.True(got.LastEditedAt.Equal(epoch.Add(time.Hour)))
		is.True(got.LastMovedAt.Equal(epoch.Add(2 * time.Hour)))
		is.Equal(len(got.Reactions), 1)                                                                                                    // reactions kept
		is.Equal(len(got.EditHistory), 2)                                                                                                  // entry added
		is.Equal(got.EditHistory[0].UserID, w.bob)                                                                                         // most recent first
		is.Equal(*got.EditHistory[0].PrevTopic, "old")                                                                                     // topic change recorded
		is.Equal(got.EditHistory[0].PrevContent, "hello")                                                                                  // content change recorded
		is.Equal(got.EditHistory[1].PrevContent, "first")                                                                                  // older entry kept
		is.Equal(query(t, st, chatcore.MessageQuery{RealmID: w.realm, TopicKey: new(chatcore.TopicKey("new"))}), []chatcore.MessageID{id}) // found by its new topic
	}},
	{"MoveMessages within a channel", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ids := send(t, st, channelMessage(w.general, w.alice, "A"), channelMessage(w.general, w.bob, "a"),
			channelMessage(w.general, w.alice, "other"), channelMessage(w.general, w.alice, "A"),
			channelMessage(w.secret, w.alice, "A"))
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []chatcore.UserMessageFlags{{UserID: w.bob, MessageID: ids[0], Flags: chatcore.FlagStarred}}))
		})
		prev, topic := "A", "B"
		mv := chatcore.MessageMove{RealmID: w.realm, StreamID: w.general.ID, TopicKey: chatcore.TopicKey("a"),
			ToStream: w.general.ID, ToRecipient: w.general.RecipientID, ToTopic: "B", MovedAt: epoch.Add(time.Hour),
			Entry: chatcore.EditHistoryEntry{UserID: w.carol, Timestamp: epoch.Add(time.Hour), PrevTopic: &prev, Topic: &topic}}
		var first, second, third []chatcore.MessageID
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
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
		is.Equal(first, []chatcore.MessageID{ids[0], ids[1]}) // lowest ids first, topic folded
		is.Equal(second, []chatcore.MessageID{ids[3]})        // the rest of the topic
		is.Equal(len(third), 0)
		m := message(t, st, ids[1])
		is.Equal(m.Topic, "B")
		is.True(m.LastMovedAt.Equal(epoch.Add(time.Hour)))
		is.Equal(len(m.EditHistory), 1)
		is.Equal(*m.EditHistory[0].Topic, "B")
		is.Equal(message(t, st, ids[2]).Topic, "other")                                  // other topic untouched
		is.Equal(message(t, st, ids[4]).Topic, "A")                                      // other channel untouched
		is.Equal(userMessages(t, st, w.bob, ids[0])[ids[0]].Flags, chatcore.FlagStarred) // flags stay within a channel
		is.Equal(query(t, st, chatcore.MessageQuery{RealmID: w.realm, Recipients: []chatcore.RecipientID{w.general.RecipientID},
			TopicKey: new(chatcore.TopicKey("b"))}), []chatcore.MessageID{ids[0], ids[1], ids[3]}) // found under the new topic

		// BeforeID bounds the range.
		back := mv
		back.TopicKey, back.ToTopic, back.MinID, back.BeforeID = chatcore.TopicKey("B"), "A", 0, ids[1]
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			got, err := tx.MoveMessages(ctx, back, 10)
			is.NoErr(err)
			is.Equal(got, []chatcore.MessageID{ids[0]}) // only ids below BeforeID
		})
	}},
	{"MoveMessages to another channel carries flags over", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			for _, s := range []chatcore.Subscription{
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
		m.DefaultFlags = chatcore.FlagStreamWildcardMentioned
		id := send(t, st, m)[0]
		other := send(t, st, channelMessage(w.secret, w.alice, "x"))[0] // not moved
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.PutUserMessageFlags(ctx, []chatcore.UserMessageFlags{
				{UserID: w.bob, MessageID: id, Flags: chatcore.FlagRead | chatcore.FlagStarred},
				{UserID: w.carol, MessageID: id, Flags: chatcore.FlagRead},
			}))
		})
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			got, err := tx.MoveMessages(ctx, chatcore.MessageMove{RealmID: w.realm, StreamID: w.general.ID, TopicKey: "t",
				ToStream: w.secret.ID, ToRecipient: w.secret.RecipientID, ToTopic: "t", MovedAt: epoch}, 10)
			is.NoErr(err)
			is.Equal(got, []chatcore.MessageID{id})
		})
		moved := message(t, st, id)
		is.Equal(moved.StreamID, w.secret.ID)
		is.Equal(moved.RecipientID, w.secret.RecipientID)
		is.Equal(userMessages(t, st, w.bob, id)[id].Flags, chatcore.FlagRead|chatcore.FlagStarred) // a row is kept
		alice := userMessages(t, st, w.alice, id)[id]
		is.True(alice.Received)                                     // still received though her new subscription starts later
		is.Equal(alice.Flags, chatcore.FlagStreamWildcardMentioned) // the derived flags she had
		is.True(!userMessages(t, st, w.carol, id)[id].Received)     // not subscribed to the new channel: row gone
		is.True(userMessages(t, st, w.bob, other)[other].Received)  // other messages untouched
		var rows []chatcore.UserMessageFlags
		view(t, st, func(ctx context.Context, tx chatcore.Tx) {
			var err error
			rows, err = tx.MessageFlagRows(ctx, id)
			is.NoErr(err)
		})
		is.Equal(rows, []chatcore.UserMessageFlags{
			{UserID: w.alice, MessageID: id, Flags: chatcore.FlagStreamWildcardMentioned},
			{UserID: w.bob, MessageID: id, Flags: chatcore.FlagRead | chatcore.FlagStarred},
		}) // every active subscriber of the new channel has a row, by user
	}},
	{"MoveMessages gives new subscribers read rows", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		id := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		update(t, st, func(ctx context.Context, tx chatcore.Tx) {
			is.NoErr(tx.PutSubscription(ctx, chatcore.Subscription{StreamID: w.secret.ID, UserID: w.carol, Active: true}))
			_, err := tx.MoveMessages(ctx, chatcore.MessageMove{RealmID: w.realm, StreamID: w.general.ID, TopicKey: "t",
				ToStream: w.secret.ID, ToRecipient: w.secret.RecipientID, ToTopic: "t", MovedAt: epoch}, 10)
			is.NoErr(err)
		})
		um := userMessages(t, st, w.carol, id)[id]
		is.True(um.Received)                  // carol has the message now
		is.Equal(um.Flags, chatcore.FlagRead) // but it is not unread for her
	}},
	{"DeleteMessages by ids", func(t *testing.T, st chatcore.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ids := send(t, st, channelMessage(w.general, w.alice, "t"), channelMessage(w.general, w.alice, "t"),
			channelMessage(w.general, w.alice, "t"))
		del := deleteBatch(t, st, chatcore.MessageFilter{RealmID: w.realm, IDs: []chatcore.MessageID{ids[1], 999999}}, 10)
		is.Equal(len(del), 1)
		is.Equal(del[0].ID, ids[1])                                                                                     // only the listed id
		is.Equal(len(deleteBatch(t, st, chatcore.MessageFilter{RealmID: w.realm, IDs: []chatcore.MessageID{}}, 10)), 0) // empty list: nothing
		is.Equal(len(deleteBatch(t, st, chatcore.MessageFilter{RealmID: w.other, IDs: ids}, 10)), 0)                    // other realm: nothing
	}},
}
