package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// createAtVersion writes a database holding the schema of the migrations up to
// and including version, as an older program left it.
func createAtVersion(t *testing.T, path string, version int) *sql.DB {
	t.Helper()
	is := is.New(t)
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	is.NoErr(err) // raw connection
	t.Cleanup(func() { raw.Close() })
	files, err := filepath.Glob("migrations/*.sql")
	is.NoErr(err) // migrations listed
	for _, f := range files {
		num, _, _ := strings.Cut(filepath.Base(f), "_")
		if v, _ := strconv.Atoi(num); v > version {
			continue
		}
		text, err := os.ReadFile(f)
		is.NoErr(err) // migration read
		_, err = raw.Exec(string(text))
		is.NoErr(err) // migration applied
	}
	_, err = raw.Exec("PRAGMA user_version = " + strconv.Itoa(version))
	is.NoErr(err) // version recorded
	return raw
}

// TestMigrationIDsNeverReused opens a database written before linkifiers,
// drafts and submessages had AUTOINCREMENT: the rows keep their ids and
// contents, and after deleting the newest row of each table a new row gets a
// higher id (version 2 gave it the deleted row's id).
func TestMigrationIDsNeverReused(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chat.db")
	raw := createAtVersion(t, path, 2)
	for _, q := range []string{
		`INSERT INTO linkifiers (id, realm_id, pattern, url_template, ord) VALUES
			(3, 1, '#(?P<id>[0-9]+)', 'https://a.test/{id}', 0), (9, 1, 'B-(?P<id>[0-9]+)', 'https://b.test/{id}', 1)`,
		`INSERT INTO drafts (id, user_id, type, stream_id, topic, to_users, content, last_edit)
			VALUES (4, 7, 'stream', 2, 'topic', NULL, 'draft', 1767323045)`,
		`INSERT INTO messages (id, realm_id, sender_id, type, recipient_id, stream_id, topic, topic_key,
			content, rendered_content, client, sent_at, is_me_message)
			VALUES (5, 1, 7, 'stream', 11, 2, 'topic', 'topic', 'hi', '<p>hi</p>', 'test', 1767323045, 0)`,
		`INSERT INTO submessages (id, message_id, sender_id, msg_type, content) VALUES (6, 5, 7, 'widget', '{}')`,
	} {
		_, err := raw.Exec(q)
		is.NoErr(err) // version-2 row inserted
	}
	is.NoErr(raw.Close())

	s, err := sqlite.Open(ctx, path)
	is.NoErr(err) // the old database migrates
	t.Cleanup(func() { s.Close() })

	update(t, s, func(ctx context.Context, tx store.Tx) error {
		ls, err := tx.Linkifiers(ctx, 1)
		is.NoErr(err) // linkifiers read
		is.Equal(ls, []store.Linkifier{
			{ID: 3, RealmID: 1, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://a.test/{id}", Order: 0},
			{ID: 9, RealmID: 1, Pattern: "B-(?P<id>[0-9]+)", URLTemplate: "https://b.test/{id}", Order: 1},
		}) // linkifiers kept with their ids
		ds, err := tx.Drafts(ctx, 7)
		is.NoErr(err)                                      // drafts read
		is.Equal(len(ds), 1)                               // the draft is kept
		is.Equal(ds[0].ID, store.DraftID(4))               // with its id
		is.Equal(ds[0].Content, "draft")                   // and its content
		is.Equal(ds[0].LastEdit.Unix(), int64(1767323045)) // and its time
		m, err := tx.Message(ctx, 5)
		is.NoErr(err)                                                                                                     // message read
		is.Equal(m.Submessages, []store.Submessage{{ID: 6, MessageID: 5, SenderID: 7, MsgType: "widget", Content: "{}"}}) // submessage kept with its id

		is.NoErr(tx.DeleteLinkifier(ctx, 9)) // newest linkifier deleted
		_, err = tx.DeleteDrafts(ctx, 7)
		is.NoErr(err) // draft deleted
		_, err = tx.DeleteMessages(ctx, store.MessageFilter{RealmID: 1}, 10)
		return err
	})
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		l := &store.Linkifier{RealmID: 2, Pattern: "C-(?P<id>[0-9]+)", URLTemplate: "https://c.test/{id}"}
		is.NoErr(tx.CreateLinkifier(ctx, l)) // linkifier created in another realm
		is.True(l.ID > 9)                    // the deleted linkifier's id is not reused
		d := &store.Draft{UserID: 7, Content: "again", LastEdit: epoch}
		is.NoErr(tx.CreateDraft(ctx, d)) // draft created
		is.True(d.ID > 4)                // the deleted draft's id is not reused
		m := &store.Message{RealmID: 1, SenderID: 7, Type: store.MessageTypeStream, RecipientID: 11, StreamID: 2,
			Topic: "topic", Content: "hi", RenderedContent: "<p>hi</p>", Client: "test", SentAt: epoch,
			Submessages: []store.Submessage{{SenderID: 7, MsgType: "widget", Content: "{}"}}}
		is.NoErr(tx.CreateMessage(ctx, m)) // message created
		is.True(m.Submessages[0].ID > 6)   // the deleted submessage's id is not reused
		return nil
	})

	writer, _ := sqlite.DBs(s)
	var indexes int
	is.NoErr(writer.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'index'
		AND name IN ('linkifiers_realm_order', 'drafts_user', 'submessages_message')`).Scan(&indexes)) // indexes listed
	is.Equal(indexes, 3) // the rebuilt tables keep their indexes
}

// TestMigrationEventAddressing opens a database written when each log entry
// had a row per addressee in event_users, with a foreign key to event_log
// (version 9): both migrations since keep every entry reaching its users
// (through an audience of its own), and pruning an entry deletes its
// audience.
func TestMigrationEventAddressing(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chat.db")
	raw := createAtVersion(t, path, 9)
	for _, q := range []string{
		`INSERT INTO event_log (id, realm_id, public, group_start, data) VALUES (1, 1, 0, 0, CAST('{"type":"a"}' AS BLOB)),
			(2, 1, 0, 0, CAST('{"type":"b"}' AS BLOB)), (3, 1, 1, 0, CAST('{"type":"c"}' AS BLOB))`,
		`INSERT INTO event_users (user_id, event_id) VALUES (7, 1), (8, 1), (7, 2)`,
	} {
		_, err := raw.Exec(q)
		is.NoErr(err) // version-9 row inserted
	}
	is.NoErr(raw.Close())

	s, err := sqlite.Open(ctx, path)
	is.NoErr(err) // the old database migrates
	t.Cleanup(func() { s.Close() })

	writer, _ := sqlite.DBs(s)
	var tables, audiences int
	is.NoErr(writer.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'event_users'`).Scan(&tables))
	is.Equal(tables, 0) // the table of addressing rows is gone
	is.NoErr(writer.QueryRow(`SELECT count(*) FROM event_audiences`).Scan(&audiences))
	is.Equal(audiences, 2) // one per addressed entry; the public one has none

	var seven, eight, nine []store.LoggedEvent
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		if seven, err = tx.EventsFor(ctx, store.EventLogQuery{RealmID: 1, UserID: 7}); err != nil {
			return err
		}
		if eight, err = tx.EventsFor(ctx, store.EventLogQuery{RealmID: 1, UserID: 8}); err != nil {
			return err
		}
		if nine, err = tx.EventsFor(ctx, store.EventLogQuery{RealmID: 1, UserID: 9, Public: true}); err != nil {
			return err
		}
		_, err := tx.PruneEvents(ctx, 1, 10)
		return err
	})
	is.Equal(len(seven), 2)                        // both entries still reach user 7
	is.Equal(len(eight), 1)                        // and the first user 8
	is.Equal(string(nine[0].Data), `{"type":"c"}`) // the public entry stays public
	is.NoErr(writer.QueryRow(`SELECT count(*) FROM event_audiences`).Scan(&audiences))
	is.Equal(audiences, 1) // the pruned entry's audience went with it
	var members int
	is.NoErr(writer.QueryRow(`SELECT count(*) FROM event_audience_users`).Scan(&members))
	is.Equal(members, 1) // and its users' rows
}
