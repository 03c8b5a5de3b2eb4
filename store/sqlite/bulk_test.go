package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// bulkSetup creates a realm with two users and a channel.
func bulkSetup(t *testing.T, s store.Store) (st store.Stream, a, b store.UserID) {
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r := &store.Realm{StringID: "bulk", Name: "Bulk", DateCreated: epoch}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		ua, ub := human(r.ID, "a@example.com"), human(r.ID, "b@example.com")
		if err := tx.CreateUser(ctx, ua); err != nil {
			return err
		}
		if err := tx.CreateUser(ctx, ub); err != nil {
			return err
		}
		a, b = ua.ID, ub.ID
		st = store.Stream{RealmID: r.ID, Name: "general", DateCreated: epoch}
		return tx.CreateStream(ctx, &st)
	})
	return st, a, b
}

func TestCreateMessagesRaisesThePageCacheForItsTransaction(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	st, sender, _ := bulkSetup(t, s)
	writer, _ := sqlite.DBs(s)
	var before int64
	is.NoErr(writer.QueryRow("PRAGMA cache_size").Scan(&before)) // readable
	batch := func(n int) []*store.Message {
		ms := make([]*store.Message, n)
		for i := range ms {
			ms[i] = &store.Message{RealmID: st.RealmID, SenderID: sender, Type: store.MessageTypeStream,
				RecipientID: st.RecipientID, StreamID: st.ID, Topic: "t", Content: "x", RenderedContent: "<p>x</p>",
				Client: "import", SentAt: epoch}
		}
		return ms
	}
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		is.NoErr(tx.CreateMessages(ctx, batch(3))) // a few messages
		n, err := sqlite.CacheSize(tx)
		is.NoErr(err)                                // readable
		is.Equal(n, before)                          // leave the cache alone
		is.NoErr(tx.CreateMessages(ctx, batch(200))) // a bulk insert
		n, err = sqlite.CacheSize(tx)
		is.NoErr(err)                  // readable
		is.True(n < 0 && -n > -before) // raises it (negative: KiB)
		return nil
	})
	var after int64
	is.NoErr(writer.QueryRow("PRAGMA cache_size").Scan(&after)) // readable
	is.Equal(after, before)                                     // the transaction's end restored it
	// A bulk insert that fails restores it too.
	err := s.Update(context.Background(), func(tx store.Tx) error {
		if err := tx.CreateMessages(context.Background(), batch(200)); err != nil {
			return err
		}
		return fmt.Errorf("undo")
	})
	is.True(err != nil)                                         // the Update failed
	is.NoErr(writer.QueryRow("PRAGMA cache_size").Scan(&after)) // readable
	is.Equal(after, before)                                     // restored after the rollback
}

func TestLongTransactionPreparesWhatItRepeats(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	st, a, b := bulkSetup(t, s)
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		rid, err := tx.DirectRecipient(ctx, st.RealmID, []store.UserID{a, b})
		is.NoErr(err)                      // a conversation
		is.Equal(sqlite.LocalStmts(tx), 0) // nothing repeated yet
		for range 5 {
			again, err := tx.DirectRecipient(ctx, st.RealmID, []store.UserID{b, a})
			is.NoErr(err)        // found again
			is.Equal(again, rid) // the same one
		}
		is.True(sqlite.LocalStmts(tx) > 0) // the repeated lookup is prepared in the transaction
		self, err := tx.DirectRecipient(ctx, st.RealmID, []store.UserID{a})
		is.NoErr(err)        // another conversation
		is.True(self != rid) // a new one, through the prepared lookup
		return nil
	})
}
