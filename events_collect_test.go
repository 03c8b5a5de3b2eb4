package chatcore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
)

// TestWritesCollectTheLog: the writes that log events collect as they go.
// Within the first 256 entries a Service appends (its pace), one of them
// deletes an expired queue and prunes the entries no queue needs, with no
// collector running; before that, nothing is collected.
func TestWritesCollectTheLog(t *testing.T) {
	for _, open := range []chattest.Open{chattest.New, openOn(openSQLite(t))} {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			return tx.CreateEventQueue(ctx, &chatcore.EventQueue{ID: "expired", RealmID: org.Realm.ID, UserID: org.Ham.ID,
				Lifespan: time.Minute, Acked: -1, Created: chattest.VeronaNow.Add(-time.Hour), LastPoll: chattest.VeronaNow.Add(-time.Hour)})
		})
		queueGone := func() bool {
			return chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) (bool, error) {
				_, err := tx.EventQueue(ctx, "expired")
				if errors.Is(err, chatcore.ErrNotFound) {
					return true, nil
				}
				return false, err
			})
		}
		pruned := func() int64 {
			return chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) (int64, error) {
				return tx.EventsPrunedThrough(ctx, org.Realm.ID)
			})
		}
		head := func() int64 {
			return chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) (int64, error) {
				return tx.LastEventID(ctx, 0)
			})
		}
		// Settings changes log events; the stores number entries from 1, so
		// the head is the number of entries this Service appended.
		for enter := true; head() < 256; enter = !enter {
			is.True(!queueGone())        // fewer than 256 entries: not collected yet
			is.Equal(pruned(), int64(0)) // nor pruned
			is.NoErr(accounts.UpdateSettings(context.Background(), w.Svc, org.Ham.ID, accounts.SettingsUpdate{EnterSends: &enter}))
		}
		is.True(queueGone())  // the write that appended the 256th entry collected the expired queue
		is.True(pruned() > 0) // and pruned the log no queue needs
	}
}

// ordered records, per write transaction, the order of its appends to the
// event log and its prunes.
type ordered struct {
	writes [][]string
}

// over returns s with write transactions that record in o.
func (o *ordered) over(s chatcore.Store) chatcore.Store {
	return txWrapping{s, func(tx chatcore.Tx) chatcore.Tx {
		o.writes = append(o.writes, nil)
		return orderedTx{tx, o}
	}}
}

type orderedTx struct {
	chatcore.Tx
	o *ordered
}

func (t orderedTx) record(call string) {
	last := &t.o.writes[len(t.o.writes)-1]
	*last = append(*last, call)
}

func (t orderedTx) AppendEvents(ctx context.Context, events []chatcore.LoggedEvent) error {
	t.record("append")
	return t.Tx.AppendEvents(ctx, events)
}

func (t orderedTx) PruneEvents(ctx context.Context, through int64, limit int) (int, error) {
	t.record("prune")
	return t.Tx.PruneEvents(ctx, through, limit)
}

// TestWritesCollectBeforeTheyAppend: the write that collects the log does so
// before it appends its own events, so that a store holding a lock from the
// append to the commit (PostgreSQL's, per realm) does not hold it while the
// collection deletes.
func TestWritesCollectBeforeTheyAppend(t *testing.T) {
	is := is.New(t)
	st := &ordered{}
	w, _, ann := annInZulip(t, st.over)
	st.writes = nil
	for i := range 300 {
		enter := i%2 == 0
		is.NoErr(accounts.UpdateSettings(t.Context(), w.Svc, ann.ID, accounts.SettingsUpdate{EnterSends: &enter}))
	}
	collected := 0
	for _, calls := range st.writes {
		if len(calls) > 1 {
			collected++
			is.Equal(calls, []string{"prune", "append"}) // the collection first
		}
	}
	is.Equal(collected, 1) // one write in 256 collects
}
