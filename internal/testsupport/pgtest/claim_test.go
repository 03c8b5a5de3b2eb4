package pgtest

import (
	"context"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// TestExpiredClaimIsDropped: a schema whose claim expired without a release
// (its test process was killed) may hold what that test wrote; the claim
// that finds it drops it and hands out another schema.
func TestExpiredClaimIsDropped(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	url, p := adminFor(t)
	dirty, err := claim(ctx, p)
	is.NoErr(err)
	st, err := postgres.Open(ctx, url, postgres.WithSchema(dirty), postgres.WithoutNotify())
	is.NoErr(err)
	err = st.Update(ctx, func(tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "left-behind", Name: "Left behind", DateCreated: time.Now()})
	})
	st.Close()
	is.NoErr(err) // the killed test's row
	_, err = p.Exec(ctx, "UPDATE public.chatcore_test_schemas SET claimed_until = now() - interval '1 second' WHERE name = $1", dirty)
	is.NoErr(err) // its claim expired, unreleased

	var claimed []string
	t.Cleanup(func() {
		for _, s := range claimed {
			if err := release(p, s); err != nil {
				t.Error(err)
			}
		}
	})
	exists := func(q string) bool {
		var ok bool
		is.NoErr(p.QueryRow(ctx, "SELECT EXISTS ("+q+")", dirty).Scan(&ok))
		return ok
	}
	// Released schemas go first; claim until the expired one has been found
	// (by this test or by another package's, running at the same time).
	for exists("SELECT 1 FROM pg_namespace WHERE nspname = $1") {
		if len(claimed) == 1000 {
			t.Fatal("the expired schema was never claimed")
		}
		name, err := claim(ctx, p)
		is.NoErr(err)
		claimed = append(claimed, name)
		is.True(name != dirty) // never handed out with the old rows
	}
	is.True(!exists("SELECT 1 FROM public.chatcore_test_schemas WHERE name = $1")) // and forgotten
}
