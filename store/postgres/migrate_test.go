package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/matryer/is"

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

// TestEventAddresseesMigration: migration 0005 gives each entry already in
// the log the addressees of its event_users rows and drops the index by
// event id; pruning afterwards deletes those rows with their entries.
func TestEventAddresseesMigration(t *testing.T) {
	is := is.New(t)
	url, schema := pgtest.UnpooledSchema(t) // changed below: never reused
	ctx := context.Background()
	st, err := postgres.Open(ctx, url, postgres.WithSchema(schema), postgres.WithoutNotify())
	is.NoErr(err)
	entries := []store.LoggedEvent{
		{RealmID: 1, UserIDs: []store.UserID{7, 3, 5}, Data: []byte(`{"type":"a"}`)},
		{RealmID: 1, Public: true, Data: []byte(`{"type":"b"}`)},
		{RealmID: 2, UserIDs: []store.UserID{3}, Data: []byte(`{"type":"c"}`)},
	}
	is.NoErr(st.Update(ctx, func(tx store.Tx) error { return tx.AppendEvents(ctx, entries) }))
	addressees := func(st *postgres.Store) [][]int64 {
		rows, err := st.Pool().Query(ctx, "SELECT users FROM event_log ORDER BY id")
		is.NoErr(err)
		users, err := pgx.CollectRows(rows, pgx.RowTo[[]int64])
		is.NoErr(err)
		return users
	}
	want := [][]int64{{3, 5, 7}, {}, {3}}
	is.Equal(addressees(st), want) // appended with their addressees, sorted

	// Back to the schema before 0005, with the log as it held the entries.
	_, err = st.Pool().Exec(ctx, `ALTER TABLE event_log DROP COLUMN users;
		CREATE INDEX event_users_event ON event_users (event_id);
		UPDATE chatcore_schema SET version = 4`)
	is.NoErr(err)
	st.Close()

	st, err = postgres.Open(ctx, url, postgres.WithSchema(schema), postgres.WithoutNotify())
	is.NoErr(err)
	t.Cleanup(func() { st.Close() })
	is.Equal(addressees(st), want) // filled in from event_users
	var index *string
	is.NoErr(st.Pool().QueryRow(ctx, "SELECT to_regclass('event_users_event')::text").Scan(&index))
	is.Equal(index, nil) // dropped

	is.NoErr(st.Update(ctx, func(tx store.Tx) error {
		n, err := tx.PruneEvents(ctx, entries[1].ID, 10)
		is.Equal(n, 2) // the first two entries
		return err
	}))
	count := func(table string) (n int) {
		is.NoErr(st.Pool().QueryRow(ctx, "SELECT count(*) FROM "+table).Scan(&n))
		return n
	}
	is.Equal(count("event_log"), 1)   // the third entry stays
	is.Equal(count("event_users"), 1) // with its one addressee; the first entry's three went with it
}
