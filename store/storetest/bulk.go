package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// bulkMessages returns n unsaved messages of w of every shape: channel
// messages in both channels and several topics, direct messages, some with
// reactions, edit history or submessages, all ids zero.
func bulkMessages(w *world, dm store.RecipientID, n int) []*store.Message {
	ms := make([]*store.Message, n)
	for i := range ms {
		var m *store.Message
		switch {
		case i%5 == 4:
			m = directMessage(w.realm, dm, w.bob, w.alice, w.bob)
		case i%3 == 2:
			m = channelMessage(w.secret, w.alice, fmt.Sprintf("Topic %d", i%4))
		default:
			m = channelMessage(w.general, w.carol, fmt.Sprintf("Straße %d", i%7))
		}
		m.Content = fmt.Sprintf("message %d", i)
		m.RenderedContent = "<p>" + m.Content + "</p>"
		m.SentAt = epoch.Add(time.Duration(i) * time.Second)
		m.DefaultFlags = store.MessageFlags(i % 2)
		m.IsMeMessage = i%11 == 0
		if i%7 == 1 {
			m.Reactions = []store.Reaction{
				{UserID: w.bob, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"},
				{UserID: w.alice, EmojiName: "tada", EmojiCode: "1f389", ReactionType: "unicode_emoji"},
			}
		}
		if i%13 == 3 {
			m.LastEditedAt = epoch.Add(time.Hour)
			m.EditHistory = []store.EditHistoryEntry{
				{UserID: w.alice, Timestamp: epoch.Add(time.Hour), PrevTopic: ptr("old"), Topic: ptr(m.Topic), PrevStreamID: w.secret.ID, StreamID: w.general.ID},
				{UserID: w.alice, Timestamp: epoch.Add(time.Minute), PrevContent: "helo", PrevRenderedContent: "<p>helo</p>"},
			}
		}
		if i%17 == 5 {
			m.Submessages = []store.Submessage{{SenderID: w.bob, MsgType: "widget", Content: fmt.Sprintf(`{"n":%d}`, i)}}
		}
		ms[i] = m
	}
	return ms
}

// cloneUnsaved returns a copy of m with its id, and its submessages' ids,
// zero, sharing nothing with m.
func cloneUnsaved(m *store.Message) *store.Message {
	c := *m
	c.ID, c.TopicKey = 0, ""
	c.DirectMembers = slices.Clone(m.DirectMembers)
	c.Reactions = slices.Clone(m.Reactions)
	c.EditHistory = slices.Clone(m.EditHistory)
	c.Submessages = slices.Clone(m.Submessages)
	for i := range c.Submessages {
		c.Submessages[i].ID, c.Submessages[i].MessageID = 0, 0
	}
	return &c
}

// withoutIDs is normMessage with the message's and its submessages' ids
// zero, for comparing two stored copies of one message.
func withoutIDs(m store.Message) store.Message {
	m = normMessage(m)
	m.ID = 0
	m.Submessages = slices.Clone(m.Submessages)
	for i := range m.Submessages {
		m.Submessages[i].ID, m.Submessages[i].MessageID = 0, 0
	}
	return m
}

// allMessages reads every message of the realm, oldest first.
func allMessages(tb testing.TB, st store.Store, realm store.RealmID) []store.Message {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var msgs []store.Message
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		var err error
		msgs, err = tx.Messages(ctx, store.MessageQuery{RealmID: realm})
		is.NoErr(err) // messages read
	})
	return msgs
}

var bulkTests = []test{
	{"CreateMessagesAsCreateMessage", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		dm := directRecipient(t, st, w.realm, w.alice, w.bob)
		// More messages than one statement of a SQL store holds, so that
		// the batch is split.
		ms := bulkMessages(w, dm, 700)
		one := make([]*store.Message, len(ms))
		for i, m := range ms {
			one[i] = cloneUnsaved(m)
		}
		send(t, st, one...)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateMessages(ctx, ms)) // the batch is written
		})
		got := allMessages(t, st, w.realm)
		is.Equal(len(got), 2*len(ms)) // every message of both ways is stored
		byID := map[store.MessageID]store.Message{}
		for _, g := range got {
			byID[g.ID] = g
		}
		for i, m := range ms {
			is.True(m.ID > one[len(one)-1].ID)           // a zero id goes above every id used before
			is.True(i == 0 || m.ID > ms[i-1].ID)         // and above the ids before it in the batch
			is.Equal(m.TopicKey, store.FoldKey(m.Topic)) // TopicKey set on the caller's value
			g, ok := byID[m.ID]
			is.True(ok) // the message is stored under the id it was given
			for _, s := range m.Submessages {
				is.True(s.ID > 0)           // submessage ids filled in
				is.Equal(s.MessageID, m.ID) // submessages belong to their message
			}
			is.Equal(normMessage(g).Submessages, normMessage(*m).Submessages) // the caller's submessages are as stored
			is.Equal(withoutIDs(g), withoutIDs(byID[one[i].ID]))              // stored exactly as CreateMessage stores it
		}
		// Ids after the batch go above it.
		next := send(t, st, channelMessage(w.general, w.alice, "after"))
		is.True(next[0] > ms[len(ms)-1].ID) // a later message goes above the batch
	}},
	{"CreateMessagesIDs", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		before := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		ms := bulkMessages(w, directRecipient(t, st, w.realm, w.alice, w.bob), 8)
		ms[1].ID = before + 1000 // explicit ids are kept
		ms[4].ID = before + 500  // also below an earlier explicit one
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateMessages(ctx, ms)) // written
		})
		is.True(ms[0].ID > before)      // a zero id goes above every id used
		is.Equal(ms[1].ID, before+1000) // an explicit id is kept
		is.True(ms[2].ID > before+1000) // a zero id goes above the explicit ids before it
		is.True(ms[3].ID > ms[2].ID)    // and above the ids given before it
		is.Equal(ms[4].ID, before+500)  // a lower explicit id is kept
		is.True(ms[5].ID > ms[3].ID)    // the next zero id still goes above all
		is.True(ms[7].ID > ms[6].ID)    // ids ascend
		var ids []store.MessageID
		for _, m := range allMessages(t, st, w.realm) {
			ids = append(ids, m.ID)
		}
		want := []store.MessageID{before}
		for _, m := range ms {
			want = append(want, m.ID)
		}
		slices.Sort(want)
		is.Equal(ids, want) // every message stored under its id
		next := send(t, st, channelMessage(w.general, w.alice, "after"))
		is.True(next[0] > ms[7].ID) // later ids go above the batch
	}},
	{"CreateMessagesConflict", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		taken := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		ctx := context.Background()
		for _, tc := range []struct {
			name string
			ids  []store.MessageID
		}{
			{"with the store", []store.MessageID{taken + 10, 0, taken, 0}},
			{"within the batch", []store.MessageID{taken + 20, taken + 21, taken + 20}},
			{"in a later statement", append(make([]store.MessageID, 600), taken)},
		} {
			ms := bulkMessages(w, directRecipient(t, st, w.realm, w.alice, w.bob), len(tc.ids))
			for i, id := range tc.ids {
				ms[i].ID = id
			}
			var bulkErr error
			err := st.Update(ctx, func(tx store.Tx) error {
				bulkErr = tx.CreateMessages(ctx, ms)
				return bulkErr
			})
			is.True(errors.Is(bulkErr, store.ErrConflict)) // a duplicate id gives ErrConflict
			is.True(err != nil)                            // and fails the transaction
			got := allMessages(t, st, w.realm)
			is.Equal(messageIDs(got), []store.MessageID{taken}) // the failed batch left nothing
			is.Equal(got[0].Topic, "t")                         // and the stored message is untouched
		}
	}},
	{"CreateMessagesRollback", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ctx := context.Background()
		boom := errors.New("late failure")
		ms := bulkMessages(w, directRecipient(t, st, w.realm, w.alice, w.bob), 300)
		err := st.Update(ctx, func(tx store.Tx) error {
			is.NoErr(tx.CreateMessages(ctx, ms)) // written in the transaction
			msgs, err := tx.Messages(ctx, store.MessageQuery{RealmID: w.realm})
			is.NoErr(err)                // readable in it
			is.Equal(len(msgs), len(ms)) // the transaction sees the batch
			return boom
		})
		is.True(errors.Is(err, boom))                 // the transaction failed
		is.Equal(len(allMessages(t, st, w.realm)), 0) // and nothing of the batch is left
		view(t, st, func(ctx context.Context, tx store.Tx) {
			for _, m := range ms {
				if len(m.Reactions) > 0 {
					rs, err := tx.Message(ctx, m.ID)
					is.True(errors.Is(err, store.ErrNotFound)) // nor of its children
					is.True(rs == nil)                         // no message
				}
			}
		})
	}},
	{"CreateMessagesEmptyAndReadOnly", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateMessages(ctx, nil)) // no messages is no error
		})
		is.Equal(len(allMessages(t, st, w.realm)), 0) // and writes nothing
		ctx := context.Background()
		_ = st.View(ctx, func(tx store.Tx) error {
			err := tx.CreateMessages(ctx, []*store.Message{channelMessage(w.general, w.alice, "t")})
			is.True(err != nil) // a View cannot write
			return nil
		})
		is.Equal(len(allMessages(t, st, w.realm)), 0) // nothing written
	}},
}
