package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/chatcore/chatcore/store/storetest"
	"github.com/matryer/is"
)

// indexingStore is a Store whose full-text index is brought up to date
// after every Update, so that searches read the index rather than its tail.
type indexingStore struct{ *sqlite.Store }

func (s indexingStore) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	if err := s.Store.Update(ctx, fn); err != nil {
		return err
	}
	return s.IndexSearch(ctx)
}

// TestSearchConformanceIndexStates runs the search conformance cases with
// no indexer (every message is in the index's tail, matched in Go) and
// with the index brought up to date after every write (every search reads
// messages_fts; edits and moves re-index through search_stale).
func TestSearchConformanceIndexStates(t *testing.T) {
	t.Run("tail only", func(t *testing.T) {
		storetest.RunSearch(t, func(t *testing.T) store.Store {
			s, _ := open(t, sqlite.WithoutIndexer())
			return s
		})
	})
	t.Run("indexed after every write", func(t *testing.T) {
		storetest.RunSearch(t, func(t *testing.T) store.Store {
			s, _ := open(t, sqlite.WithoutIndexer())
			return indexingStore{s}
		})
	})
}

// searchIDs returns the ids of realm's messages matching every lexeme, in
// id order.
func searchIDs(t *testing.T, s store.Store, realm store.RealmID, lexemes ...string) []store.MessageID {
	t.Helper()
	is := is.New(t)
	var ids []store.MessageID
	is.NoErr(s.View(context.Background(), func(tx store.Tx) error {
		var err error
		ids, err = tx.MessageIDs(context.Background(), store.MessageQuery{RealmID: realm,
			NarrowConds: store.NarrowConds{Search: []store.SearchTerm{{Lexemes: lexemes}}}})
		return err
	}))
	return ids
}

// searchWorld creates a realm with a channel and a sender.
func searchWorld(t *testing.T, s store.Store) (realm store.RealmID, send func(topic, text string) store.MessageID) {
	t.Helper()
	ctx := context.Background()
	var st *store.Stream
	var sender store.UserID
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r := &store.Realm{StringID: "s", Name: "S", DateCreated: epoch}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		realm = r.ID
		u := &store.User{RealmID: r.ID, Email: "a@s.test", FullName: "A", Role: store.RoleMember, IsActive: true,
			APIKeyHash: "hash:a", AvatarSource: "G", DateJoined: epoch, Settings: store.DefaultSettings()}
		if err := tx.CreateUser(ctx, u); err != nil {
			return err
		}
		sender = u.ID
		st = &store.Stream{RealmID: r.ID, Name: "general", DateCreated: epoch}
		return tx.CreateStream(ctx, st)
	})
	return realm, func(topic, text string) store.MessageID {
		m := &store.Message{RealmID: realm, SenderID: sender, Type: store.MessageTypeStream, RecipientID: st.RecipientID,
			StreamID: st.ID, Topic: topic, Content: text, RenderedContent: "<p>" + text + "</p>", Client: "test", SentAt: epoch}
		is.New(t).NoErr(s.Update(ctx, func(tx store.Tx) error { return tx.CreateMessage(ctx, m) }))
		return m.ID
	}
}

// TestSearchBeforeIndexing: a message is found right after its send, before
// any indexer ran, an edited indexed message by its new words only, and the
// answers stay once the indexer has run; a Store opened again catches up
// with the tail the previous one left.
func TestSearchBeforeIndexing(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	path := sqlitetest.Path(t)
	s, err := sqlite.Open(ctx, path, sqlite.WithoutIndexer())
	is.NoErr(err)
	realm, send := searchWorld(t, s)
	old := send("deploys", "the release candidate is ready")
	is.NoErr(s.IndexSearch(ctx))
	through, stale, err := sqlite.SearchTail(s)
	is.NoErr(err)
	is.Equal([]any{through, stale}, []any{int64(old), 0}) // indexed through the message

	fresh := send("lunch", "pizza at noon")
	is.Equal(searchIDs(t, s, realm, "pizza"), []store.MessageID{fresh}) // found before it is indexed
	is.Equal(searchIDs(t, s, realm, "deploy"), []store.MessageID{old})  // the indexed one through the index
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		m, err := tx.Message(ctx, old)
		if err != nil {
			return err
		}
		m.Content, m.RenderedContent = "postponed to monday", "<p>postponed to monday</p>"
		return tx.EditMessage(ctx, m, store.EditHistoryEntry{UserID: m.SenderID, Timestamp: epoch})
	})
	through, stale, err = sqlite.SearchTail(s)
	is.NoErr(err)
	is.Equal([]any{through, stale}, []any{int64(old), 1})               // the edit made it stale
	is.Equal(len(searchIDs(t, s, realm, "releas")), 0)                  // the old words are gone
	is.Equal(searchIDs(t, s, realm, "postpon"), []store.MessageID{old}) // the new ones found
	is.Equal(searchIDs(t, s, realm, "deploy"), []store.MessageID{old})  // its topic still
	is.NoErr(s.IndexSearch(ctx))
	is.Equal(len(searchIDs(t, s, realm, "releas")), 0)                  // the same once indexed
	is.Equal(searchIDs(t, s, realm, "postpon"), []store.MessageID{old}) //
	is.Equal(searchIDs(t, s, realm, "pizza"), []store.MessageID{fresh}) //
	update(t, s, func(ctx context.Context, tx store.Tx) error {         // an import's explicit id below indexed_through
		m, err := tx.Message(ctx, old)
		if err != nil {
			return err
		}
		if _, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: realm, IDs: []store.MessageID{old}}, 1); err != nil {
			return err
		}
		m.Content, m.RenderedContent, m.EditHistory = "tacos tonight", "<p>tacos tonight</p>", nil
		return tx.CreateMessage(ctx, m)
	})
	is.Equal(searchIDs(t, s, realm, "taco"), []store.MessageID{old}) // found in the tail
	is.NoErr(s.IndexSearch(ctx))
	is.Equal(searchIDs(t, s, realm, "taco"), []store.MessageID{old}) // and once indexed
	late := send("lunch", "pizza again")                             // left in the tail
	is.NoErr(s.Close())

	s, err = sqlite.Open(ctx, path) // with its indexer
	is.NoErr(err)
	t.Cleanup(func() { s.Close() })
	is.Equal(searchIDs(t, s, realm, "pizza"), []store.MessageID{fresh, late}) // exact whatever the indexer has done
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		through, stale, err = sqlite.SearchTail(s)
		is.NoErr(err)
		if through == int64(late) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("indexed through %d, not %d, after 30 s", through, late)
		}
	}
	is.Equal(stale, 0)                                                        // the indexer caught up on its own
	is.Equal(searchIDs(t, s, realm, "pizza"), []store.MessageID{fresh, late}) // through the index
}
