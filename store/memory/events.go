package memory

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/chatcore/chatcore/store"
)

// loggedEvent is a stored log entry; groupStart is the id of the first entry
// of its group (its own id when it has no group).
type loggedEvent struct {
	store.LoggedEvent
	groupStart int64
}

// AppendEvents implements store.EventStore.
func (t *tx) AppendEvents(_ context.Context, events []store.LoggedEvent) error {
	if err := t.write(); err != nil {
		return err
	}
	oldLen, oldMax := len(t.d.log), t.d.logMax
	t.undo = append(t.undo, func() { t.d.log, t.d.logMax = t.d.log[:oldLen], oldMax })
	starts := map[int64]int64{}
	for i := range events {
		t.d.logMax++
		e := &events[i]
		e.ID = t.d.logMax
		start := e.ID
		if e.Group != 0 {
			if s, ok := starts[e.Group]; ok {
				start = s
			} else {
				starts[e.Group] = e.ID
			}
		}
		c := *e
		c.UserIDs = slices.Clone(e.UserIDs)
		c.Data = slices.Clone(e.Data)
		t.d.log = append(t.d.log, loggedEvent{LoggedEvent: c, groupStart: start})
	}
	return nil
}

// LastEventID implements store.EventStore: the store has one writer, so
// the highest id appended in any realm is every realm's head.
func (t *tx) LastEventID(context.Context, store.RealmID) (int64, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	return t.d.logMax, nil
}

// after returns the index of the first entry with id above id.
func (d *data) after(id int64) int {
	i, _ := slices.BinarySearchFunc(d.log, id+1, func(e loggedEvent, id int64) int {
		switch {
		case e.ID < id:
			return -1
		case e.ID > id:
			return 1
		}
		return 0
	})
	return i
}

// selects reports whether the entry at index i is one q selects.
func (d *data) selects(i int, q store.EventLogQuery) bool {
	e := &d.log[i]
	if e.RealmID != q.RealmID {
		return false
	}
	if _, ok := slices.BinarySearch(e.UserIDs, q.UserID); ok {
		return true
	}
	if !q.Public || !e.Public {
		return false
	}
	for j := i - 1; j >= 0 && d.log[j].ID >= e.groupStart; j-- {
		if _, ok := slices.BinarySearch(d.log[j].UserIDs, q.UserID); ok {
			return false
		}
	}
	return true
}

// EventsFor implements store.EventStore.
func (t *tx) EventsFor(_ context.Context, q store.EventLogQuery) ([]store.LoggedEvent, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.LoggedEvent
	for i := t.d.after(q.After); i < len(t.d.log); i++ {
		if q.Limit > 0 && len(out) == q.Limit {
			break
		}
		if t.d.selects(i, q) {
			e := t.d.log[i].LoggedEvent
			e.UserIDs = nil
			e.Data = slices.Clone(e.Data)
			out = append(out, e)
		}
	}
	return out, nil
}

// CountEventsFor implements store.EventStore.
func (t *tx) CountEventsFor(_ context.Context, q store.EventLogQuery, max int) (int, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	n := 0
	for i := t.d.after(q.After); i < len(t.d.log) && n < max; i++ {
		if t.d.selects(i, q) {
			n++
		}
	}
	return n, nil
}

// PruneEvents implements store.EventStore.
func (t *tx) PruneEvents(_ context.Context, through int64, limit int) (int, error) {
	if err := t.write(); err != nil {
		return 0, err
	}
	n := min(t.d.after(through), limit)
	if n <= 0 {
		return 0, nil
	}
	if n < len(t.d.log) {
		// A group is pruned whole (see store.EventStore): one writer
		// gives its entries consecutive places in the log.
		if start := t.d.log[n].groupStart; start < t.d.log[n].ID {
			if n = t.d.after(start - 1); n == 0 {
				return 0, nil
			}
		}
	}
	old, oldPruned := t.d.log, t.d.prunedThrough
	t.undo = append(t.undo, func() { t.d.log, t.d.prunedThrough = old, oldPruned })
	t.d.prunedThrough = max(t.d.prunedThrough, t.d.log[n-1].ID)
	t.d.log = t.d.log[n:]
	return n, nil
}

// EventsPrunedThrough implements store.EventStore.
func (t *tx) EventsPrunedThrough(context.Context, store.RealmID) (int64, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	return t.d.prunedThrough, nil
}

// CreateEventQueue implements store.EventStore.
func (t *tx) CreateEventQueue(_ context.Context, q *store.EventQueue) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.queues[q.ID]; ok {
		return fmt.Errorf("event queue %q: %w", q.ID, store.ErrConflict)
	}
	put(t, t.d.queues, q.ID, cloneQueue(q))
	return nil
}

// EventQueue implements store.EventStore.
func (t *tx) EventQueue(_ context.Context, id string) (*store.EventQueue, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	q, ok := t.d.queues[id]
	if !ok {
		return nil, fmt.Errorf("event queue %q: %w", id, store.ErrNotFound)
	}
	return cloneQueue(q), nil
}

// UpdateEventQueue implements store.EventStore.
func (t *tx) UpdateEventQueue(_ context.Context, q *store.EventQueue) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.queues[q.ID]
	if !ok {
		return fmt.Errorf("event queue %q: %w", q.ID, store.ErrNotFound)
	}
	c := cloneQueue(old)
	c.Position, c.Acked, c.LastPoll = q.Position, q.Acked, seconds(q.LastPoll)
	put(t, t.d.queues, q.ID, c)
	return nil
}

// DeleteEventQueues implements store.EventStore.
func (t *tx) DeleteEventQueues(_ context.Context, ids []string) (int, error) {
	if err := t.write(); err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		if _, ok := t.d.queues[id]; ok {
			del(t, t.d.queues, id)
			n++
		}
	}
	return n, nil
}

// EventQueues implements store.EventStore.
func (t *tx) EventQueues(_ context.Context, f store.EventQueueFilter) ([]store.EventQueue, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.EventQueue
	for _, q := range t.d.queues {
		if queueSelected(q, f) {
			out = append(out, *cloneQueue(q))
		}
	}
	slices.SortFunc(out, func(a, b store.EventQueue) int {
		if f.OldestPollFirst {
			if c := a.LastPoll.Compare(b.LastPoll); c != 0 {
				return c
			}
		}
		return strings.Compare(a.ID, b.ID)
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// CountEventQueues implements [store.EventStore].
func (t *tx) CountEventQueues(_ context.Context, f store.EventQueueFilter) (int, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	n := 0
	for _, q := range t.d.queues {
		if queueSelected(q, f) {
			if n++; n == f.Limit {
				break
			}
		}
	}
	return n, nil
}

// queueSelected reports whether f selects q.
func queueSelected(q *store.EventQueue, f store.EventQueueFilter) bool {
	switch {
	case f.RealmID != 0 && q.RealmID != f.RealmID,
		f.UserID != 0 && q.UserID != f.UserID,
		!f.ExpiredAt.IsZero() && !q.LastPoll.Add(q.Lifespan).Before(f.ExpiredAt),
		f.PositionBelow != 0 && q.Position >= f.PositionBelow,
		f.AfterID != "" && q.ID <= f.AfterID:
		return false
	}
	return true
}

// OldestEventQueuePosition implements store.EventStore.
func (t *tx) OldestEventQueuePosition(context.Context) (int64, bool, error) {
	if err := t.read(); err != nil {
		return 0, false, err
	}
	var oldest int64
	found := false
	for _, q := range t.d.queues {
		if !found || q.Position < oldest {
			oldest, found = q.Position, true
		}
	}
	return oldest, found, nil
}

func cloneQueue(q *store.EventQueue) *store.EventQueue {
	c := *q
	c.Params = slices.Clone(q.Params)
	c.Created, c.LastPoll = seconds(q.Created), seconds(q.LastPoll)
	c.Lifespan = q.Lifespan.Truncate(time.Second)
	return &c
}

// seconds returns t in whole seconds, UTC, as a SQL store keeps it.
func seconds(t time.Time) time.Time { return time.Unix(t.Unix(), 0).UTC() }
