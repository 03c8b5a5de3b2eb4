package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// gateMode is the mode in which the transaction of tx holds the write gate.
func gateMode(ctx context.Context, tx store.Tx) (string, error) {
	return postgres.TxQueryString(ctx, tx, `SELECT coalesce(string_agg(mode, ','), '') FROM pg_locks
		WHERE relation = 'chatcore_write_gate'::regclass AND pid = pg_backend_pid() AND granted`)
}

// TestUpdateRunsAloneAfterTwoFailures: an Update whose attempts fail to
// serialise runs its third attempt alone among Updates: it holds the write
// gate exclusively, and another Update waits for it to end.
func TestUpdateRunsAloneAfterTwoFailures(t *testing.T) {
	is := is.New(t)
	a, b := instances(t)
	ctx := context.Background()
	var modes []string
	started, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- a.Update(ctx, func(tx store.Tx) error {
			mode, err := gateMode(ctx, tx)
			if err != nil {
				return err
			}
			modes = append(modes, mode)
			if len(modes) <= 2 {
				return postgres.TxExec(ctx, tx, `DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = 'serialization_failure'; END $$`)
			}
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	other := make(chan error, 1)
	go func() {
		other <- b.Update(ctx, func(tx store.Tx) error {
			mode, err := gateMode(ctx, tx)
			if err == nil && mode != "RowShareLock" {
				err = errors.New("the gate in mode " + mode)
			}
			return err
		})
	}()
	waiting := false
	for range 200 {
		var n int
		err := b.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_locks
			WHERE relation = 'chatcore_write_gate'::regclass AND NOT granted`).Scan(&n)
		is.NoErr(err)
		if n > 0 {
			waiting = true
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	is.True(waiting) // the other Update waits for the one running alone
	select {
	case err := <-other:
		t.Fatalf("the other Update ended while one ran alone: %v", err)
	default:
	}
	close(release)
	is.NoErr(<-done)                                                           // the third attempt commits
	is.Equal(modes, []string{"RowShareLock", "RowShareLock", "ExclusiveLock"}) // shared twice, then alone
	is.NoErr(<-other)                                                          // the other Update then runs, sharing the gate
}

// TestCloseTwice: closing a Store again is harmless.
func TestCloseTwice(t *testing.T) {
	is := is.New(t)
	a, _ := instances(t)
	is.NoErr(a.Close()) // the first close
	is.NoErr(a.Close()) // and another, as a test cleanup may do
}

// TestAloneAttemptWaitsBounded: an attempt that would run alone gives up
// waiting for the write gate after a bounded time (a transaction left open
// elsewhere would otherwise hold up every write), and Update tries again; it
// returns the lock timeout once its attempts are used up.
func TestAloneAttemptWaitsBounded(t *testing.T) {
	is := is.New(t)
	url, schema := pgtest.Schema(t)
	open := func(opts ...postgres.Option) *postgres.Store {
		st, err := postgres.Open(context.Background(), url, append(opts, postgres.WithSchema(schema), postgres.WithPoolConfig(pgtest.Fast))...)
		is.NoErr(err) // opened
		t.Cleanup(func() { st.Close() })
		return st
	}
	a, b := open(postgres.WithMaxAttempts(4)), open()
	ctx := context.Background()

	holding, release, held := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		held <- b.Update(ctx, func(tx store.Tx) error {
			if _, err := gateMode(ctx, tx); err != nil { // the first statement begins the transaction
				return err
			}
			close(holding)
			<-release // an Update left open, holding the gate in ROW SHARE mode
			return nil
		})
	}()
	<-holding
	runs := 0
	err := a.Update(ctx, func(tx store.Tx) error {
		runs++
		return postgres.TxExec(ctx, tx, `DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = 'serialization_failure'; END $$`)
	})
	close(release)
	is.NoErr(<-held)
	is.True(err != nil)                                      // the Update gave up
	is.True(strings.Contains(err.Error(), "SQLSTATE 55P03")) // waiting for the gate timed out
	is.Equal(runs, 4)                                        // every attempt ran fn; the two alone ones failed at their first statement, waiting for the gate
}

// TestTransactionsWithoutStatements: a View or an Update whose fn runs no
// statement never begins a transaction on the server (the first statement
// carries the BEGIN), and ends cleanly; the connection goes back to the pool
// usable.
func TestTransactionsWithoutStatements(t *testing.T) {
	is := is.New(t)
	a, _ := instances(t)
	ctx := context.Background()
	for range 10 { // more than the pool's connections
		is.NoErr(a.View(ctx, func(store.Tx) error { return nil }))   // an empty View
		is.NoErr(a.Update(ctx, func(store.Tx) error { return nil })) // an empty Update
	}
	err := a.Update(ctx, func(tx store.Tx) error {
		mode, err := gateMode(ctx, tx)
		is.Equal(mode, "RowShareLock") // the first statement came after BEGIN and the gate's lock
		return err
	})
	is.NoErr(err)
}

// TestIdentitySequenceNames: every table's id column takes its values from
// a sequence named table_id_seq, the name the store's inserts use.
func TestIdentitySequenceNames(t *testing.T) {
	is := is.New(t)
	st := pgtest.Open(t)
	ctx := context.Background()
	rows, err := st.Pool().Query(ctx, `SELECT c.table_name, coalesce(pg_get_serial_sequence(quote_ident(c.table_name), 'id'), '')
		FROM information_schema.columns c
		WHERE c.table_schema = current_schema() AND c.column_name = 'id' AND (c.is_identity = 'YES' OR c.column_default LIKE 'nextval%')`)
	is.NoErr(err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		var table, seq string
		is.NoErr(rows.Scan(&table, &seq))
		is.Equal(seq, st.Schema()+"."+table+"_id_seq") // the sequence of table.id
		n++
	}
	is.NoErr(rows.Err())
	is.True(n >= 12) // every table with generated ids was seen
}

// TestViewSingle: ViewSingle runs its one statement in one round trip, with
// no transaction around it; a second statement and a write fail; the
// connection goes back to the pool usable.
func TestViewSingle(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	st, trips := tracedStore(t)
	realm := createRealm(t, st, "single")

	for range 10 { // more than the pool's connections
		before := trips.n.Load()
		var got *store.Realm
		err := st.ViewSingle(ctx, func(tx store.Tx) error {
			var err error
			got, err = tx.RealmByStringID(ctx, "single")
			return err
		})
		is.NoErr(err)
		is.Equal(got.ID, realm.ID)
		is.Equal(trips.n.Load()-before, int64(1)) // the statement alone: no BEGIN, no ROLLBACK
	}
	var isolation string
	err := st.ViewSingle(ctx, func(tx store.Tx) error {
		var err error
		isolation, err = postgres.TxQueryString(ctx, tx, "SELECT current_setting('transaction_isolation')")
		return err
	})
	is.NoErr(err)
	is.Equal(isolation, "read committed") // the statement ran on its own, not in View's REPEATABLE READ transaction

	err = st.ViewSingle(ctx, func(tx store.Tx) error {
		if _, err := tx.Realm(ctx, realm.ID); err != nil {
			return err
		}
		_, err := tx.Realm(ctx, realm.ID)
		return err
	})
	is.True(err != nil) // a second statement fails
	is.True(strings.Contains(err.Error(), "second statement"))

	err = st.ViewSingle(ctx, func(tx store.Tx) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: "written", Name: "Written", DateCreated: time.Now()})
	})
	is.True(errors.Is(err, postgres.ErrReadOnly)) // no writes
	is.NoErr(st.View(ctx, func(tx store.Tx) error {
		_, err := tx.RealmByStringID(ctx, "single")
		return err
	})) // the pool's connections are usable
}

// TestJITOffUnlessSet: the Store's connections run with JIT compilation
// off, unless the connection string sets jit.
func TestJITOffUnlessSet(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	jit := func(st *postgres.Store) string {
		var v string
		is.NoErr(st.View(ctx, func(tx store.Tx) error {
			var err error
			v, err = postgres.TxQueryString(ctx, tx, "SELECT current_setting('jit')")
			return err
		}))
		return v
	}
	is.Equal(jit(pgtest.Open(t)), "off") // the Store's default

	url, schema := pgtest.Schema(t)
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	st, err := postgres.Open(ctx, url+sep+"jit=on", postgres.WithSchema(schema))
	is.NoErr(err)
	defer st.Close()
	is.Equal(jit(st), "on") // the connection string's choice
}
