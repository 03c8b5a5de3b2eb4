package presence_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore/internal/presence"
	"github.com/matryer/is"
)

// recorder is a FlushFunc that records batches and fails while fail is set.
type recorder struct {
	mu      sync.Mutex
	batches [][]presence.Pending
	fail    error
	flushed chan struct{}
}

func (r *recorder) flush(_ context.Context, batch []presence.Pending) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail != nil {
		return r.fail
	}
	slices.SortFunc(batch, func(a, b presence.Pending) int { return int(a.User - b.User) })
	r.batches = append(r.batches, batch)
	if r.flushed != nil {
		select {
		case r.flushed <- struct{}{}:
		default:
		}
	}
	return nil
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func TestCoalesce(t *testing.T) {
	is := is.New(t)
	rec := &recorder{}
	b := presence.New(time.Hour, 100, rec.flush, nil)
	b.Add(presence.Report{User: 1, Realm: 7, At: t0, Active: true})
	b.Add(presence.Report{User: 1, Realm: 7, At: t0.Add(time.Second)}) // idle, later
	b.Add(presence.Report{User: 2, Realm: 7, At: t0})
	is.Equal(b.Len(), 2) // one entry per user
	is.NoErr(b.Flush(t.Context()))
	is.Equal(rec.batches, [][]presence.Pending{{
		{User: 1, Realm: 7, Connected: t0.Add(time.Second), Active: t0}, // latest report, latest active report
		{User: 2, Realm: 7, Connected: t0},                              // never active
	}})
	is.Equal(b.Len(), 0)
	is.NoErr(b.Flush(t.Context())) // nothing pending: no call
	is.Equal(len(rec.batches), 1)
	is.NoErr(b.Shutdown(t.Context()))
}

func TestFailedFlushKeepsReports(t *testing.T) {
	is := is.New(t)
	rec := &recorder{fail: errors.New("disk full")}
	b := presence.New(time.Hour, 100, rec.flush, nil)
	b.Add(presence.Report{User: 1, Realm: 7, At: t0, Active: true})
	is.True(b.Flush(t.Context()) != nil) // the error comes back
	b.Add(presence.Report{User: 1, Realm: 7, At: t0.Add(time.Minute)})
	rec.mu.Lock()
	rec.fail = nil
	rec.mu.Unlock()
	is.NoErr(b.Flush(t.Context()))
	is.Equal(rec.batches, [][]presence.Pending{{{User: 1, Realm: 7, Connected: t0.Add(time.Minute), Active: t0}}}) // merged with the newer report
	is.NoErr(b.Shutdown(t.Context()))
}

func TestLoopFlushesAtTheLimitAndOnShutdown(t *testing.T) {
	is := is.New(t)
	rec := &recorder{flushed: make(chan struct{}, 1)}
	b := presence.New(time.Hour, 2, rec.flush, nil)
	b.Add(presence.Report{User: 1, Realm: 7, At: t0})
	b.Add(presence.Report{User: 2, Realm: 7, At: t0}) // the limit: the loop flushes without waiting an hour
	select {
	case <-rec.flushed:
	case <-time.After(10 * time.Second):
		t.Fatal("no flush at the limit")
	}
	b.Add(presence.Report{User: 3, Realm: 7, At: t0})
	is.NoErr(b.Shutdown(t.Context())) // flushes what is left
	rec.mu.Lock()
	defer rec.mu.Unlock()
	is.Equal(len(rec.batches), 2)
	is.Equal(rec.batches[1], []presence.Pending{{User: 3, Realm: 7, Connected: t0}})
	is.NoErr(b.Shutdown(t.Context())) // again: nothing to do
}

func TestShutdownWithoutReports(t *testing.T) {
	b := presence.New(time.Millisecond, 10, func(context.Context, []presence.Pending) error { return nil }, nil)
	is.New(t).NoErr(b.Shutdown(t.Context()))
}

func TestLoopReportsErrors(t *testing.T) {
	is := is.New(t)
	errs := make(chan error, 10)
	b := presence.New(time.Millisecond, 10, func(context.Context, []presence.Pending) error { return errors.New("down") },
		func(err error) { errs <- err })
	b.Add(presence.Report{User: 1, Realm: 7, At: t0})
	select {
	case err := <-errs:
		is.Equal(err.Error(), "down")
	case <-time.After(10 * time.Second):
		t.Fatal("no error reported")
	}
	is.True(b.Shutdown(t.Context()) != nil) // still failing
	is.Equal(b.Len(), 1)                    // the report is kept
}

func BenchmarkAdd(b *testing.B) {
	buf := presence.New(time.Hour, 1<<30, func(context.Context, []presence.Pending) error { return nil }, nil)
	b.RunParallel(func(pb *testing.PB) {
		i := int64(0)
		for pb.Next() {
			i++
			buf.Add(presence.Report{User: i % 10000, Realm: 1, At: t0, Active: true})
		}
	})
}
