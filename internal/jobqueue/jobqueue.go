// Package jobqueue runs background jobs from a bounded queue on a fixed pool
// of worker goroutines. Enqueueing never waits: a full queue refuses the job.
// A job may hand a slow remainder (retries, say) to a goroutine of its own,
// so that it does not hold a worker. Shutdown drains the queue, and cancels
// the jobs still running when its context ends first.
package jobqueue

import (
	"context"
	"errors"
	"sync"
)

// Errors of [Queue.Enqueue].
var (
	// ErrClosed is returned for a job enqueued after Shutdown.
	ErrClosed = errors.New("jobqueue: queue has shut down")
	// ErrFull is returned when QueueSize jobs are already waiting.
	ErrFull = errors.New("jobqueue: queue is full")
)

// Options configures a [Queue]. Values below 1 are taken as 1.
type Options struct {
	// Workers is the number of jobs running at once.
	Workers int
	// QueueSize bounds the jobs waiting for a worker, and also the follow-ups
	// running beside the workers.
	QueueSize int
}

// Func runs one job. Its ctx is cancelled only when the context given to
// [Queue.Shutdown] ends before the jobs are done. It may return a follow-up
// to finish the job: the queue runs it in a goroutine of its own when fewer
// than QueueSize follow-ups are running, and otherwise right away on the
// worker. A nil follow-up means the job is done.
type Func[J any] func(ctx context.Context, job J) (followUp func(ctx context.Context))

// Queue is a bounded queue of jobs of type J and the workers running them.
// Its methods are safe for concurrent use.
type Queue[J any] struct {
	opts Options
	run  Func[J]
	jobs chan J
	// followUps bounds the follow-ups running outside the workers.
	followUps chan struct{}
	// abort cancels the context of every job; set when the workers start.
	abort context.CancelFunc

	mu      sync.RWMutex // guards closed against close(jobs)
	closed  bool
	started sync.Once
	wg      sync.WaitGroup
}

// New returns a queue running each job with run. Workers start with the first
// Enqueue.
func New[J any](o Options, run Func[J]) *Queue[J] {
	o.Workers, o.QueueSize = max(o.Workers, 1), max(o.QueueSize, 1)
	return &Queue[J]{
		opts:      o,
		run:       run,
		jobs:      make(chan J, o.QueueSize),
		followUps: make(chan struct{}, o.QueueSize),
	}
}

// Enqueue hands job to the workers without waiting. It returns [ErrFull] when
// QueueSize jobs are waiting and [ErrClosed] after Shutdown; the job is then
// not run.
func (q *Queue[J]) Enqueue(job J) error {
	q.mu.RLock()
	defer q.mu.RUnlock()
	if q.closed {
		return ErrClosed
	}
	q.started.Do(func() {
		// Jobs outlive the caller that enqueued them: their context is
		// cancelled only by Shutdown.
		base, cancel := context.WithCancel(context.Background())
		q.abort = cancel
		for range q.opts.Workers {
			q.wg.Go(func() { q.work(base) })
		}
	})
	select {
	case q.jobs <- job:
		return nil
	default:
		return ErrFull
	}
}

// Shutdown stops accepting jobs and waits for the queued and running ones,
// follow-ups included, to finish. When ctx ends first it cancels the context
// of the jobs still running, waits for them to return, and returns ctx.Err().
// Calling it again returns nil once the jobs are done.
func (q *Queue[J]) Shutdown(ctx context.Context) error {
	q.mu.Lock()
	if !q.closed {
		q.closed = true
		close(q.jobs)
	}
	q.mu.Unlock()
	done := make(chan struct{})
	go func() { q.wg.Wait(); close(done) }()
	var err error
	select {
	case <-done:
	case <-ctx.Done():
		err = ctx.Err()
		q.abortAll()
		<-done
	}
	q.abortAll()
	return err
}

// abortAll cancels every running job. abort is written once, under q.mu's
// read lock, by the first Enqueue; Shutdown has taken q.mu before calling
// this, so it sees the write (or no workers were ever started).
func (q *Queue[J]) abortAll() {
	if q.abort != nil {
		q.abort()
	}
}

// work runs jobs until the queue is closed and drained.
func (q *Queue[J]) work(ctx context.Context) {
	for job := range q.jobs {
		rest := q.run(ctx, job)
		if rest == nil {
			continue
		}
		select {
		case q.followUps <- struct{}{}:
			q.wg.Go(func() {
				defer func() { <-q.followUps }()
				rest(ctx)
			})
		default:
			rest(ctx)
		}
	}
}
