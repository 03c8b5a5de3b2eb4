package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var submessageTests = []test{
	{"CreateAndList", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		m := channelMessage(w.general, w.alice, "t")
		m.Submessages = []store.Submessage{{SenderID: w.alice, MsgType: "widget", Content: `{"widget_type":"poll"}`}}
		send(t, st, m)
		other := channelMessage(w.general, w.bob, "t")
		send(t, st, other)
		s1 := &store.Submessage{MessageID: m.ID, SenderID: w.bob, MsgType: "widget", Content: `{"type":"vote","key":"canned,0","vote":1}`}
		s2 := &store.Submessage{MessageID: m.ID, SenderID: w.carol, MsgType: "widget", Content: `{"type":"vote","key":"canned,0","vote":-1}`}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateSubmessage(ctx, s1)) // submessage created
			is.NoErr(tx.CreateSubmessage(ctx, s2)) // submessage created
		})
		is.True(s1.ID > m.Submessages[0].ID) // ids above the one sent with the message
		is.True(s2.ID > s1.ID)               // and ascending
		view(t, st, func(ctx context.Context, tx store.Tx) {
			subs, err := tx.Submessages(ctx, m.ID)
			is.NoErr(err)                                                  // submessages listed
			is.Equal(subs, []store.Submessage{m.Submessages[0], *s1, *s2}) // in id order, every field stored
			got, err := tx.Message(ctx, m.ID)
			is.NoErr(err)                   // message read
			is.Equal(got.Submessages, subs) // the message carries them
			subs, err = tx.Submessages(ctx, other.ID)
			is.NoErr(err)          // none is fine
			is.True(subs != nil)   // an empty list, not nil
			is.Equal(len(subs), 0) // the other message has none
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateSubmessage(ctx, &store.Submessage{MessageID: other.ID + 1000, SenderID: w.alice, MsgType: "widget", Content: "{}"})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown message
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateSubmessage(ctx, &store.Submessage{ID: s1.ID, MessageID: other.ID, SenderID: w.alice, MsgType: "widget", Content: "{}"})
		})
		is.True(errors.Is(err, store.ErrConflict)) // id in use
		err = st.Update(ctx, func(tx store.Tx) error {
			if err := tx.CreateSubmessage(ctx, &store.Submessage{MessageID: other.ID, SenderID: w.alice, MsgType: "widget", Content: "{}"}); err != nil {
				return err
			}
			return errAbort
		})
		is.True(errors.Is(err, errAbort)) // rolled back
		view(t, st, func(ctx context.Context, tx store.Tx) {
			subs, err := tx.Submessages(ctx, other.ID)
			is.NoErr(err)          // submessages listed
			is.Equal(len(subs), 0) // a rolled-back insert leaves nothing
		})
		is.Equal(len(deleteBatch(t, st, store.MessageFilter{RealmID: w.realm, IDs: []store.MessageID{m.ID}}, 10)), 1) // the message deleted
		view(t, st, func(ctx context.Context, tx store.Tx) {
			subs, err := tx.Submessages(ctx, m.ID)
			is.NoErr(err)          // submessages of a deleted message listed
			is.Equal(len(subs), 0) // they went with it
		})
	}},
}
