package jobqueue_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/chatcore/chatcore/internal/jobqueue"
	"github.com/matryer/is"
)

// ran collects the jobs that ran.
type ran struct {
	mu   sync.Mutex
	jobs []int
}

func (r *ran) add(j int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.jobs = append(r.jobs, j)
}

func (r *ran) list() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Sorted(slices.Values(r.jobs))
}

func TestShutdownDrainsTheQueue(t *testing.T) {
	is := is.New(t)
	var r ran
	q := jobqueue.New(jobqueue.Options{Workers: 3, QueueSize: 10}, func(_ context.Context, j int) func(context.Context) {
		if j%2 == 0 {
			return func(context.Context) { r.add(j) } // finished by a follow-up
		}
		r.add(j)
		return nil
	})
	for j := range 10 {
		is.NoErr(q.Enqueue(j)) // room in the queue
	}
	is.NoErr(q.Shutdown(t.Context()))                                          // every job finished
	is.Equal(r.list(), []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})                    // each job ran once, follow-ups included
	is.True(errors.Is(q.Enqueue(10), jobqueue.ErrClosed))                      // no jobs after Shutdown
	is.NoErr(q.Shutdown(t.Context()))                                          // a second Shutdown is fine
	is.NoErr(jobqueue.New[int](jobqueue.Options{}, nil).Shutdown(t.Context())) // nothing ever started
}

func TestEnqueueRefusesWhenFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		release := make(chan struct{})
		var r ran
		q := jobqueue.New(jobqueue.Options{Workers: 1, QueueSize: 1}, func(_ context.Context, j int) func(context.Context) {
			<-release
			r.add(j)
			return nil
		})
		is.NoErr(q.Enqueue(1)) // taken by the only worker
		synctest.Wait()
		is.NoErr(q.Enqueue(2))                             // waits in the queue
		is.True(errors.Is(q.Enqueue(3), jobqueue.ErrFull)) // the queue is full
		close(release)
		is.NoErr(q.Shutdown(t.Context())) // the two accepted jobs finish
		is.Equal(r.list(), []int{1, 2})   // the refused job never ran
	})
}

func TestShutdownDeadlineCancelsRunningJobs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		seen := make(chan error, 1)
		q := jobqueue.New(jobqueue.Options{Workers: 1, QueueSize: 1}, func(ctx context.Context, _ int) func(context.Context) {
			return func(ctx context.Context) {
				<-ctx.Done()
				seen <- ctx.Err()
			}
		})
		is.NoErr(q.Enqueue(1)) // accepted
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		err := q.Shutdown(ctx)
		is.True(errors.Is(err, context.DeadlineExceeded)) // Shutdown reports its deadline
		is.True(errors.Is(<-seen, context.Canceled))      // the running follow-up was cancelled
	})
}

// TestFollowUpsRunBesideWorkers checks that a follow-up does not hold its
// worker while a follow-up slot is free, and runs on the worker when none is.
func TestFollowUpsRunBesideWorkers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		is := is.New(t)
		release := map[int]chan struct{}{1: make(chan struct{}), 2: make(chan struct{})}
		var r ran
		q := jobqueue.New(jobqueue.Options{Workers: 1, QueueSize: 1}, func(_ context.Context, j int) func(context.Context) {
			if ch, ok := release[j]; ok {
				return func(context.Context) { <-ch; r.add(j) }
			}
			r.add(j)
			return nil
		})
		is.NoErr(q.Enqueue(1)) // its follow-up takes the only follow-up slot
		synctest.Wait()
		is.NoErr(q.Enqueue(2)) // its follow-up finds no slot and runs on the worker
		synctest.Wait()
		is.NoErr(q.Enqueue(3))
		synctest.Wait()
		is.Equal(r.list(), []int(nil)) // job 3 waits: the only worker runs job 2's follow-up
		close(release[2])
		synctest.Wait()
		is.Equal(r.list(), []int{2, 3}) // the worker is free again while job 1's follow-up still waits
		close(release[1])
		is.NoErr(q.Shutdown(t.Context()))  // Shutdown waits for the follow-up
		is.Equal(r.list(), []int{1, 2, 3}) // every job finished
	})
}
