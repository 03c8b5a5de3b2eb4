package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

func TestMigrations(t *testing.T) {
	is := is.New(t)
	url, schema := pgtest.UnpooledSchema(t) // changed below: never reused
	ctx := context.Background()

	// Two instances opening a new database at once: one migrates, the other
	// waits for it and finds the schema current.
	stores := make([]*postgres.Store, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(ctx, url, postgres.WithSchema(schema)) })
	}
	wg.Wait()
	for i, st := range stores {
		is.NoErr(errs[i]) // both open
		t.Cleanup(func() { st.Close() })
	}
	var version int
	is.NoErr(stores[0].Pool().QueryRow(ctx, "SELECT version FROM chatcore_schema").Scan(&version))
	is.Equal(version, postgres.SchemaVersion()) // the current version, recorded once
	var rows int
	is.NoErr(stores[0].Pool().QueryRow(ctx, "SELECT count(*) FROM chatcore_schema").Scan(&rows))
	is.Equal(rows, 1) // one version row

	// Data written through one is there when the schema is opened again.
	is.NoErr(stores[1].Update(ctx, func(tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "kept", Name: "Kept"})
	}))
	again, err := postgres.Open(ctx, url, postgres.WithSchema(schema))
	is.NoErr(err) // a current schema opens without migrating
	is.NoErr(again.View(ctx, func(tx store.Tx) error { _, err := tx.RealmByStringID(ctx, "kept"); return err }))
	again.Close()

	// A schema written by a newer version is refused.
	_, err = stores[0].Pool().Exec(ctx, "UPDATE chatcore_schema SET version = version + 1")
	is.NoErr(err)
	_, err = postgres.Open(ctx, url, postgres.WithSchema(schema))
	is.True(errors.Is(err, postgres.ErrNewerSchema)) // refused, with the reason
	_, err = stores[0].Pool().Exec(ctx, "UPDATE chatcore_schema SET version = version - 1")
	is.NoErr(err)

	// A settings column missing (a setting added without a migration) is
	// refused at Open.
	_, err = stores[0].Pool().Exec(ctx, `ALTER TABLE users DROP COLUMN "color_scheme"`)
	is.NoErr(err)
	_, err = postgres.Open(ctx, url, postgres.WithSchema(schema))
	is.True(err != nil) // refused
}

func TestOpenErrors(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	_, err := postgres.Open(ctx, "postgres://%zz")
	is.True(err != nil) // a malformed URL
	url, schema := pgtest.Schema(t)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = postgres.Open(cctx, url, postgres.WithSchema(schema))
	is.True(err != nil) // a cancelled context
}

// TestEventAudiencesMigration: migration 0022 gives each entry already in
// the log an audience of its event_users rows, so polls still find them;
// a new entry for the same users gets an audience of its own (the migrated
// ones are keyed by entry), later ones share it; pruning deletes the
// audiences only pruned entries named, with their users.
func TestEventAudiencesMigration(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	entries := []store.LoggedEvent{
		{RealmID: 1, UserIDs: []store.UserID{3, 5, 7}, Data: []byte(`{"type":"a"}`)},
		{RealmID: 1, Public: true, Data: []byte(`{"type":"b"}`)},
		{RealmID: 2, UserIDs: []store.UserID{3}, Data: []byte(`{"type":"c"}`)},
	}
	st := migratedFrom(t, func(st *postgres.Store) {
		is.NoErr(st.Update(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, entries) }))
	},
		// Back to the schema before 0022, with the log as it held the entries.
		`CREATE TABLE event_users (user_id bigint NOT NULL, event_id bigint NOT NULL, PRIMARY KEY (user_id, event_id));
		ALTER TABLE event_log ADD COLUMN users bigint[] NOT NULL DEFAULT '{}';
		UPDATE event_log e SET users = a.users
		FROM (SELECT audience_id, array_agg(user_id ORDER BY user_id) AS users FROM event_audience_users GROUP BY audience_id) a
		WHERE a.audience_id = e.audience_id;
		INSERT INTO event_users (user_id, event_id) SELECT unnest(users), id FROM event_log;
		DROP INDEX event_log_audience;
		ALTER TABLE event_log DROP COLUMN audience_id;
		DROP TABLE event_audience_users, event_audiences;
		UPDATE chatcore_schema SET version = 21`)
	count := func(query string) (n int) {
		is.NoErr(st.Pool().QueryRow(ctx, query).Scan(&n))
		return n
	}
	is.Equal(count("SELECT count(*) FROM event_audiences"), 2)      // one per addressed entry
	is.Equal(count("SELECT count(*) FROM event_audience_users"), 4) // their users
	is.Equal(count("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'event_users'"), 0)
	polled := func(realm store.RealmID, user store.UserID, public bool) (data []string) {
		is.NoErr(st.View(ctx, func(tx store.Tx) error {
			got, err := tx.EventsFor(ctx, store.EventLogQuery{RealmID: realm, UserID: user, Public: public})
			for _, e := range got {
				data = append(data, string(e.Data))
			}
			return err
		}))
		return data
	}
	is.Equal(polled(1, 5, false), []string{`{"type":"a"}`})                // the migrated entry reaches its user
	is.Equal(polled(1, 4, true), []string{`{"type":"b"}`})                 // the public one the others
	is.Equal(polled(2, 3, false), []string{`{"type":"c"}`})                // another realm's
	is.Equal(polled(1, 3, true), []string{`{"type":"a"}`, `{"type":"b"}`}) // no group: both

	more := []store.LoggedEvent{
		{RealmID: 1, UserIDs: []store.UserID{3, 5, 7}, Data: []byte(`{"type":"d"}`)},
		{RealmID: 1, UserIDs: []store.UserID{7, 5, 3}, Data: []byte(`{"type":"e"}`)},
	}
	is.NoErr(st.Update(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, more) }))
	is.Equal(count("SELECT count(*) FROM event_audiences"), 3) // the two new entries share a new one
	is.Equal(polled(1, 7, false), []string{`{"type":"a"}`, `{"type":"d"}`, `{"type":"e"}`})

	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		n, err := tx.PruneEvents(ctx, entries[2].ID, 10)
		is.Equal(n, 3) // the migrated entries
		return err
	}))
	is.Equal(count("SELECT count(*) FROM event_audiences"), 1)      // the new entries' only
	is.Equal(count("SELECT count(*) FROM event_audience_users"), 3) // with its users
	is.Equal(polled(1, 5, false), []string{`{"type":"d"}`, `{"type":"e"}`})
}

// TestFlagsForeignKeyMigration: migration 0023 drops the flag rows' foreign
// key to their message from a database that has it, and the trigger that
// replaces its cascade deletes a deleted message's rows, leaving the
// others'.
func TestFlagsForeignKeyMigration(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	var ann *store.User
	var general *store.Stream
	var kept store.MessageID
	st := migratedFrom(t, func(st *postgres.Store) {
		w := chattest.New(t, chattest.OnStore(st))
		_, ann, general = annInGeneral(t, w, "fkmigration")
		var gone store.MessageID
		kept, gone = w.Post(t, general, "kept", ann, "one"), w.Post(t, general, "gone", ann, "two")
		is.NoErr(st.Update(ctx, func(tx store.Tx) error {
			return tx.PutUserMessageFlags(ctx, []store.UserMessageFlags{
				{UserID: ann.ID, MessageID: kept, Flags: store.FlagStarred}, {UserID: ann.ID, MessageID: gone, Flags: store.FlagStarred}})
		}))
	},
		// Back to the schema before 0023.
		`DROP TRIGGER messages_delete_flags ON messages;
		DROP FUNCTION messages_delete_flags();
		ALTER TABLE user_message_flags ADD CONSTRAINT user_message_flags_message_id_fkey
			FOREIGN KEY (message_id) REFERENCES messages (id) ON DELETE CASCADE;
		UPDATE chatcore_schema SET version = 22`)
	var keys int
	is.NoErr(st.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_constraint
		WHERE conrelid = 'user_message_flags'::regclass AND contype = 'f'`).Scan(&keys))
	is.Equal(keys, 0) // the foreign key is gone
	key := store.TopicKey("gone")
	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		deleted, err := tx.DeleteMessages(ctx, store.MessageFilter{RealmID: general.RealmID, StreamID: general.ID, TopicKey: &key}, 10)
		is.Equal(len(deleted), 1) // the topic's message
		return err
	}))
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		starred, err := tx.FlaggedMessageIDs(ctx, ann.ID, store.FlagStarred)
		is.Equal(starred, []store.MessageID{kept}) // the deleted message's row went with it
		return err
	}))
}

// migratedFrom opens a store in a schema of its own (never reused), lets
// fill write to it, turns the schema back to an older shape with undo (which
// also sets chatcore_schema's version), and returns the store opened again,
// which has migrated it to the current version.
func migratedFrom(t *testing.T, fill func(st *postgres.Store), undo string) *postgres.Store {
	t.Helper()
	is := is.New(t)
	url, schema := pgtest.UnpooledSchema(t)
	ctx := context.Background()
	st, err := postgres.Open(ctx, url, postgres.WithSchema(schema), postgres.WithoutNotify())
	is.NoErr(err)
	fill(st)
	_, err = st.Pool().Exec(ctx, undo)
	is.NoErr(err)
	st.Close()
	st, err = postgres.Open(ctx, url, postgres.WithSchema(schema), postgres.WithoutNotify())
	is.NoErr(err)
	t.Cleanup(func() { st.Close() })
	return st
}
