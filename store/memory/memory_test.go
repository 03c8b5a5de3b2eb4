package memory_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/storetest"
	"github.com/matryer/is"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return memory.New() })
}

// seed is a realm with two users, a channel and one message of each kind.
type seed struct {
	realm      store.RealmID
	alice, bob store.UserID
	realmUsers []store.UserID
	stream     *store.Stream
	channelMsg store.MessageID
	directMsg  store.MessageID
	scheduled  store.ScheduledMessageID
}

func newSeed(tb testing.TB, st *memory.Store) *seed {
	tb.Helper()
	is := is.New(tb)
	ctx := context.Background()
	s := &seed{}
	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		r := &store.Realm{StringID: "acme"}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		s.realm = r.ID
		for _, id := range []*store.UserID{&s.alice, &s.bob} {
			email := fmt.Sprintf("user%d@x.test", len(s.realmUsers))
			u := &store.User{RealmID: r.ID, Email: email, IsActive: true, APIKeyHash: email, Settings: store.DefaultSettings()}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			*id = u.ID
			s.realmUsers = append(s.realmUsers, u.ID)
		}
		s.stream = &store.Stream{RealmID: r.ID, Name: "general"}
		if err := tx.CreateStream(ctx, s.stream); err != nil {
			return err
		}
		cm := &store.Message{
			RealmID: r.ID, SenderID: s.alice, Type: store.MessageTypeStream, RecipientID: s.stream.RecipientID,
			StreamID: s.stream.ID, Topic: "t",
			Reactions:   []store.Reaction{{UserID: s.bob, EmojiName: "smile"}},
			EditHistory: []store.EditHistoryEntry{{UserID: s.alice, Topic: ptr("t"), PrevTopic: ptr("old")}},
			Submessages: []store.Submessage{{SenderID: s.bob, Content: "{}"}},
		}
		if err := tx.CreateMessage(ctx, cm); err != nil {
			return err
		}
		s.channelMsg = cm.ID
		rcpt, err := tx.DirectRecipient(ctx, r.ID, []store.UserID{s.alice, s.bob})
		if err != nil {
			return err
		}
		dm := &store.Message{RealmID: r.ID, SenderID: s.alice, Type: store.MessageTypePrivate, RecipientID: rcpt, DirectMembers: []store.UserID{s.alice, s.bob}}
		if err := tx.CreateMessage(ctx, dm); err != nil {
			return err
		}
		s.directMsg = dm.ID
		sm := &store.ScheduledMessage{RealmID: r.ID, SenderID: s.alice, Kind: store.ScheduledSendLater, DirectMembers: []store.UserID{s.bob}}
		if err := tx.CreateScheduledMessage(ctx, sm); err != nil {
			return err
		}
		s.scheduled = sm.ID
		if err := tx.CreateDraft(ctx, &store.Draft{UserID: s.alice, To: []store.UserID{s.bob}}); err != nil {
			return err
		}
		return tx.RecordSettingEdits(ctx, s.alice, []string{"emojiset"})
	})) // seed committed
	return s
}

func ptr[T any](v T) *T { return &v }

func TestReturnedValuesAreCopies(t *testing.T) {
	is := is.New(t)
	st := memory.New()
	s := newSeed(t, st)
	ctx := context.Background()
	// Scribble over everything the store hands out, through every read method
	// that returns slices or pointers.
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		m, err := tx.Message(ctx, s.channelMsg)
		if err != nil {
			return err
		}
		m.Reactions[0].EmojiName = "x"
		*m.EditHistory[0].Topic = "x"
		*m.EditHistory[0].PrevTopic = "x"
		m.Submessages[0].Content = "x"
		msgs, err := tx.Messages(ctx, store.MessageQuery{RealmID: s.realm})
		if err != nil {
			return err
		}
		msgs[0].Reactions[0].EmojiName = "y"
		msgs[1].DirectMembers[0] = 999
		sms, err := tx.ScheduledMessages(ctx, store.ScheduledFilter{})
		if err != nil {
			return err
		}
		sms[0].DirectMembers[0] = 999
		sm, err := tx.ScheduledMessage(ctx, s.scheduled)
		if err != nil {
			return err
		}
		sm.DirectMembers[0] = 998
		ds, err := tx.Drafts(ctx, s.alice)
		if err != nil {
			return err
		}
		ds[0].To[0] = 999
		ed, err := tx.EditedSettings(ctx, s.alice)
		if err != nil {
			return err
		}
		ed[0] = "x"
		rs, err := tx.DirectRecipients(ctx, s.alice)
		if err != nil {
			return err
		}
		rs[0] = 999
		return nil
	})) // scribbling view succeeds
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		m, err := tx.Message(ctx, s.channelMsg)
		is.NoErr(err)                                // message found
		is.Equal(m.Reactions[0].EmojiName, "smile")  // reaction unchanged
		is.Equal(*m.EditHistory[0].Topic, "t")       // edit history topic unchanged
		is.Equal(*m.EditHistory[0].PrevTopic, "old") // edit history previous topic unchanged
		is.Equal(m.Submessages[0].Content, "{}")     // submessage unchanged
		dm, err := tx.Message(ctx, s.directMsg)
		is.NoErr(err)                                              // direct message found
		is.Equal(dm.DirectMembers, []store.UserID{s.alice, s.bob}) // members unchanged
		sm, err := tx.ScheduledMessage(ctx, s.scheduled)
		is.NoErr(err)                                     // scheduled message found
		is.Equal(sm.DirectMembers, []store.UserID{s.bob}) // scheduled recipients unchanged
		ds, err := tx.Drafts(ctx, s.alice)
		is.NoErr(err)                             // drafts listed
		is.Equal(ds[0].To, []store.UserID{s.bob}) // draft recipients unchanged
		ed, err := tx.EditedSettings(ctx, s.alice)
		is.NoErr(err)                      // edits listed
		is.Equal(ed, []string{"emojiset"}) // edited settings unchanged
		rs, err := tx.DirectRecipients(ctx, s.alice)
		is.NoErr(err)         // conversations listed
		is.True(rs[0] != 999) // conversation list unchanged
		return nil
	})) // checking view succeeds
}

func TestDeletedMessageRecipientsAreCopies(t *testing.T) {
	is := is.New(t)
	st := memory.New()
	s := newSeed(t, st)
	ctx := context.Background()
	var del []store.DeletedMessage
	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		var err error
		del, err = tx.DeleteMessages(ctx, store.MessageFilter{RealmID: s.realm, Kinds: store.KindDirect}, 10)
		return err
	})) // direct message deleted
	is.Equal(len(del), 1) // one direct message
	del[0].Recipients[0] = 999
	// Roll the deletion back and check the restored message is intact.
	err := st.Update(ctx, func(tx store.Tx) error {
		if _, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: s.realm}, 10); err != nil {
			return err
		}
		return errors.New("abort")
	})
	is.True(err != nil) // aborted
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		m, err := tx.Message(ctx, s.channelMsg)
		is.NoErr(err)                          // restored by the rollback
		is.Equal(len(m.Reactions), 1)          // with its reaction
		is.Equal(*m.EditHistory[0].Topic, "t") // and its history
		return nil
	})) // view succeeds
}

func TestTxUnusableAfterEnd(t *testing.T) {
	is := is.New(t)
	st := memory.New()
	ctx := context.Background()
	var kept store.Tx
	is.NoErr(st.View(ctx, func(tx store.Tx) error { kept = tx; return nil })) // view succeeds
	_, err := kept.Realms(ctx)
	is.True(errors.Is(err, memory.ErrTxDone))                                   // a read after the View ended fails
	is.NoErr(st.Update(ctx, func(tx store.Tx) error { kept = tx; return nil })) // update succeeds
	err = kept.CreateRealm(ctx, &store.Realm{StringID: "late"})
	is.True(errors.Is(err, memory.ErrTxDone)) // a write after the Update ended fails
}

func TestViewWritesFailWithErrReadOnly(t *testing.T) {
	is := is.New(t)
	st := memory.New()
	ctx := context.Background()
	var werr error
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		werr = tx.CreateRealm(ctx, &store.Realm{StringID: "x"})
		return nil
	})) // view succeeds
	is.True(errors.Is(werr, memory.ErrReadOnly)) // the write reports ErrReadOnly
}

func TestClose(t *testing.T) {
	is := is.New(t)
	st := memory.New()
	ctx := context.Background()
	is.NoErr(st.Close()) // close succeeds
	called := false
	err := st.View(ctx, func(store.Tx) error { called = true; return nil })
	is.True(errors.Is(err, memory.ErrClosed)) // View after Close fails
	err = st.Update(ctx, func(store.Tx) error { called = true; return nil })
	is.True(errors.Is(err, memory.ErrClosed)) // Update after Close fails
	is.Equal(called, false)                   // fn never runs
}

func TestDeleteLimitMustBePositive(t *testing.T) {
	is := is.New(t)
	st := memory.New()
	s := newSeed(t, st)
	ctx := context.Background()
	err := st.Update(ctx, func(tx store.Tx) error {
		_, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: s.realm}, 0)
		return err
	})
	is.True(err != nil) // a zero limit is refused
}

// bigTopic returns a store holding n messages in topic "big" of one channel,
// interleaved with n/4 messages in topic "small", plus the filter selecting
// the big topic.
func bigTopic(tb testing.TB, n int) (*memory.Store, store.MessageFilter) {
	tb.Helper()
	is := is.New(tb)
	st := memory.New()
	s := newSeed(tb, st)
	ctx := context.Background()
	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		for i := range n + n/4 {
			topic := "big"
			if i%5 == 4 {
				topic = "small"
			}
			m := &store.Message{
				RealmID: s.realm, SenderID: s.alice, Type: store.MessageTypeStream,
				RecipientID: s.stream.RecipientID, StreamID: s.stream.ID, Topic: topic, Content: "x",
				SentAt: time.Unix(int64(i), 0),
			}
			if err := tx.CreateMessage(ctx, m); err != nil {
				return err
			}
		}
		return nil
	})) // messages created
	key := store.FoldKey("big")
	return st, store.MessageFilter{RealmID: s.realm, StreamID: s.stream.ID, TopicKey: &key}
}

// deleteAll deletes everything matching f in batches of 100, one Update per
// batch as the Service does, and returns how many messages it deleted.
func deleteAll(tb testing.TB, st *memory.Store, f store.MessageFilter) int {
	ctx := context.Background()
	total := 0
	for {
		var n int
		err := st.Update(ctx, func(tx store.Tx) error {
			del, err := tx.DeleteMessages(ctx, f, 100)
			n = len(del)
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
		total += n
		if n == 0 {
			return total
		}
	}
}

func TestDeleteBigTopic(t *testing.T) {
	is := is.New(t)
	st, f := bigTopic(t, 20000)
	is.Equal(deleteAll(t, st, f), 20000) // every message of the topic deleted
	ctx := context.Background()
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		msgs, err := tx.Messages(ctx, store.MessageQuery{RealmID: f.RealmID, Recipients: nil, TopicKey: ptr(store.FoldKey("small"))})
		is.NoErr(err)             // messages listed
		is.Equal(len(msgs), 5000) // the other topic is untouched
		return nil
	})) // view succeeds
}

// BenchmarkDeleteTopic100k measures deleting a 100,000-message topic in
// batches of 100 (one transaction each), the Service's topic deletion.
func BenchmarkDeleteTopic100k(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		st, f := bigTopic(b, 100000)
		b.StartTimer()
		if n := deleteAll(b, st, f); n != 100000 {
			b.Fatalf("deleted %d messages, want 100000", n)
		}
	}
}

// BenchmarkCreateMessage measures inserting one message per transaction.
func BenchmarkCreateMessage(b *testing.B) {
	b.ReportAllocs()
	st := memory.New()
	s := newSeed(b, st)
	ctx := context.Background()
	for b.Loop() {
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateMessage(ctx, &store.Message{
				RealmID: s.realm, SenderID: s.alice, Type: store.MessageTypeStream,
				RecipientID: s.stream.RecipientID, StreamID: s.stream.ID, Topic: "bench", Content: "x",
			})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewestMessages measures reading the newest 50 messages of a
// channel holding 100,000.
func BenchmarkNewestMessages(b *testing.B) {
	b.ReportAllocs()
	st, f := bigTopic(b, 80000)
	ctx := context.Background()
	var rcpt store.RecipientID
	if err := st.View(ctx, func(tx store.Tx) error {
		s, err := tx.Stream(ctx, f.StreamID)
		rcpt = s.RecipientID
		return err
	}); err != nil {
		b.Fatal(err)
	}
	q := store.MessageQuery{RealmID: f.RealmID, Recipients: []store.RecipientID{rcpt}, Newest: true, Limit: 50}
	for b.Loop() {
		err := st.View(ctx, func(tx store.Tx) error {
			msgs, err := tx.Messages(ctx, q)
			if err == nil && len(msgs) != 50 {
				err = fmt.Errorf("got %d messages", len(msgs))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}
