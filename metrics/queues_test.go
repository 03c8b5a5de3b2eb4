package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/metrics"
	"github.com/chatcore/chatcore/store/memory"
)

// queueGauge is what the registry serves of chatcore_event_queues with
// value n.
func queueGauge(n int) string {
	return fmt.Sprintf(`
# HELP chatcore_event_queues Event queues stored now, in every realm (shared by every instance on the store).
# TYPE chatcore_event_queues gauge
chatcore_event_queues %d
`, n)
}

func TestEventQueuesGauge(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := chattest.NewVerona(t, open)
		m := metrics.New()
		reg := prometheus.NewPedanticRegistry()
		is.NoErr(reg.Register(m))
		n, err := testutil.GatherAndCount(reg, "chatcore_event_queues")
		is.NoErr(err)
		is.Equal(n, 0) // no series before a store is watched

		m.WatchStore(w.Base)
		is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(queueGauge(0)), "chatcore_event_queues")) // no queue yet

		// Queues of two realms, registered on two hubs (two instances
		// sharing the store): the gauge counts them all.
		hub2 := eventqueue.New(w.Svc, eventqueue.Options{})
		t.Cleanup(hub2.Close)
		q1 := w.Register(t, org.Owner, eventqueue.QueueOptions{})
		w.Register(t, org.Ham, eventqueue.QueueOptions{})
		chattest.RegisterOn(t, hub2, org.Stranger, eventqueue.QueueOptions{})
		is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(queueGauge(3)), "chatcore_event_queues")) // every realm's queues

		is.NoErr(eventqueue.DeleteQueue(t.Context(), w.Svc, org.Owner.ID, q1.ID))
		is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(queueGauge(2)), "chatcore_event_queues")) // a deleted queue leaves the count
	})
}

// flakyStore fails its reads while fail is set: at once, or, with block,
// when the read's deadline passes.
type flakyStore struct {
	chatcore.Store
	fail, block atomic.Bool
	reads       atomic.Int32
}

func (s *flakyStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.reads.Add(1)
	if !s.fail.Load() {
		return s.Store.View(ctx, fn)
	}
	if s.block.Load() {
		<-ctx.Done()
		return ctx.Err()
	}
	return errors.New("database gone")
}

func TestEventQueuesGaugeKeepsLastCount(t *testing.T) {
	is := is.New(t)
	ctx := t.Context()
	st := &flakyStore{Store: memory.New()}
	m := metrics.New()
	reg := prometheus.NewPedanticRegistry()
	is.NoErr(reg.Register(m))
	m.WatchStore(st)

	st.fail.Store(true)
	n, err := testutil.GatherAndCount(reg, "chatcore_event_queues")
	is.NoErr(err)  // a failed read fails no scrape
	is.Equal(n, 0) // and, before any count succeeded, reports nothing

	st.fail.Store(false)
	is.NoErr(st.Update(ctx, func(tx chatcore.Tx) error {
		for i, realm := range []chatcore.RealmID{1, 1, 2} {
			q := &chatcore.EventQueue{ID: fmt.Sprintf("q%d", i), RealmID: realm, UserID: 1, Lifespan: time.Minute, Acked: -1}
			if err := tx.CreateEventQueue(ctx, q); err != nil {
				return err
			}
		}
		return nil
	}))
	is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(queueGauge(3)), "chatcore_event_queues")) // counted

	st.fail.Store(true)
	is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(queueGauge(3)), "chatcore_event_queues")) // an error keeps the last count

	st.block.Store(true)
	start := time.Now()
	is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(queueGauge(3)), "chatcore_event_queues")) // so does a read past its deadline
	took := time.Since(start)
	is.True(took < 3*time.Second) // the scrape waited about the read's deadline (1 s), no longer
	t.Logf("scrape with a stuck store took %v", took)

	st.fail.Store(false)
	is.NoErr(st.Update(ctx, func(tx chatcore.Tx) error {
		return tx.CreateEventQueue(ctx, &chatcore.EventQueue{ID: "q3", RealmID: 2, UserID: 1, Lifespan: time.Minute, Acked: -1})
	}))
	// Counted again once the store answers (a scrape that joined the stuck
	// read, should it still be ending, sees the next one).
	var got error
	for range 3 {
		if got = testutil.GatherAndCompare(reg, strings.NewReader(queueGauge(4)), "chatcore_event_queues"); got == nil {
			break
		}
	}
	is.NoErr(got) // the gauge follows the store again
	before := st.reads.Load()
	is.NoErr(testutil.GatherAndCompare(reg, strings.NewReader(queueGauge(4)), "chatcore_event_queues"))
	is.Equal(st.reads.Load(), before+1) // one read per scrape
}
