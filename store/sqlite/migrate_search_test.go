package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// TestMigrationIndexesExistingMessages opens a database written before the
// full-text index (version 13): migration 19 indexes its messages, and the
// triggers keep the index for writes after.
func TestMigrationIndexesExistingMessages(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chat.db")
	raw := createAtVersion(t, path, 13)
	_, err := raw.Exec(`INSERT INTO messages (id, realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key,
		content, rendered_content, client, sent_at, is_me_message) VALUES
		(5, 1, 7, 'stream', 11, 2, 'Lunch plans', 'lunch plans', 'who is running late?', '<p>who is running late?</p>', 'test', 1767323045, 0),
		(6, 1, 7, 'stream', 11, 2, 'other', 'other', 'nothing here', '<p>nothing here</p>', 'test', 1767323046, 0)`)
	is.NoErr(err) // version-13 rows inserted
	is.NoErr(raw.Close())

	s, err := sqlite.Open(ctx, path)
	is.NoErr(err) // the old database migrates
	t.Cleanup(func() { s.Close() })
	search := func(lexemes ...string) []store.MessageID {
		var ids []store.MessageID
		is.NoErr(s.View(ctx, func(tx store.Tx) error {
			ms, err := tx.Messages(ctx, store.MessageQuery{RealmID: 1,
				NarrowConds: store.NarrowConds{Search: []store.SearchTerm{{Lexemes: lexemes}}}})
			for _, m := range ms {
				ids = append(ids, m.ID)
			}
			return err
		}))
		return ids
	}
	is.Equal(search("run"), []store.MessageID{5})   // the content of a message written before
	is.Equal(search("lunch"), []store.MessageID{5}) // and its topic
	is.Equal(len(search("noth")), 1)                // every message
	is.NoErr(s.Update(ctx, func(tx store.Tx) error {
		_, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: 1, IDs: []store.MessageID{5}}, 10)
		return err
	}))
	is.Equal(len(search("run")), 0) // a deletion after the migration leaves no ghost
}
