package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/postgres"
)

// inOneGroup runs the Updates fns on st, a store with one write group slot,
// so that they share one group: the first one's fn waits until every other
// Update is queued behind it, so they join its group in turn. It returns
// each Update's error, or its panic's value wrapped in an error.
func inOneGroup(t *testing.T, st *postgres.Store, fns ...func(ctx context.Context, tx store.Tx) error) []error {
	t.Helper()
	ctx := context.Background()
	errs := make([]error, len(fns))
	run := func(i int, fn func(tx store.Tx) error) {
		defer func() {
			if r := recover(); r != nil {
				errs[i] = errPanic{r}
			}
		}()
		errs[i] = st.Update(ctx, fn)
	}
	var started sync.Once
	startedCh, release := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		run(0, func(tx store.Tx) error {
			started.Do(func() { close(startedCh) })
			<-release
			return fns[0](ctx, tx)
		})
	})
	<-startedCh
	for i := 1; i < len(fns); i++ {
		wg.Go(func() { run(i, func(tx store.Tx) error { return fns[i](ctx, tx) }) })
	}
	for deadline := time.Now().Add(10 * time.Second); postgres.QueuedUpdates(st) < int64(len(fns)-1); {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d Updates queued", postgres.QueuedUpdates(st), len(fns)-1)
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	return errs
}

// errPanic is the error inOneGroup reports for an Update that panicked.
type errPanic struct{ value any }

func (e errPanic) Error() string { return "panic" }

// groupStore opens a store on a new schema with one write group slot.
func groupStore(t *testing.T) *postgres.Store {
	return pgtest.OpenUnpooled(t, postgres.WithWriteGroups(1), postgres.WithoutNotify())
}

// newRealm returns the fn of an Update creating the realm with the
// string id, which then returns err from then (nil: none).
func newRealm(id string, then func(ctx context.Context, tx store.Tx) error) func(ctx context.Context, tx store.Tx) error {
	return func(ctx context.Context, tx store.Tx) error {
		if err := tx.CreateRealm(ctx, &store.Realm{StringID: id, Name: id, DateCreated: time.Now()}); err != nil {
			return err
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	}
}

// realms reports which of the string ids st has a realm of.
func realms(t *testing.T, st *postgres.Store, ids ...string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := st.View(context.Background(), func(tx store.Tx) error {
		for _, id := range ids {
			_, err := tx.RealmByStringID(context.Background(), id)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			out[id] = err == nil
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestGroupCommitSharesOneTransaction: Updates queued behind one another
// commit in one transaction, each with its own changes.
func TestGroupCommitSharesOneTransaction(t *testing.T) {
	is := is.New(t)
	st := groupStore(t)
	before := postgres.GroupCommits(st)
	errs := inOneGroup(t, st, newRealm("a", nil), newRealm("b", nil), newRealm("c", nil), newRealm("d", nil))
	is.Equal(errs, make([]error, 4))                     // every Update committed
	is.Equal(postgres.GroupCommits(st)-before, int64(1)) // in one transaction
	is.Equal(realms(t, st, "a", "b", "c", "d"), map[string]bool{"a": true, "b": true, "c": true, "d": true})
}

// TestGroupCommitFailureIsAlone: an Update of a group whose fn refuses
// leaves nothing and the others commit; one whose statement fails on the
// server fails alone too, and ends the group, whose other Updates run again
// alone and commit.
func TestGroupCommitFailureIsAlone(t *testing.T) {
	is := is.New(t)
	st := groupStore(t)
	refused := errors.New("refused")
	errs := inOneGroup(t, st,
		newRealm("a", nil),
		newRealm("b", func(context.Context, store.Tx) error { return refused }),
		newRealm("c", nil),
		newRealm("d", func(ctx context.Context, tx store.Tx) error {
			return postgres.TxExec(ctx, tx, "SELECT 1 / 0")
		}),
		newRealm("e", nil),
	)
	is.NoErr(errs[0])
	is.True(errors.Is(errs[1], refused)) // its own error
	is.NoErr(errs[2])
	is.True(errs[3] != nil) // the server's error
	is.NoErr(errs[4])
	is.Equal(realms(t, st, "a", "b", "c", "d", "e"), map[string]bool{"a": true, "b": false, "c": true, "d": false, "e": true})
}

// TestGroupCommitConflictRunsEachAgain: a serialization failure in an
// Update dooms its group; every Update of the group runs again, alone, and
// commits.
func TestGroupCommitConflictRunsEachAgain(t *testing.T) {
	is := is.New(t)
	st := groupStore(t)
	var runs [3]atomic.Int64
	count := func(i int, fn func(ctx context.Context, tx store.Tx) error) func(ctx context.Context, tx store.Tx) error {
		return func(ctx context.Context, tx store.Tx) error { runs[i].Add(1); return fn(ctx, tx) }
	}
	errs := inOneGroup(t, st,
		count(0, newRealm("a", nil)),
		count(1, newRealm("b", func(ctx context.Context, tx store.Tx) error {
			if runs[1].Load() == 1 {
				return postgres.TxExec(ctx, tx, `DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = 'serialization_failure'; END $$`)
			}
			return nil
		})),
		count(2, newRealm("c", nil)),
	)
	is.Equal(errs, make([]error, 3)) // all committed in the end
	is.Equal(realms(t, st, "a", "b", "c"), map[string]bool{"a": true, "b": true, "c": true})
	is.Equal(runs[0].Load(), int64(2)) // its group rolled back under it
	is.Equal(runs[1].Load(), int64(2)) // the conflict, then alone
	// Once in the doomed group, or once in the next group when it joined
	// after the conflict.
	is.True(runs[2].Load() == 1 || runs[2].Load() == 2)
}

// TestGroupCommitHeldBackInsertFailsItsOwn: a message insert held back in
// a group (see CreateMessage) that the server refuses reaches it with
// another Update's statement or the group's COMMIT; the group rolls back,
// the other Updates run again and commit, and the insert fails its own
// Update, with its own error.
func TestGroupCommitHeldBackInsertFailsItsOwn(t *testing.T) {
	is := is.New(t)
	st := groupStore(t)
	realm := store.Realm{StringID: "home", Name: "home", DateCreated: time.Now()}
	is.NoErr(st.Update(t.Context(), func(tx store.Tx) error { return tx.CreateRealm(t.Context(), &realm) }))
	errs := inOneGroup(t, st,
		newRealm("a", nil),
		func(ctx context.Context, tx store.Tx) error {
			store.Announce(tx, store.Prefetch{Realms: []store.RealmID{realm.ID}, NewMessages: 1})
			if _, err := tx.Realm(ctx, realm.ID); err != nil {
				return err
			}
			// PostgreSQL's text holds no NUL, which the Service refuses first.
			return tx.CreateMessage(ctx, &store.Message{RealmID: realm.ID, SenderID: 1, Type: store.MessageTypeStream,
				RecipientID: 1, StreamID: 1, Topic: "t", Content: "a\x00b", RenderedContent: "<p>a</p>", Client: "test"})
		},
		newRealm("c", nil),
	)
	is.NoErr(errs[0]) // the others committed
	is.NoErr(errs[2])
	is.True(errs[1] != nil) // the insert failed its own Update
	is.True(strings.Contains(errs[1].Error(), "create message: ERROR: invalid byte sequence"))
	is.Equal(realms(t, st, "a", "c"), map[string]bool{"a": true, "c": true})
	is.NoErr(st.View(t.Context(), func(tx store.Tx) error {
		msgs, err := tx.Messages(t.Context(), store.MessageQuery{RealmID: realm.ID})
		is.Equal(len(msgs), 0) // and left nothing
		return err
	}))
}

// TestGroupCommitRunsTheOthersAgainWithOneAttempt: with one attempt
// allowed, the Update whose serialization failure dooms its group fails
// with it, and the group's other Updates still run again and commit: their
// first run ended for another's conflict, which is not an attempt of theirs.
func TestGroupCommitRunsTheOthersAgainWithOneAttempt(t *testing.T) {
	is := is.New(t)
	st := pgtest.OpenUnpooled(t, postgres.WithWriteGroups(1), postgres.WithoutNotify(), postgres.WithMaxAttempts(1))
	errs := inOneGroup(t, st,
		newRealm("a", nil),
		newRealm("b", func(ctx context.Context, tx store.Tx) error {
			return postgres.TxExec(ctx, tx, `DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = 'serialization_failure'; END $$`)
		}),
		newRealm("c", nil),
	)
	is.NoErr(errs[0])
	is.True(postgres.IsSerializationFailure(errs[1])) // its own conflict, and no attempt left
	is.NoErr(errs[2])
	is.Equal(realms(t, st, "a", "b", "c"), map[string]bool{"a": true, "b": false, "c": true})
}

// TestGroupCommitPanicIsAlone: an Update that panics in a group is rolled
// back to its savepoint, its panic goes on, and the others commit.
func TestGroupCommitPanicIsAlone(t *testing.T) {
	is := is.New(t)
	st := groupStore(t)
	errs := inOneGroup(t, st,
		newRealm("a", nil),
		newRealm("b", func(context.Context, store.Tx) error { panic("boom") }),
		newRealm("c", nil),
	)
	is.NoErr(errs[0])
	var p errPanic
	is.True(errors.As(errs[1], &p)) // the panic reached the caller
	is.Equal(p.value, "boom")
	is.NoErr(errs[2])
	is.Equal(realms(t, st, "a", "b", "c"), map[string]bool{"a": true, "b": false, "c": true})
}

// TestGroupCommitCancelledIsAlone: an Update whose context ends while it
// waits for its group fails with the context's error, and the others
// commit.
func TestGroupCommitCancelledIsAlone(t *testing.T) {
	is := is.New(t)
	st := groupStore(t)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	errs := inOneGroup(t, st,
		newRealm("a", nil),
		func(_ context.Context, tx store.Tx) error { return newRealm("b", nil)(cancelled, tx) },
		newRealm("c", nil),
	)
	is.NoErr(errs[0])
	is.True(errors.Is(errs[1], context.Canceled)) // its statement was not sent
	is.NoErr(errs[2])
	is.Equal(realms(t, st, "a", "b", "c"), map[string]bool{"a": true, "b": false, "c": true})
}

// TestGroupCommitAppendsWithCommit: the appends of a group's Updates go
// with its COMMIT, in the Updates' order, each Update's entries with their
// ids; an Update that reads the log behind them runs again alone, after the
// group committed, and sees them.
func TestGroupCommitAppendsWithCommit(t *testing.T) {
	is := is.New(t)
	st := groupStore(t)
	ctx := context.Background()
	var realm store.RealmID
	err := st.Update(ctx, func(tx store.Tx) error {
		r := &store.Realm{StringID: "log", Name: "Log", DateCreated: time.Now()}
		err := tx.CreateRealm(ctx, r)
		realm = r.ID
		return err
	})
	is.NoErr(err)
	entries := [][]store.LoggedEvent{
		{{RealmID: realm, UserIDs: []store.UserID{1}, Data: []byte(`{"type":"one"}`)}},
		{{RealmID: realm, UserIDs: []store.UserID{2}, Data: []byte(`{"type":"two"}`)},
			{RealmID: realm, UserIDs: []store.UserID{1, 2}, Data: []byte(`{"type":"three"}`)}},
	}
	appendOnce := func(i int) func(ctx context.Context, tx store.Tx) error {
		return func(ctx context.Context, tx store.Tx) error {
			for j := range entries[i] {
				entries[i][j].ID = 0 // as a new run of the Update's fn would build them
			}
			return tx.AppendEvents(ctx, entries[i])
		}
	}
	errs := inOneGroup(t, st, appendOnce(0), appendOnce(1))
	is.Equal(errs, make([]error, 2))
	ids := []int64{entries[0][0].ID, entries[1][0].ID, entries[1][1].ID}
	is.True(ids[0] > 0 && ids[0] < ids[1] && ids[1] < ids[2]) // in the Updates' order
	var got []string
	err = st.View(ctx, func(tx store.Tx) error {
		es, err := tx.EventsFor(ctx, store.EventLogQuery{RealmID: realm, UserID: 1, Limit: 10})
		for _, e := range es {
			got = append(got, string(e.Data))
		}
		return err
	})
	is.NoErr(err)
	is.Equal(got, []string{`{"type":"one"}`, `{"type":"three"}`}) // user 1's entries, stored

	var head int64
	var headRuns atomic.Int64
	errs = inOneGroup(t, st, appendOnce(0), func(ctx context.Context, tx store.Tx) error {
		headRuns.Add(1)
		var err error
		head, err = tx.LastEventID(ctx, realm)
		return err
	})
	is.Equal(errs, make([]error, 2))
	is.Equal(headRuns.Load(), int64(2)) // behind the group's append, then alone
	is.Equal(head, entries[0][0].ID)    // after the group committed
}
