// Package presence coalesces presence reports in memory and hands them to a
// writer in batches, so that a report (every connected client sends one a
// minute) costs a map update instead of a write transaction.
//
// A [Buffer] keeps at most one [Pending] per user: the time of the user's
// latest report and of their latest "active" report. A background loop,
// started by the first report, passes everything pending to the flush
// function every interval, or sooner when the number of users pending
// reaches the limit. A flush that fails gives its reports back to the buffer
// (merged with newer ones), so they go out with the next flush. Reports still
// pending when the process dies are lost; clients report again within a
// minute, so presence is late by at most that, never wrong.
package presence

import (
	"context"
	"sync"
	"time"
)

// Report is one presence report of a user's client.
type Report struct {
	User, Realm int64
	At          time.Time
	// Active reports the user active (Zulip's status "active"); otherwise
	// the client only says it is connected ("idle").
	Active bool
}

// Pending is what the buffer holds for one user.
type Pending struct {
	User, Realm int64
	// Connected is the time of the latest report.
	Connected time.Time
	// Active is the time of the latest active report; zero when none.
	Active time.Time
}

// merge folds q into p, keeping the later times.
func (p *Pending) merge(q Pending) {
	if q.Connected.After(p.Connected) {
		p.Connected = q.Connected
	}
	if q.Active.After(p.Active) {
		p.Active = q.Active
	}
	p.Realm = q.Realm
}

// FlushFunc writes a batch of pending reports (one per user, in no
// particular order). An error gives the batch back to the buffer.
type FlushFunc func(ctx context.Context, batch []Pending) error

// Buffer coalesces reports; see the package documentation. Its methods are
// safe for concurrent use.
type Buffer struct {
	interval time.Duration
	limit    int
	flush    FlushFunc
	onError  func(error)

	mu      sync.Mutex
	pending map[int64]Pending
	stopped bool

	flushMu sync.Mutex // one flush at a time
	start   sync.Once
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
}

// New returns a Buffer that flushes every interval, or when limit users are
// pending, through flush; onError is told about failed flushes (whose
// reports stay pending).
func New(interval time.Duration, limit int, flush FlushFunc, onError func(error)) *Buffer {
	return &Buffer{
		interval: interval, limit: max(limit, 1), flush: flush, onError: onError,
		pending: map[int64]Pending{},
		kick:    make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
}

// Add records a report. It never blocks on the flush: it takes the buffer's
// lock for a map update. After [Buffer.Shutdown], reports are still taken
// and written by explicit [Buffer.Flush] calls only.
func (b *Buffer) Add(r Report) {
	p := Pending{User: r.User, Realm: r.Realm, Connected: r.At}
	if r.Active {
		p.Active = r.At
	}
	b.mu.Lock()
	cur, ok := b.pending[r.User]
	if ok {
		cur.merge(p)
	} else {
		cur = p
	}
	b.pending[r.User] = cur
	full := len(b.pending) >= b.limit
	stopped := b.stopped
	b.mu.Unlock()
	if stopped {
		return
	}
	b.start.Do(func() { go b.loop() })
	if full {
		select {
		case b.kick <- struct{}{}:
		default:
		}
	}
}

// Len returns the number of users with pending reports.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

// Flush writes everything pending now, in one call of the flush function
// (none when nothing is pending), and returns its error; the reports of a
// failed flush stay pending.
func (b *Buffer) Flush(ctx context.Context) error {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	if len(b.pending) == 0 {
		b.mu.Unlock()
		return nil
	}
	batch := make([]Pending, 0, len(b.pending))
	for _, p := range b.pending {
		batch = append(batch, p)
	}
	b.pending = map[int64]Pending{}
	b.mu.Unlock()
	err := b.flush(ctx, batch)
	if err != nil {
		b.mu.Lock()
		for _, p := range batch {
			if cur, ok := b.pending[p.User]; ok {
				p.merge(cur)
			}
			b.pending[p.User] = p
		}
		b.mu.Unlock()
	}
	return err
}

func (b *Buffer) loop() {
	defer close(b.done)
	t := time.NewTicker(b.interval)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		case <-b.kick:
		}
		if err := b.Flush(context.Background()); err != nil && b.onError != nil {
			b.onError(err)
		}
	}
}

// Shutdown stops the background loop and flushes what is pending. It
// returns the flush's error, or ctx.Err() when ctx ends before the loop has
// stopped. Calling it again only flushes.
func (b *Buffer) Shutdown(ctx context.Context) error {
	b.mu.Lock()
	first := !b.stopped
	b.stopped = true
	b.mu.Unlock()
	if first {
		b.start.Do(func() { close(b.done) }) // never started: nothing to wait for
		close(b.stop)
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return b.Flush(ctx)
}
