package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// terminateSelf makes the server end the session of tx's connection, as
// pg_terminate_backend from elsewhere or a server shutdown would: the
// statement fails with SQLSTATE 57P01 and the connection is gone.
func terminateSelf(ctx context.Context, tx store.Tx) error {
	_, err := postgres.TxQueryString(ctx, tx, "SELECT pg_terminate_backend(pg_backend_pid())::text")
	return err
}

// realmIDs returns the string ids of the realms of s.
func realmIDs(ctx context.Context, s store.Store) ([]string, error) {
	var ids []string
	err := s.View(ctx, func(tx store.Tx) error {
		rs, err := tx.Realms(ctx)
		ids = ids[:0]
		for _, r := range rs {
			ids = append(ids, r.StringID)
		}
		return err
	})
	return ids, err
}

// TestLostConnectionRunsAgain: a View, a ViewSingle and an Update (alone
// and in a write group) whose connection the server ends mid-transaction
// run again on another connection and succeed; the Update's writes of the
// lost run are not committed, so each write is made once.
func TestLostConnectionRunsAgain(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []postgres.Option
	}{{"alone", nil}, {"write groups", []postgres.Option{postgres.WithWriteGroups(2)}}} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			ctx := context.Background()
			s := pgtest.Open(t, tc.opts...)

			runs := 0
			err := s.Update(ctx, func(tx store.Tx) error {
				runs++
				if err := tx.CreateRealm(ctx, &store.Realm{StringID: "once", Name: "Once", DateCreated: time.Now()}); err != nil {
					return err
				}
				if runs == 1 {
					if err := terminateSelf(ctx, tx); err != nil {
						return err
					}
				}
				return nil
			})
			is.NoErr(err)     // the Update ran again and committed
			is.Equal(runs, 2) // once more after the lost connection
			ids, err := realmIDs(ctx, s)
			is.NoErr(err)
			is.Equal(ids, []string{"once"}) // the lost run's write is not there twice

			runs = 0
			var got []string
			err = s.View(ctx, func(tx store.Tx) error {
				runs++
				if runs == 1 {
					if err := terminateSelf(ctx, tx); err != nil {
						return err
					}
				}
				rs, err := tx.Realms(ctx)
				got = got[:0]
				for _, r := range rs {
					got = append(got, r.StringID)
				}
				return err
			})
			is.NoErr(err)                   // the View ran again
			is.Equal(runs, 2)               // once more
			is.Equal(got, []string{"once"}) // and read what is there

			runs = 0
			err = s.ViewSingle(ctx, func(tx store.Tx) error {
				runs++
				if runs == 1 {
					return terminateSelf(ctx, tx)
				}
				_, err := tx.Realms(ctx)
				return err
			})
			is.NoErr(err)     // the single read ran again
			is.Equal(runs, 2) // once more
		})
	}
}

// TestLostConnectionEndsUnavailable: a transaction that loses its
// connection on every run stops after a bounded number of runs with an
// error wrapping store.ErrUnavailable, having committed nothing.
func TestLostConnectionEndsUnavailable(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := pgtest.Open(t, postgres.WithWriteGroups(2))
	runs := 0
	err := s.Update(ctx, func(tx store.Tx) error {
		runs++
		if err := tx.CreateRealm(ctx, &store.Realm{StringID: "never", Name: "Never", DateCreated: time.Now()}); err != nil {
			return err
		}
		return terminateSelf(ctx, tx)
	})
	is.True(errors.Is(err, store.ErrUnavailable)) // passing trouble, for the caller to retry
	is.Equal(runs, 4)                             // one run and three more
	ids, err := realmIDs(ctx, s)
	is.NoErr(err)
	is.Equal(len(ids), 0) // nothing committed

	runs = 0
	err = s.View(ctx, func(tx store.Tx) error {
		runs++
		return terminateSelf(ctx, tx)
	})
	is.True(errors.Is(err, store.ErrUnavailable)) // the View too
	is.Equal(runs, 4)
}

// TestStatementErrorIsNotUnavailable: an error the server answers for a
// statement (here a division by zero) is no lost connection: not retried,
// not unavailable.
func TestStatementErrorIsNotUnavailable(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	s := pgtest.Open(t)
	runs := 0
	err := s.View(ctx, func(tx store.Tx) error {
		runs++
		_, err := postgres.TxQueryString(ctx, tx, "SELECT (1/0)::text")
		return err
	})
	is.True(err != nil)                            // the statement fails
	is.True(!errors.Is(err, store.ErrUnavailable)) // as a bug, not passing trouble
	is.Equal(runs, 1)                              // and runs once
}
