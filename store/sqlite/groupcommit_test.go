package sqlite_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
)

// TestGroupCommitEachUpdateAlone queues Updates behind one that holds the
// writer, so that they share its transaction, and checks that each succeeds
// or fails alone: a failing, a panicking and a cancelled Update leave nothing
// behind, the others' changes are all committed, in one commit.
func TestGroupCommitEachUpdateAlone(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	createRealm := func(ctx context.Context, tx store.Tx, name string) error {
		return tx.CreateRealm(ctx, &store.Realm{StringID: name, Name: name, DateCreated: epoch})
	}
	commitsBefore := sqlite.Commits(s)
	started, release := make(chan struct{}), make(chan struct{})
	cancelled, cancel := context.WithCancel(ctx)
	type outcome struct {
		err      error
		panicked any
	}
	results := map[string]outcome{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := func(name string, ctx context.Context, fn func(tx store.Tx) error) {
		wg.Go(func() {
			var o outcome
			defer func() {
				o.panicked = recover()
				mu.Lock()
				results[name] = o
				mu.Unlock()
			}()
			o.err = s.Update(ctx, fn)
		})
	}
	start("holder", ctx, func(tx store.Tx) error {
		if err := createRealm(ctx, tx, "holder"); err != nil {
			return err
		}
		close(started)
		<-release
		return nil
	})
	<-started
	queue := func(name string, ctx context.Context, fn func(tx store.Tx) error) {
		want := sqlite.Queued(s) + 1
		start(name, ctx, fn)
		for sqlite.Queued(s) != want {
			time.Sleep(time.Millisecond)
		}
	}
	queue("ok", ctx, func(tx store.Tx) error { return createRealm(ctx, tx, "ok") })
	queue("fails", ctx, func(tx store.Tx) error {
		if err := createRealm(ctx, tx, "fails"); err != nil {
			return err
		}
		return errors.New("refused")
	})
	queue("conflict", ctx, func(tx store.Tx) error {
		if err := createRealm(ctx, tx, "conflict"); err != nil {
			return err
		}
		return createRealm(ctx, tx, "ok") // a unique violation after a write
	})
	queue("panics", ctx, func(tx store.Tx) error {
		if err := createRealm(ctx, tx, "panics"); err != nil {
			return err
		}
		panic("boom")
	})
	queue("cancelled", cancelled, func(tx store.Tx) error {
		err := createRealm(ctx, tx, "cancelled")
		cancel() // done by the time fn returns nil
		return err
	})
	queue("last", ctx, func(tx store.Tx) error { return createRealm(ctx, tx, "last") })
	close(release)
	wg.Wait()

	is.NoErr(results["holder"].err)                                // the first Update commits
	is.NoErr(results["ok"].err)                                    // so does a later one
	is.NoErr(results["last"].err)                                  // and the last
	is.Equal(results["fails"].err.Error(), "refused")              // a failing fn gets its own error
	is.True(errors.Is(results["conflict"].err, store.ErrConflict)) // a failing statement too
	is.Equal(results["panics"].panicked, "boom")                   // a panic is re-raised in its caller
	is.True(errors.Is(results["cancelled"].err, context.Canceled)) // a context done when fn returns fails the Update
	is.Equal(sqlite.Commits(s)-commitsBefore, int64(1))            // all of it in one commit
	var names []string
	is.NoErr(s.View(ctx, func(tx store.Tx) error {
		rs, err := tx.Realms(ctx)
		for _, r := range rs {
			names = append(names, r.StringID)
		}
		return err
	}))
	slices.Sort(names)
	is.Equal(names, []string{"holder", "last", "ok"}) // only the successful Updates' changes remain

	update(t, s, func(ctx context.Context, tx store.Tx) error { return createRealm(ctx, tx, "after") }) // the writer is free again
	is.Equal(sqlite.Commits(s)-commitsBefore, int64(2))                                                 // alone: its own commit
}
