// Package eventqueue is Zulip's real-time event queues: register (POST
// /register's state and a new queue), poll (GET /events), delete (DELETE
// /events), collect (expiry, the backlog bound, log pruning), and the
// long-poll [Hub], as a Go API that package httpadapter serves over HTTP.
//
// The queues and their events live in the store: the Service appends every
// event to the store's event log in the transaction of the change it
// describes, and a queue is a cursor over that log. A [Hub] keeps in memory
// only the polls waiting for events (one small record each) and a bounded
// cache of what delivering recent log entries computed, and wakes the polls
// after each commit through a [Bus]. So nothing is lost when a server
// crashes between a commit and the poll that would deliver it, idle queues
// cost no memory, and any server instance on the same store can serve any
// queue: give every instance a Bus that carries wake-ups between them (the
// default only wakes polls of the same process).
//
// Queues are bounded: a user holds at most [Options.MaxQueuesPerUser]
// (registering one more deletes that user's queue polled least recently,
// whose client gets BAD_EVENT_QUEUE_ID and registers again, as Zulip's apps
// do), a realm at most [Options.MaxQueuesPerRealm] (registering past it is
// refused), a queue lives at most [MaxQueueLifespan] without a poll, falls
// at most [Options.QueueBacklog] entries behind, and stores at most
// [MaxQueueParamsSize] bytes of options, its narrow operands checked against
// the bounds of what they name before the store is touched.
package eventqueue

import (
	"context"
	"errors"
	"iter"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatcore/chatcore"
)

// Bus carries commit notices to every server instance holding waiting
// polls. Publish is called after each commit that appended events, on the
// committing goroutine; every function registered with Subscribe, in any
// instance, must then be called with the notices (a store with its own
// notification channel, such as PostgreSQL's LISTEN/NOTIFY, may deliver
// them from there and make Publish a no-op). Functions must not block.
type Bus interface {
	Publish(notices []chatcore.EventNotice)
	Subscribe(fn func([]chatcore.EventNotice)) (stop func())
}

// LocalBus is the in-process [Bus]: Publish calls every subscriber
// directly. The zero value is ready to use.
type LocalBus struct {
	mu   sync.Mutex
	next int
	fns  map[int]func([]chatcore.EventNotice)
}

// Publish implements [Bus].
func (b *LocalBus) Publish(notices []chatcore.EventNotice) {
	b.mu.Lock()
	fns := make([]func([]chatcore.EventNotice), 0, len(b.fns))
	for _, fn := range b.fns {
		fns = append(fns, fn)
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn(notices)
	}
}

// Subscribe implements [Bus].
func (b *LocalBus) Subscribe(fn func([]chatcore.EventNotice)) (stop func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fns == nil {
		b.fns = map[int]func([]chatcore.EventNotice){}
	}
	id := b.next
	b.next++
	b.fns[id] = fn
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		delete(b.fns, id)
	}
}

// Options configures a [Hub]. The zero value is usable.
type Options struct {
	// Bus carries wake-ups between instances (default: a new LocalBus).
	Bus Bus
	// HeartbeatMin and HeartbeatMax bound the idle time after which a
	// waiting poll is answered with a heartbeat, chosen at random per poll
	// (default 45 s and 55 s, as Zulip).
	HeartbeatMin, HeartbeatMax time.Duration
	// CollectEvery is how often expired and too-far-behind queues are
	// deleted and the log pruned, in the background of calls (default 1 min).
	CollectEvery time.Duration
	// Recheck, when positive, makes waiting polls also look at the store
	// this often: for processes sharing a store without a Bus between them
	// (another process's commits then reach a waiting poll within Recheck).
	Recheck time.Duration
	// QueueBacklog is how many unacknowledged log entries addressed to its
	// user a queue may hold before the Hub's collection drops it (default
	// [DefaultQueueBacklog]; values below 1 keep the default). Every Hub on a
	// store collects every queue of the store, so give them all the same
	// value; an embedder serving HTTP passes its Hub to package httpadapter
	// (Options.Events) rather than letting the adapter make its own.
	QueueBacklog int
	// MaxQueuesPerUser bounds the queues one user holds: registering past
	// it deletes the user's queue idle the longest (default
	// [DefaultMaxQueuesPerUser]; values below 1 keep the default).
	MaxQueuesPerUser int
	// MaxQueuesPerRealm bounds the queues of one realm: registering past it
	// is refused (default [DefaultMaxQueuesPerRealm]; values below 1 keep
	// the default).
	MaxQueuesPerRealm int
}

// LongpollTimeout is event_queue_longpoll_timeout_seconds: how long a client
// should wait for a GET /events answer, above the heartbeat interval.
const LongpollTimeout = 90 * time.Second

// Hub registers event queues and answers polls, waiting for events when
// asked to. It is safe for concurrent use.
type Hub struct {
	svc  *chatcore.Service
	opts Options
	stop []func()

	mu      sync.Mutex
	byUser  map[chatcore.UserID]map[*waiter]struct{}
	byRealm map[chatcore.RealmID]map[*waiter]struct{} // waiters of Public queues
	byQueue map[string]*waiter

	// deliveries caches what delivering recent log entries computes.
	deliveries deliveryCache

	collecting  atomic.Bool
	lastCollect atomic.Int64
	wg          sync.WaitGroup

	counts hubCounts // see Counts
}

// waiter is one waiting poll.
type waiter struct {
	user    chatcore.UserID
	realm   chatcore.RealmID
	public  bool
	queue   string
	wake    chan struct{} // new events may be there
	replace chan struct{} // a newer poll of the same queue took over
}

// New returns a Hub over svc; call Close when done with it.
func New(svc *chatcore.Service, opts Options) *Hub {
	if opts.Bus == nil {
		opts.Bus = &LocalBus{}
	}
	if opts.HeartbeatMin <= 0 {
		opts.HeartbeatMin = 45 * time.Second
	}
	if opts.HeartbeatMax < opts.HeartbeatMin {
		opts.HeartbeatMax = max(opts.HeartbeatMin, 55*time.Second)
	}
	if opts.CollectEvery <= 0 {
		opts.CollectEvery = time.Minute
	}
	if opts.QueueBacklog < 1 {
		opts.QueueBacklog = DefaultQueueBacklog
	}
	if opts.MaxQueuesPerUser < 1 {
		opts.MaxQueuesPerUser = DefaultMaxQueuesPerUser
	}
	if opts.MaxQueuesPerRealm < 1 {
		opts.MaxQueuesPerRealm = DefaultMaxQueuesPerRealm
	}
	h := &Hub{
		svc: svc, opts: opts, deliveries: newDeliveryCache(),
		byUser:  map[chatcore.UserID]map[*waiter]struct{}{},
		byRealm: map[chatcore.RealmID]map[*waiter]struct{}{},
		byQueue: map[string]*waiter{},
	}
	h.lastCollect.Store(time.Now().UnixNano())
	bus := opts.Bus
	h.stop = append(h.stop,
		svc.OnEventsCommitted(bus.Publish),
		bus.Subscribe(h.wakeUp))
	return h
}

// Close stops the Hub's wake-ups, answers every waiting poll with what its
// queue holds (possibly nothing), and waits for a running collection. Polls
// that start later wait only for their contexts or heartbeats.
func (h *Hub) Close() {
	for _, stop := range h.stop {
		stop()
	}
	h.mu.Lock()
	for _, w := range h.byQueue {
		signal(w.replace)
	}
	h.mu.Unlock()
	h.wg.Wait()
}

// wakeUp signals the waiting polls the notices concern.
func (h *Hub) wakeUp(notices []chatcore.EventNotice) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, n := range notices {
		for _, u := range n.UserIDs {
			for w := range h.byUser[u] {
				if w.realm == n.RealmID {
					signal(w.wake)
				}
			}
		}
		if n.Public {
			for w := range h.byRealm[n.RealmID] {
				signal(w.wake)
			}
		}
	}
}

func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Waiting returns how many polls are waiting in this Hub now (a gauge for
// metrics, and for tests that must know a poll is waiting).
func (h *Hub) Waiting() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.byQueue)
}

// add registers w, making it replace a poll already waiting on its queue.
func (h *Hub) add(w *waiter) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if old := h.byQueue[w.queue]; old != nil {
		signal(old.replace)
	}
	h.byQueue[w.queue] = w
	addTo(h.byUser, w.user, w)
	if w.public {
		addTo(h.byRealm, w.realm, w)
	}
}

func addTo[K comparable](m map[K]map[*waiter]struct{}, k K, w *waiter) {
	s := m[k]
	if s == nil {
		s = map[*waiter]struct{}{}
		m[k] = s
	}
	s[w] = struct{}{}
}

func removeFrom[K comparable](m map[K]map[*waiter]struct{}, k K, w *waiter) {
	if s := m[k]; s != nil {
		delete(s, w)
		if len(s) == 0 {
			delete(m, k)
		}
	}
}

// remove unregisters w.
func (h *Hub) remove(w *waiter) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byQueue[w.queue] == w {
		delete(h.byQueue, w.queue)
	}
	removeFrom(h.byUser, w.user, w)
	removeFrom(h.byRealm, w.realm, w)
}

// Register answers POST /register: the state req asks for and, with a
// non-nil req.Queue, a new event queue starting right after it, as the
// package function [Register] with the Hub's queue bounds (see it for the
// errors). A poll waiting in this Hub on a queue deleted to make room is
// answered with BAD_EVENT_QUEUE_ID.
func (h *Hub) Register(ctx context.Context, actorID chatcore.UserID, req RegisterRequest) (State, error) {
	h.maybeCollect()
	st, evicted, err := register(ctx, h.svc, actorID, req, queueLimits{perUser: h.opts.MaxQueuesPerUser, perRealm: h.opts.MaxQueuesPerRealm})
	if err == nil && req.Queue != nil {
		h.counts.registered.Add(1)
	}
	if len(evicted) > 0 {
		h.mu.Lock()
		for _, id := range evicted {
			if w := h.byQueue[id]; w != nil {
				signal(w.wake)
			}
		}
		h.mu.Unlock()
	}
	return st, err
}

// PollRequest is a GET /events.
type PollRequest struct {
	QueueID     string
	LastEventID *int64
	// DontBlock answers at once, possibly with no event.
	DontBlock bool
}

// Poll answers GET /events: it acknowledges the events up to
// req.LastEventID and returns the queue's next events. Unless req.DontBlock,
// it waits until there is at least one, answering a heartbeat event after
// 45-55 s with none, or, when a newer poll of the same queue arrives, with
// what there is (possibly nothing). A done ctx ends the wait with
// ctx.Err(). The errors are those of [Hub.GetEvents].
func (h *Hub) Poll(ctx context.Context, actorID chatcore.UserID, req PollRequest) (events []QueueEvent, err error) {
	defer func() { h.counts.delivered.Add(uint64(len(events))) }()
	h.maybeCollect()
	get := EventsRequest{QueueID: req.QueueID, LastEventID: req.LastEventID}
	res, err := h.GetEvents(ctx, actorID, get)
	if err != nil || len(res.Events) > 0 || req.DontBlock {
		return res.Events, err
	}
	w := &waiter{
		user: actorID, realm: res.RealmID, public: res.Public, queue: req.QueueID,
		wake: make(chan struct{}, 1), replace: make(chan struct{}, 1),
	}
	h.add(w)
	defer h.remove(w)
	// Events committed before w was added woke nobody: look once more.
	if res, err = h.GetEvents(ctx, actorID, get); err != nil || len(res.Events) > 0 {
		return res.Events, err
	}
	idle := h.opts.HeartbeatMin
	if d := h.opts.HeartbeatMax - h.opts.HeartbeatMin; d > 0 {
		idle += rand.N(d)
	}
	timer := time.NewTimer(idle)
	defer timer.Stop()
	var recheck <-chan time.Time
	if h.opts.Recheck > 0 {
		t := time.NewTicker(h.opts.Recheck)
		defer t.Stop()
		recheck = t.C
	}
	for {
		select {
		case <-recheck:
			if res, err = h.GetEvents(ctx, actorID, get); err != nil || len(res.Events) > 0 {
				return res.Events, err
			}
		case <-w.wake:
			if res, err = h.GetEvents(ctx, actorID, get); err != nil || len(res.Events) > 0 {
				return res.Events, err
			}
		case <-w.replace:
			res, err = h.GetEvents(context.WithoutCancel(ctx), actorID, get)
			return res.Events, err
		case <-timer.C:
			return []QueueEvent{heartbeat(res.Heartbeat)}, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// heartbeat returns a heartbeat event with the id.
func heartbeat(id int64) QueueEvent {
	b := strconv.AppendInt([]byte(`{"type":"heartbeat","id":`), id, 10)
	return QueueEvent{ID: id, Type: "heartbeat", JSON: append(b, '}')}
}

// Delete answers DELETE /events: the queue is gone for every request
// afterwards (see [DeleteQueue] for the errors). A poll waiting on it is
// answered with its queue's error.
func (h *Hub) Delete(ctx context.Context, actorID chatcore.UserID, queueID string) error {
	if err := DeleteQueue(ctx, h.svc, actorID, queueID); err != nil {
		return err
	}
	h.mu.Lock()
	if w := h.byQueue[queueID]; w != nil {
		signal(w.wake)
	}
	h.mu.Unlock()
	return nil
}

// maybeCollect starts a collection in the background when one is due.
func (h *Hub) maybeCollect() {
	last := h.lastCollect.Load()
	now := time.Now().UnixNano()
	if now-last < int64(h.opts.CollectEvery) || !h.collecting.CompareAndSwap(false, true) {
		return
	}
	h.lastCollect.Store(now)
	h.wg.Go(func() {
		defer h.collecting.Store(false)
		h.Collect(context.Background()) //nolint:errcheck // retried at the next interval
	})
}

// Collect deletes the queues that expired (no poll for their lifespan) or
// fell more than [Options.QueueBacklog] entries behind, and prunes the log
// entries no queue needs any more, in bounded batches. The Hub runs it
// about every [Options.CollectEvery] in the background of its calls; writes
// also prune a little as they go. Errors come from the store.
func (h *Hub) Collect(ctx context.Context) (CollectResult, error) {
	return collect(ctx, h.svc, h.opts.QueueBacklog)
}

// Queue is an event queue registered through the Go API.
type Queue struct {
	h     *Hub
	actor chatcore.UserID
	// ID is the queue's id.
	ID string
	// State is the state returned with the queue.
	State State
	last  int64
}

// Open registers a queue for actorID with the state and queue options of req
// (req.Queue nil means default options; see [Hub.Register]).
func (h *Hub) Open(ctx context.Context, actorID chatcore.UserID, req RegisterRequest) (*Queue, error) {
	if req.Queue == nil {
		req.Queue = &QueueOptions{}
	}
	st, err := h.Register(ctx, actorID, req)
	if err != nil {
		return nil, err
	}
	return &Queue{h: h, actor: actorID, ID: st.QueueID, State: st, last: st.LastEventID}, nil
}

// Events yields the queue's events as they come, each once, heartbeats
// included, acknowledging each batch when the next is asked for. It ends
// when ctx is done (no error) or with the first error, which it yields:
// a BAD_EVENT_QUEUE_ID [*chatcore.Error] means the queue is gone (expired,
// dropped for falling behind, deleted) and the caller must register again.
// Events must not be ranged over twice at the same time.
func (q *Queue) Events(ctx context.Context) iter.Seq2[QueueEvent, error] {
	return func(yield func(QueueEvent, error) bool) {
		for ctx.Err() == nil {
			last := q.last
			evs, err := q.h.Poll(ctx, q.actor, PollRequest{QueueID: q.ID, LastEventID: &last})
			if err != nil {
				if ctx.Err() != nil {
					return
				}
				yield(QueueEvent{}, err)
				return
			}
			for _, e := range evs {
				q.last = max(q.last, e.ID)
				if !yield(e, nil) {
					return
				}
			}
		}
	}
}

// Close deletes the queue.
func (q *Queue) Close(ctx context.Context) error {
	return q.h.Delete(ctx, q.actor, q.ID)
}

// IsBadQueue reports whether err says the queue no longer exists for its
// caller (BAD_EVENT_QUEUE_ID): the client must register again.
func IsBadQueue(err error) bool {
	e, ok := errors.AsType[*chatcore.Error](err)
	return ok && e.Code == chatcore.CodeBadEventQueueID
}
