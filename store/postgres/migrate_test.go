package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/pgtest"
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
	is.NoErr(stores[1].Update(ctx, func(tx chatcore.Tx) error {
		return tx.CreateRealm(ctx, &chatcore.Realm{StringID: "kept", Name: "Kept"})
	}))
	again, err := postgres.Open(ctx, url, postgres.WithSchema(schema))
	is.NoErr(err) // a current schema opens without migrating
	is.NoErr(again.View(ctx, func(tx chatcore.Tx) error { _, err := tx.RealmByStringID(ctx, "kept"); return err }))
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
