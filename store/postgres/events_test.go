package postgres_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
)

// TestAppendLocksPerRealm: a transaction that appended events to one realm
// and has not committed yet holds up the appends of that realm only. An
// append to another realm commits meanwhile, and a snapshot taken then sees
// a head for the first realm below the open transaction's entry, so a queue
// registered then still receives that entry.
func TestAppendLocksPerRealm(t *testing.T) {
	is := is.New(t)
	a, b := instances(t)
	ctx := context.Background()

	appended, release, done := make(chan int64), make(chan struct{}), make(chan error, 1)
	var once sync.Once // a retried attempt does not signal again
	var openLast atomic.Int64
	go func() {
		done <- a.Update(ctx, func(tx chatcore.Tx) error {
			events := []chatcore.LoggedEvent{{RealmID: 1, UserIDs: []chatcore.UserID{1}, Data: []byte(`{"type":"open"}`)}}
			if err := tx.AppendEvents(ctx, events); err != nil {
				return err
			}
			openLast.Store(events[0].ID) // the committed attempt's id is the last one stored
			once.Do(func() { appended <- events[0].ID })
			<-release
			return nil
		})
	}()
	open := <-appended

	// Another realm: not held up (a wait would run into the deadline).
	short, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var other int64
	err := b.Update(short, func(tx chatcore.Tx) error {
		events := []chatcore.LoggedEvent{{RealmID: 2, UserIDs: []chatcore.UserID{1}, Data: []byte(`{"type":"other"}`)}}
		err := tx.AppendEvents(short, events)
		other = events[0].ID
		return err
	})
	is.NoErr(err)         // the other realm's append committed while the first is open
	is.True(other > open) // ids still come from one sequence
	err = b.View(ctx, func(tx chatcore.Tx) error {
		head, err := tx.LastEventID(ctx, 1)
		is.NoErr(err)
		is.True(head < open) // the open entry is above the realm's head: a queue registered now gets it
		head, err = tx.LastEventID(ctx, 2)
		is.NoErr(err)
		is.Equal(head, other) // the committed realm's head
		return nil
	})
	is.NoErr(err)

	// The same realm: held up until the first transaction ends.
	sameDone := make(chan int64, 1)
	go func() {
		var id int64
		err := b.Update(ctx, func(tx chatcore.Tx) error {
			events := []chatcore.LoggedEvent{{RealmID: 1, UserIDs: []chatcore.UserID{1}, Data: []byte(`{"type":"same"}`)}}
			err := tx.AppendEvents(ctx, events)
			id = events[0].ID
			return err
		})
		if err != nil {
			t.Error(err)
		}
		sameDone <- id
	}()
	waiting := false
	for range 200 {
		var n int
		err := b.Pool().QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted").Scan(&n)
		is.NoErr(err)
		if n > 0 {
			waiting = true
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	is.True(waiting) // the second append to the realm waits for the lock
	select {
	case <-sameDone:
		t.Fatal("the second append to the realm committed while the first was open")
	default:
	}
	close(release)
	is.NoErr(<-done) // the first transaction commits
	same := <-sameDone
	is.True(same > open) // the waiting append follows, after the first
	err = b.View(ctx, func(tx chatcore.Tx) error {
		head, err := tx.LastEventID(ctx, 1)
		is.NoErr(err)
		// Both committed. The first transaction may have been retried
		// (PostgreSQL can fail it on commit as the pivot of the appends
		// around it), its entry then taking an id above the second's.
		is.Equal(head, max(same, openLast.Load()))
		return nil
	})
	is.NoErr(err)
}
