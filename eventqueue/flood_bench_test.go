package eventqueue_test

import (
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/store/sqlite"
)

// BenchmarkRegistrationFlood has one user attempt 2,000 registrations with
// large narrows, every other one over the bounds (a 100,000-character topic,
// the repro) and the rest the largest narrow allowed (100 topic
// terms of 60 characters), on a SQLite file with default Hub options. It
// reports the heap in use and the database file's size before and after,
// and how many queues the user holds then.
func BenchmarkRegistrationFlood(b *testing.B) {
	huge := [][]string{{"topic", strings.Repeat("y", 100000)}}
	var largest [][]string
	for range chatcore.MaxNarrowTerms {
		largest = append(largest, []string{"topic", strings.Repeat("y", 60)})
	}
	for b.Loop() {
		b.StopTimer()
		path := sqlitetest.Path(b)
		st, err := sqlite.Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		o := newBenchOrg(b, func(testing.TB) chatcore.Store { return st }, 1)
		hub := eventqueue.New(o.w.Svc, eventqueue.Options{})
		heapBefore, sizeBefore := heapInUse(), dbSize(path)
		b.StartTimer()
		refused := 0
		for i := range 2000 {
			narrow := largest
			if i%2 == 0 {
				narrow = huge
			}
			_, err := hub.Register(context.Background(), o.users[0], eventqueue.RegisterRequest{Sections: []string{}, Queue: &eventqueue.QueueOptions{EventTypes: []string{"message"}, Narrow: narrow}})
			if err != nil {
				refused++
			}
		}
		b.StopTimer()
		var held int
		err = st.View(context.Background(), func(tx chatcore.Tx) error {
			qs, err := tx.EventQueues(context.Background(), chatcore.EventQueueFilter{UserID: o.users[0]})
			held = len(qs)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		hub.Close()
		b.ReportMetric(heapBefore, "heap-MiB-before")
		b.ReportMetric(heapInUse(), "heap-MiB-after")
		b.ReportMetric(sizeBefore, "db-MiB-before")
		b.ReportMetric(dbSize(path), "db-MiB-after")
		b.ReportMetric(float64(held), "queues-held")
		b.ReportMetric(float64(refused), "refused")
		st.Close()
		b.StartTimer()
	}
}

// heapInUse returns the heap in use after a collection, in MiB.
func heapInUse() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapInuse) / (1 << 20)
}

// dbSize returns the size of the database file at path and of its
// write-ahead log, in MiB.
func dbSize(path string) float64 {
	var total int64
	for _, p := range []string{path, path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			total += fi.Size()
		}
	}
	return float64(total) / (1 << 20)
}
