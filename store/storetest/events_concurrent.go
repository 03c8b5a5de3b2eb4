package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// The randomized test of the event log's order: writers append in
// transactions that commit in another order than they appended (each waits
// a random while before its commit, some read after appending so that the
// append reaches the store early, some roll back), while pollers
// read the log as event queues do, each from the last id it saw. Every
// poller must see every committed entry exactly once, in increasing ids,
// and never a rolled-back one: an entry committed below an id a poller has
// already passed would be skipped for good.
const (
	concurrentWriters      = 6
	concurrentTxsPerWriter = 30
	concurrentPollers      = 3
)

// concurrentEntry is the data of an entry of the randomized test.
type concurrentEntry struct {
	Writer int `json:"w"`
	Tx     int `json:"t"`
	Entry  int `json:"e"`
}

var eventConcurrencyTests = []test{
	{"ConcurrentAppendsAndPolls", func(t *testing.T, st store.Store) {
		is := is.New(t)
		ctx := context.Background()
		const realm, other, user = store.RealmID(1), store.RealmID(2), store.UserID(7)
		var (
			mu        sync.Mutex
			committed = map[concurrentEntry]bool{}
			writers   sync.WaitGroup
			done      = make(chan struct{})
		)
		for w := range concurrentWriters {
			writers.Go(func() {
				r := rand.New(rand.NewPCG(uint64(w), 38))
				for k := range concurrentTxsPerWriter {
					entries := 1 + r.IntN(3)
					rollback, readEarly := r.IntN(7) == 0, r.IntN(2) == 0
					wait := time.Duration(r.IntN(1500)) * time.Microsecond
					// A third of the writers append to another realm too:
					// its entries share the log, never a poller's answer.
					toOther := w%3 == 0
					var mine []concurrentEntry
					err := st.Update(ctx, func(tx store.Tx) error {
						mine = mine[:0]
						var batch []store.LoggedEvent
						for e := range entries {
							ce := concurrentEntry{Writer: w, Tx: k, Entry: e}
							b, err := json.Marshal(ce)
							if err != nil {
								return err
							}
							batch = append(batch, store.LoggedEvent{RealmID: realm, UserIDs: []store.UserID{user}, Data: b})
							mine = append(mine, ce)
							if toOther {
								batch = append(batch, store.LoggedEvent{RealmID: other, UserIDs: []store.UserID{user}, Data: b})
							}
						}
						if err := tx.AppendEvents(ctx, batch); err != nil {
							return err
						}
						if readEarly {
							// Any next statement sends a held-back append
							// first; a read of a row nobody writes adds no
							// conflict of its own (a read of the log would
							// conflict with every other writer's append).
							if _, err := tx.Realm(ctx, realm); err != nil && !errors.Is(err, store.ErrNotFound) {
								return err
							}
						}
						time.Sleep(wait)
						if rollback {
							return errRollBack
						}
						return nil
					})
					switch {
					case rollback && errors.Is(err, errRollBack):
					case err != nil:
						t.Errorf("writer %d, transaction %d: %v", w, k, err)
						return
					default:
						mu.Lock()
						for _, ce := range mine {
							committed[ce] = true
						}
						mu.Unlock()
					}
				}
			})
		}
		go func() { writers.Wait(); close(done) }()

		seen := make([][]concurrentEntry, concurrentPollers)
		var pollers sync.WaitGroup
		for p := range concurrentPollers {
			pollers.Go(func() {
				r := rand.New(rand.NewPCG(uint64(p), 83))
				var after int64
				finished := false
				for {
					select {
					case <-done:
						finished = true
					default:
					}
					var got []store.LoggedEvent
					err := st.View(ctx, func(tx store.Tx) error {
						var err error
						got, err = tx.EventsFor(ctx, store.EventLogQuery{RealmID: realm, UserID: user, After: after, Limit: 1 + r.IntN(20)})
						return err
					})
					if err != nil {
						t.Errorf("poller %d: %v", p, err)
						return
					}
					for _, e := range got {
						if e.ID <= after {
							t.Errorf("poller %d: id %d after %d", p, e.ID, after)
							return
						}
						after = e.ID
						var ce concurrentEntry
						if err := json.Unmarshal(e.Data, &ce); err != nil {
							t.Errorf("poller %d: entry %d: %v", p, e.ID, err)
							return
						}
						seen[p] = append(seen[p], ce)
					}
					// Once every writer is done, a poll that finds nothing
					// new has seen everything.
					if finished && len(got) == 0 {
						return
					}
				}
			})
		}
		pollers.Wait()
		if t.Failed() {
			return
		}
		is.True(len(committed) > concurrentWriters*concurrentTxsPerWriter/2) // most transactions committed
		for p, entries := range seen {
			got := map[concurrentEntry]int{}
			for _, ce := range entries {
				got[ce]++
			}
			for ce, n := range got {
				if n != 1 || !committed[ce] {
					t.Errorf("poller %d saw %+v %d times (committed: %v)", p, ce, n, committed[ce])
				}
			}
			for ce := range committed {
				if got[ce] == 0 {
					t.Errorf("poller %d never saw committed %+v", p, ce)
				}
			}
		}
		is.Equal(fmt.Sprint(len(seen[0])), fmt.Sprint(len(committed))) // every committed entry, once
	}},
}

// errRollBack makes a test's Update roll back.
var errRollBack = errors.New("storetest: roll back")
