package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// eventQueueCountTests check the unfiltered count of event queues that
// package metrics reads at every scrape (chatcore_event_queues).
var eventQueueCountTests = []test{
	{"EveryRealm", func(t *testing.T, st store.Store) {
		is := is.New(t)
		count := func(f store.EventQueueFilter) int {
			var n int
			view(t, st, func(ctx context.Context, tx store.Tx) {
				var err error
				n, err = tx.CountEventQueues(ctx, f)
				is.NoErr(err) // queues counted
			})
			return n
		}
		is.Equal(count(store.EventQueueFilter{}), 0) // an empty store
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for i, realm := range []store.RealmID{1, 2, 2, 3, 7} {
				q := &store.EventQueue{ID: fmt.Sprintf("q%d", i), RealmID: realm, UserID: store.UserID(10 + i),
					Lifespan: time.Minute, Position: int64(i), Acked: -1, Created: epoch, LastPoll: epoch}
				is.NoErr(tx.CreateEventQueue(ctx, q)) // queue created
			}
		})
		is.Equal(count(store.EventQueueFilter{}), 5)           // every realm's queues, expired or not
		is.Equal(count(store.EventQueueFilter{Limit: 3}), 3)   // counting stops at the limit
		is.Equal(count(store.EventQueueFilter{Limit: 100}), 5) // a limit above the count changes nothing
		update(t, st, func(ctx context.Context, tx store.Tx) {
			n, err := tx.DeleteEventQueues(ctx, []string{"q1", "q4"})
			is.NoErr(err)  // deleted
			is.Equal(n, 2) // both existed
		})
		is.Equal(count(store.EventQueueFilter{Limit: 100}), 3) // deleted queues are not counted
	}},
}
