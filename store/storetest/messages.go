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

// world is a small organization: three users, a bot, a public and an
// invite-only channel, plus a second realm with a user and a channel.
type world struct {
	realm, other      store.RealmID
	alice, bob, carol store.UserID
	bot               store.UserID // a generic bot owned by alice
	zed               store.UserID // of the other realm
	general, secret   *store.Stream
	elsewhere         *store.Stream // of the other realm
}

func newWorld(tb testing.TB, st store.Store) *world {
	tb.Helper()
	w := &world{realm: newRealm(tb, st, "acme"), other: newRealm(tb, st, "other")}
	ids := newUsers(tb, st, human(w.realm, "alice@x.test"), human(w.realm, "bob@x.test"),
		human(w.realm, "carol@x.test"), human(w.other, "zed@x.test"))
	w.alice, w.bob, w.carol, w.zed = ids[0], ids[1], ids[2], ids[3]
	w.bot = newUsers(tb, st, bot(w.realm, "bot@x.test", w.alice))[0]
	w.general = newStream(tb, st, w.realm, "general", false)
	w.secret = newStream(tb, st, w.realm, "secret", true)
	w.elsewhere = newStream(tb, st, w.other, "general", false)
	return w
}

// query runs Messages and returns the ids, having checked that MessageIDs
// answers the same ids in the same order.
func query(tb testing.TB, st store.Store, q store.MessageQuery) []store.MessageID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var got []store.MessageID
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		msgs, err := tx.Messages(ctx, q)
		is.NoErr(err) // messages queried
		got = messageIDs(msgs)
		ids, err := tx.MessageIDs(ctx, q)
		is.NoErr(err)                        // ids queried
		is.Equal(list(ids...), list(got...)) // MessageIDs answers the ids of Messages, in its order
	})
	return got
}

// deleteBatch runs DeleteMessages in its own transaction.
func deleteBatch(tb testing.TB, st store.Store, f store.MessageFilter, limit int) []store.DeletedMessage {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var del []store.DeletedMessage
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		var err error
		del, err = tx.DeleteMessages(ctx, f, limit)
		is.NoErr(err) // messages deleted
	})
	return del
}

var messageTests = []test{
	{"CreateAndRead", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		m := channelMessage(w.general, w.alice, "Straße")
		m.TopicKey = "stale"
		m.LastEditedAt, m.LastMovedAt, m.IsMeMessage = epoch.Add(time.Minute), epoch.Add(2*time.Minute), true
		m.Reactions = []store.Reaction{
			{UserID: w.bob, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"},
			{UserID: w.carol, EmojiName: "tada", EmojiCode: "1f389", ReactionType: "unicode_emoji"},
		}
		m.EditHistory = []store.EditHistoryEntry{
			{UserID: w.alice, Timestamp: epoch.Add(2 * time.Minute), PrevTopic: ptr("old"), Topic: ptr("Straße"), PrevStreamID: w.secret.ID, StreamID: w.general.ID},
			{UserID: w.alice, Timestamp: epoch.Add(time.Minute), PrevContent: "helo", PrevRenderedContent: "<p>helo</p>"},
		}
		m.Submessages = []store.Submessage{{SenderID: w.bob, MsgType: "widget", Content: `{"type":"vote"}`}}
		want := *m
		send(t, st, m)
		is.True(m.ID > 0)                             // id filled in
		is.Equal(m.TopicKey, store.FoldKey("Straße")) // TopicKey set on the caller's value
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Message(ctx, m.ID)
			is.NoErr(err)                                // message found
			is.Equal(len(got.Submessages), 1)            // submessage stored
			is.True(got.Submessages[0].ID > 0)           // submessage has an id
			is.Equal(got.Submessages[0].MessageID, m.ID) // submessage belongs to the message
			want.ID, want.TopicKey = m.ID, store.FoldKey("Straße")
			want.Submessages = []store.Submessage{{ID: got.Submessages[0].ID, MessageID: m.ID, SenderID: w.bob, MsgType: "widget", Content: `{"type":"vote"}`}}
			is.Equal(normMessage(*got), normMessage(want)) // every field and attachment round-trips
		})
		dm := directMessage(w.realm, directRecipient(t, st, w.realm, w.alice, w.bob), w.alice, w.alice, w.bob)
		want = *dm
		send(t, st, dm)
		want.ID = dm.ID
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.Message(ctx, dm.ID)
			is.NoErr(err)                                  // direct message found
			is.Equal(normMessage(*got), normMessage(want)) // direct message round-trips
		})
	}},
	{"NotFoundAndConflict", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ids := send(t, st, channelMessage(w.general, w.alice, "t"))
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.Message(ctx, ids[0]+1000)
			is.True(errors.Is(err, store.ErrNotFound)) // unknown message
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			m := channelMessage(w.general, w.alice, "t")
			m.ID = ids[0]
			return tx.CreateMessage(ctx, m)
		})
		is.True(errors.Is(err, store.ErrConflict)) // duplicate id
	}},
	{"IDsNeverReused", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		a, b := channelMessage(w.general, w.alice, "t"), channelMessage(w.general, w.alice, "t")
		a.ID, b.ID = 1000, 500
		send(t, st, a, b)
		is.Equal(a.ID, store.MessageID(1000)) // explicit id kept
		is.Equal(b.ID, store.MessageID(500))  // explicit id below the maximum kept
		next := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		is.True(next > 1000) // next id above every id used
		del := deleteBatch(t, st, store.MessageFilter{RealmID: w.realm}, 1)
		is.Equal(deletedIDs(del), []store.MessageID{next}) // the newest message deleted
		again := send(t, st, channelMessage(w.general, w.alice, "t"))[0]
		is.True(again > next) // the id of a deleted message is not reused
	}},
	{"QueryOrderBoundsLimit", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		var msgs []*store.Message
		for range 6 {
			msgs = append(msgs, channelMessage(w.general, w.alice, "t"))
		}
		m := send(t, st, msgs...)
		for _, tc := range []struct {
			name string
			q    store.MessageQuery
			want []store.MessageID
		}{
			{"all", store.MessageQuery{RealmID: w.realm}, m},
			{"newest", store.MessageQuery{RealmID: w.realm, Newest: true}, []store.MessageID{m[5], m[4], m[3], m[2], m[1], m[0]}},
			{"after", store.MessageQuery{RealmID: w.realm, AfterID: m[2]}, m[3:]},
			{"before", store.MessageQuery{RealmID: w.realm, BeforeID: m[2]}, m[:2]},
			{"between", store.MessageQuery{RealmID: w.realm, AfterID: m[1], BeforeID: m[4]}, m[2:4]},
			{"limit oldest", store.MessageQuery{RealmID: w.realm, Limit: 2}, m[:2]},
			{"limit newest", store.MessageQuery{RealmID: w.realm, Limit: 2, Newest: true}, []store.MessageID{m[5], m[4]}},
			{"limit before newest", store.MessageQuery{RealmID: w.realm, BeforeID: m[4], Limit: 2, Newest: true}, []store.MessageID{m[3], m[2]}},
			{"limit after", store.MessageQuery{RealmID: w.realm, AfterID: m[0], Limit: 2}, m[1:3]},
			{"other realm", store.MessageQuery{RealmID: w.other}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				is.Equal(query(t, st, tc.q), list(tc.want...)) // ids in the requested order
			})
		}
	}},
	{"QueryRecipientsAndTopics", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		dmRcpt := directRecipient(t, st, w.realm, w.alice, w.bob)
		m := send(t, st,
			channelMessage(w.general, w.alice, "Straße"),          // 0
			channelMessage(w.secret, w.bob, "STRASSE"),            // 1
			directMessage(w.realm, dmRcpt, w.bob, w.alice, w.bob), // 2
			channelMessage(w.general, w.carol, "strasse"),         // 3
			channelMessage(w.general, w.carol, "Ä"),               // 4
			channelMessage(w.general, w.carol, "ä"),               // 5
			channelMessage(w.general, w.carol, ""),                // 6
			channelMessage(w.elsewhere, w.zed, "strasse"),         // 7, other realm
		)
		strasse := store.FoldKey("STRASSE")
		for _, tc := range []struct {
			name string
			q    store.MessageQuery
			want []store.MessageID
		}{
			{"nil recipients", store.MessageQuery{RealmID: w.realm}, m[:7]},
			{"empty recipients", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{}}, nil},
			{"one channel", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{w.general.RecipientID}}, []store.MessageID{m[0], m[3], m[4], m[5], m[6]}},
			{"channel and direct", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{dmRcpt, w.secret.RecipientID}}, m[1:3]},
			{"duplicate recipients", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{dmRcpt, dmRcpt, w.secret.RecipientID, dmRcpt}}, m[1:3]},
			{"channel and direct newest limit", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{w.general.RecipientID, dmRcpt}, Newest: true, Limit: 3}, []store.MessageID{m[6], m[5], m[4]}},
			{"topic in a channel", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{w.general.RecipientID}, TopicKey: &strasse}, []store.MessageID{m[0], m[3]}},
			{"topic across channels", store.MessageQuery{RealmID: w.realm, TopicKey: &strasse}, []store.MessageID{m[0], m[1], m[3]}},
			{"one channel by id", store.MessageQuery{RealmID: w.realm, StreamID: w.general.ID}, []store.MessageID{m[0], m[3], m[4], m[5], m[6]}},
			{"topic in a channel by id", store.MessageQuery{RealmID: w.realm, StreamID: w.secret.ID, TopicKey: &strasse}, []store.MessageID{m[1]}},
			{"topic by channel id and recipient", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{w.general.RecipientID},
				StreamID: w.general.ID, TopicKey: &strasse, BeforeID: m[3], Limit: 1}, []store.MessageID{m[0]}},
			{"channel id and another recipient", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{dmRcpt}, StreamID: w.general.ID}, nil},
			{"topic by channel id and another channel's recipient", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{w.secret.RecipientID},
				StreamID: w.general.ID, TopicKey: &strasse}, nil},
			{"unicode case", store.MessageQuery{RealmID: w.realm, TopicKey: ptr(store.FoldKey("Ä"))}, []store.MessageID{m[4], m[5]}},
			{"empty topic", store.MessageQuery{RealmID: w.realm, TopicKey: ptr("")}, []store.MessageID{m[6]}},
			{"topic skips direct messages", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{dmRcpt}, TopicKey: ptr("")}, nil},
			{"recipient of another realm", store.MessageQuery{RealmID: w.realm, Recipients: []store.RecipientID{w.elsewhere.RecipientID}}, nil},
			{"other realm", store.MessageQuery{RealmID: w.other, TopicKey: &strasse}, []store.MessageID{m[7]}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				is.Equal(query(t, st, tc.q), list(tc.want...)) // the matching messages
			})
		}
	}},
	{"DeleteNewestFirstInBatches", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		var msgs []*store.Message
		for range 7 {
			msgs = append(msgs, channelMessage(w.general, w.bob, "Topic"))
		}
		m := send(t, st, msgs...)
		f := store.MessageFilter{RealmID: w.realm, StreamID: w.general.ID, TopicKey: ptr(store.FoldKey("topic"))}
		del := deleteBatch(t, st, f, 3)
		is.Equal(deletedIDs(del), []store.MessageID{m[6], m[5], m[4]}) // the three newest, highest id first
		for _, d := range del {
			is.Equal(d.Type, store.MessageTypeStream)    // channel message
			is.Equal(d.StreamID, w.general.ID)           // its channel
			is.Equal(d.TopicKey, store.FoldKey("Topic")) // its topic key
			is.Equal(d.Topic, "Topic")                   // its topic as stored
			is.Equal(d.SenderID, w.bob)                  // its sender
			is.Equal(len(d.Recipients), 0)               // no recipients for channel messages
		}
		is.Equal(deletedIDs(deleteBatch(t, st, f, 3)), []store.MessageID{m[3], m[2], m[1]})   // the next batch
		is.Equal(deletedIDs(deleteBatch(t, st, f, 3)), []store.MessageID{m[0]})               // the last, smaller batch
		is.Equal(len(deleteBatch(t, st, f, 3)), 0)                                            // nothing left
		is.Equal(query(t, st, store.MessageQuery{RealmID: w.realm}), list[store.MessageID]()) // the topic is empty
	}},
	{"DeleteFilters", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		other := newStream(t, st, w.realm, "other", false)
		dmRcpt := directRecipient(t, st, w.realm, w.alice, w.bob, w.carol)
		seed := func() []store.MessageID {
			return send(t, st,
				channelMessage(w.general, w.alice, "Straße"),                     // 0
				channelMessage(w.general, w.bob, "STRASSE"),                      // 1
				channelMessage(w.general, w.alice, "else"),                       // 2
				channelMessage(other, w.alice, "strasse"),                        // 3
				channelMessage(w.secret, w.bob, "strasse"),                       // 4
				directMessage(w.realm, dmRcpt, w.carol, w.alice, w.bob, w.carol), // 5
				channelMessage(w.elsewhere, w.zed, "strasse"),                    // 6, other realm
			)
		}
		strasse := store.FoldKey("strasse")
		for _, tc := range []struct {
			name string
			f    func(m []store.MessageID) store.MessageFilter
			want []int // indexes into the seeded messages, highest first
		}{
			{"realm", func([]store.MessageID) store.MessageFilter { return store.MessageFilter{RealmID: w.realm} }, []int{5, 4, 3, 2, 1, 0}},
			{"topic", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, StreamID: w.general.ID, TopicKey: &strasse}
			}, []int{1, 0}},
			{"topic in any channel", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, TopicKey: &strasse}
			}, []int{4, 3, 1, 0}},
			{"channel", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, StreamID: w.general.ID}
			}, []int{2, 1, 0}},
			{"min id", func(m []store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, MinID: m[3]}
			}, []int{5, 4, 3}},
			{"sender", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, SenderID: w.alice}
			}, []int{3, 2, 0}},
			{"public", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, Kinds: store.KindPublicChannel}
			}, []int{3, 2, 1, 0}},
			{"private", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, Kinds: store.KindPrivateChannel}
			}, []int{4}},
			{"direct", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, Kinds: store.KindDirect}
			}, []int{5}},
			{"private and direct by sender", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, Kinds: store.KindPrivateChannel | store.KindDirect, SenderID: w.bob}
			}, []int{4}},
			{"channel of another realm", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, StreamID: w.elsewhere.ID}
			}, nil},
			{"topic of a channel of another realm", func([]store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, StreamID: w.elsewhere.ID, TopicKey: &strasse}
			}, nil},
			{"topic from min id", func(m []store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, StreamID: w.general.ID, TopicKey: &strasse, MinID: m[1]}
			}, []int{1}},
			{"before id", func(m []store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, BeforeID: m[3]}
			}, []int{2, 1, 0}},
			{"topic before id", func(m []store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, StreamID: w.general.ID, TopicKey: &strasse, BeforeID: m[1]}
			}, []int{0}},
			{"topic between min and before id", func(m []store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, StreamID: w.general.ID, TopicKey: &strasse, MinID: m[1], BeforeID: m[2]}
			}, []int{1}},
			{"sender before id", func(m []store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, SenderID: w.alice, BeforeID: m[3]}
			}, []int{2, 0}},
			{"direct before id", func(m []store.MessageID) store.MessageFilter {
				return store.MessageFilter{RealmID: w.realm, Kinds: store.KindDirect, BeforeID: m[5]}
			}, nil},
		} {
			// Each case deletes from a fresh copy of the seed and then clears
			// it, so only this copy can match.
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				m := seed()
				var want []store.MessageID
				for _, i := range tc.want {
					want = append(want, m[i])
				}
				del := deleteBatch(t, st, tc.f(m), 100)
				is.Equal(deletedIDs(del), want) // exactly the matching messages, highest id first
				left := query(t, st, store.MessageQuery{RealmID: w.realm, AfterID: m[0] - 1})
				for _, id := range want {
					is.True(!slices.Contains(left, id)) // a deleted message is gone
				}
				is.Equal(len(left), 6-len(want)) // the rest of the seed is untouched
				deleteBatch(t, st, store.MessageFilter{RealmID: w.realm}, 100)
				deleteBatch(t, st, store.MessageFilter{RealmID: w.other}, 100)
			})
		}
	}},
	{"DeleteDirectRecipients", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		rcpt := directRecipient(t, st, w.realm, w.carol, w.alice)
		send(t, st, directMessage(w.realm, rcpt, w.carol, w.alice, w.carol))
		del := deleteBatch(t, st, store.MessageFilter{RealmID: w.realm}, 10)
		is.Equal(len(del), 1)                                                                     // the direct message deleted
		is.Equal(del[0].Type, store.MessageTypePrivate)                                           // direct message type
		is.Equal(del[0].Recipients, []store.UserID{min(w.alice, w.carol), max(w.alice, w.carol)}) // every participant
		is.Equal(del[0].StreamID, store.StreamID(0))                                              // no channel
		is.Equal(del[0].Topic, "")                                                                // no topic
		is.Equal(del[0].TopicKey, "")                                                             // no topic key
	}},
	{"DeleteReturnsTopicAsStored", func(t *testing.T, st store.Store) {
		// Spellings that share one TopicKey each come back as they were stored.
		is := is.New(t)
		w := newWorld(t, st)
		rcpt := directRecipient(t, st, w.realm, w.alice, w.bob)
		m := send(t, st,
			channelMessage(w.general, w.alice, "Straße"),
			channelMessage(w.general, w.bob, "STRASSE"),
			directMessage(w.realm, rcpt, w.alice, w.alice, w.bob),
			channelMessage(w.secret, w.bob, "Ärger"),
			channelMessage(w.general, w.alice, ""),
		)
		del := deleteBatch(t, st, store.MessageFilter{RealmID: w.realm}, 10)
		is.Equal(deletedIDs(del), []store.MessageID{m[4], m[3], m[2], m[1], m[0]}) // every message, highest id first
		type topic struct{ topic, key string }
		got := make([]topic, len(del))
		for i, d := range del {
			got[i] = topic{d.Topic, d.TopicKey}
		}
		is.Equal(got, []topic{
			{"", ""},
			{"Ärger", store.FoldKey("Ärger")},
			{"", ""},
			{"STRASSE", store.FoldKey("strasse")},
			{"Straße", store.FoldKey("strasse")},
		}) // each topic as stored, with its key; the direct message has neither
	}},
	{"DeleteCascades", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		m := channelMessage(w.general, w.alice, "t")
		m.Reactions = []store.Reaction{{UserID: w.bob, EmojiName: "smile", EmojiCode: "1f604", ReactionType: "unicode_emoji"}}
		m.EditHistory = []store.EditHistoryEntry{{UserID: w.alice, Timestamp: epoch, PrevContent: "x"}}
		m.Submessages = []store.Submessage{{SenderID: w.alice, MsgType: "widget", Content: "{}"}}
		keep := channelMessage(w.general, w.alice, "t")
		ids := send(t, st, keep, m)
		del := deleteBatch(t, st, store.MessageFilter{RealmID: w.realm}, 1)
		is.Equal(deletedIDs(del), []store.MessageID{ids[1]}) // the message with attachments deleted
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.Message(ctx, ids[1])
			is.True(errors.Is(err, store.ErrNotFound)) // a deleted message is not found
			msgs, err := tx.Messages(ctx, store.MessageQuery{RealmID: w.realm})
			is.NoErr(err)                                         // messages listed
			is.Equal(messageIDs(msgs), []store.MessageID{ids[0]}) // only the kept message remains
			is.Equal(len(msgs[0].Reactions), 0)                   // no reaction leaked onto the kept message
			is.Equal(len(msgs[0].Submessages), 0)                 // no submessage leaked onto the kept message
			is.Equal(len(msgs[0].EditHistory), 0)                 // no edit history leaked onto the kept message
		})
	}},
	{"OldestMessageID", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		oldest := func(s store.StreamID) store.MessageID {
			var id store.MessageID
			view(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				id, err = tx.OldestMessageID(ctx, s)
				is.NoErr(err) // oldest id read
			})
			return id
		}
		is.Equal(oldest(w.general.ID), store.MessageID(0)) // an empty channel has none
		m := send(t, st, channelMessage(w.secret, w.alice, "a"), channelMessage(w.general, w.alice, "a"),
			channelMessage(w.general, w.alice, "b"))
		is.Equal(oldest(w.general.ID), m[1]) // the smallest id in the channel
		deleteBatch(t, st, store.MessageFilter{RealmID: w.realm, StreamID: w.general.ID, MinID: m[1], TopicKey: ptr("a")}, 10)
		is.Equal(oldest(w.general.ID), m[2]) // the next one once the oldest is deleted
		is.Equal(oldest(w.secret.ID), m[0])  // other channels unaffected
	}},
	{"DirectRecipientConcurrent", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ctx := context.Background()
		type result struct {
			id  store.RecipientID
			err error
		}
		results := make(chan result, 16)
		for i := range cap(results) {
			go func() {
				members := []store.UserID{w.alice, w.bob, w.carol}
				if i%2 == 1 {
					members = []store.UserID{w.carol, w.bob, w.alice}
				}
				var r result
				r.err = st.Update(ctx, func(tx store.Tx) error {
					var err error
					r.id, err = tx.DirectRecipient(ctx, w.realm, members)
					return err
				})
				results <- r
			}()
		}
		first := <-results
		is.NoErr(first.err) // get-or-create succeeds
		for range cap(results) - 1 {
			r := <-results
			is.NoErr(r.err)          // get-or-create succeeds under concurrency
			is.Equal(r.id, first.id) // every caller gets the one conversation
		}
	}},
	{"DirectRecipient", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		ab := directRecipient(t, st, w.realm, w.alice, w.bob)
		is.True(ab > 0)                                                      // a positive recipient id
		is.Equal(directRecipient(t, st, w.realm, w.bob, w.alice), ab)        // member order does not matter
		is.Equal(directRecipient(t, st, w.realm, w.bob, w.alice, w.bob), ab) // duplicates do not matter
		abc := directRecipient(t, st, w.realm, w.carol, w.alice, w.bob)
		is.True(abc != ab) // another member set is another conversation
		self := directRecipient(t, st, w.realm, w.alice)
		is.True(self != ab && self != abc) // the conversation with oneself is its own
		for _, r := range []store.RecipientID{ab, abc, self} {
			is.True(r != w.general.RecipientID && r != w.secret.RecipientID && r != w.elsewhere.RecipientID) // recipient ids are shared with channels and never collide
		}
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.DirectRecipient(ctx, w.realm, []store.UserID{w.bob, w.carol, w.alice})
			is.NoErr(err)      // an existing conversation can be read in a read-only transaction
			is.Equal(got, abc) // the same conversation
			rs, err := tx.DirectRecipients(ctx, w.alice)
			is.NoErr(err)                                                                  // conversations listed
			is.Equal(rs, slices.Sorted(slices.Values([]store.RecipientID{ab, abc, self}))) // every conversation of alice, sorted
			rs, err = tx.DirectRecipients(ctx, w.carol)
			is.NoErr(err)                          // conversations listed
			is.Equal(rs, []store.RecipientID{abc}) // only the group conversation
			rs, err = tx.DirectRecipients(ctx, w.zed)
			is.NoErr(err)              // conversations listed
			is.Equal(list(rs...), nil) // none for a user without conversations
		})
	}},
	{"DirectRecipientMissingInView", func(t *testing.T, st store.Store) {
		// A View cannot create a conversation: a missing one is ErrNotFound,
		// and nothing is written.
		is := is.New(t)
		w := newWorld(t, st)
		ab := directRecipient(t, st, w.realm, w.alice, w.bob)
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.DirectRecipient(ctx, w.realm, []store.UserID{w.bob, w.carol})
			is.True(errors.Is(err, store.ErrNotFound)) // a missing conversation is not found in a View
			_, err = tx.DirectRecipient(ctx, w.other, []store.UserID{w.alice, w.bob})
			is.True(errors.Is(err, store.ErrNotFound)) // conversations are per realm
			got, err := tx.DirectRecipient(ctx, w.realm, []store.UserID{w.bob, w.alice})
			is.NoErr(err)     // the existing one is still found after the misses
			is.Equal(got, ab) // the same conversation
			rs, err := tx.DirectRecipients(ctx, w.carol)
			is.NoErr(err)              // conversations listed
			is.Equal(list(rs...), nil) // the miss created nothing
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			rs, err := tx.DirectRecipients(ctx, w.bob)
			is.NoErr(err)                         // conversations listed
			is.Equal(rs, []store.RecipientID{ab}) // still only the one created in an Update
		})
		bc := directRecipient(t, st, w.realm, w.bob, w.carol)
		is.True(bc != ab) // an Update still creates the missing conversation
	}},
}
