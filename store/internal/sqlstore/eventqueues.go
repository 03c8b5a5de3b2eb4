package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/chatcore/chatcore/store"
)

// QueueCols are the columns of an event queue, in the order ScanEventQueue
// reads them.
const QueueCols = "id, realm_id, user_id, params, public, lifespan_secs, position, acked, created, last_poll"

// ScanEventQueue scans a row of QueueCols into q, then the columns after
// them into extra.
func ScanEventQueue(r Row, q *store.EventQueue, extra ...any) error {
	var secs int64
	err := r.Scan(append([]any{&q.ID, Num(&q.RealmID), Num(&q.UserID), &q.Params, &q.Public, &secs,
		&q.Position, &q.Acked, Time(&q.Created), Time(&q.LastPoll)}, extra...)...)
	q.Lifespan = time.Duration(secs) * time.Second
	return err
}

// EventQueue implements [store.EventStore].
func (x *Tx) EventQueue(ctx context.Context, id string) (*store.EventQueue, error) {
	var q store.EventQueue
	if err := ScanEventQueue(x.q.QueryRow(ctx, "SELECT "+QueueCols+" FROM event_queues WHERE id = $1", id), &q); err != nil {
		return nil, x.classify(err, fmt.Sprintf("event queue %q", id))
	}
	return &q, nil
}

// DeleteEventQueues implements [store.EventStore] with one statement.
func (x *Tx) DeleteEventQueues(ctx context.Context, ids []string) (int, error) {
	if err := x.q.Writable(); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, nil
	}
	n, err := x.q.Exec(ctx, "DELETE FROM event_queues WHERE "+x.d.In("id", "$1", "text"), x.d.Strings(ids))
	if err != nil {
		return 0, x.classify(err, "delete event queues")
	}
	return int(n), nil
}

// EventQueues implements [store.EventStore]; a queue's expiry is the
// dialect's QueueExpiry.
func (x *Tx) EventQueues(ctx context.Context, f store.EventQueueFilter) ([]store.EventQueue, error) {
	where, args := x.queueFilter(f)
	query := "SELECT " + QueueCols + " FROM event_queues WHERE " + where
	if f.OldestPollFirst {
		query += " ORDER BY last_poll, id"
	} else {
		query += " ORDER BY id"
	}
	if f.Limit > 0 {
		args = append(args, f.Limit)
		query += " LIMIT $" + strconv.Itoa(len(args))
	}
	return scanAll(ctx, x, "event queues", func(r Row, q *store.EventQueue) error { return ScanEventQueue(r, q) }, query, args...)
}

// CountEventQueues implements [store.EventStore], with the expiry of
// EventQueues: it counts no further than f.Limit (when positive) by
// counting a subquery that stops there.
func (x *Tx) CountEventQueues(ctx context.Context, f store.EventQueueFilter) (int, error) {
	where, args := x.queueFilter(f)
	query := "SELECT count(*) FROM (SELECT 1 FROM event_queues WHERE " + where
	if f.Limit > 0 {
		args = append(args, f.Limit)
		query += " LIMIT $" + strconv.Itoa(len(args))
	}
	query += ") c"
	var n int64
	if err := x.q.QueryRow(ctx, query, args...).Scan(&n); err != nil {
		return 0, x.classify(err, "count event queues")
	}
	return int(n), nil
}

// queueFilter returns the WHERE condition of f and its arguments ($1...).
func (x *Tx) queueFilter(f store.EventQueueFilter) (string, []any) {
	where := "true"
	var args []any
	add := func(cond string, v any) {
		args = append(args, v)
		where += cond + "$" + strconv.Itoa(len(args))
	}
	if f.RealmID != 0 {
		add(" AND realm_id = ", f.RealmID)
	}
	if f.UserID != 0 {
		add(" AND user_id = ", f.UserID)
	}
	if !f.ExpiredAt.IsZero() {
		add(" AND "+x.d.QueueExpiry+" < ", x.d.Time(expiryBound(f.ExpiredAt)))
	}
	if f.PositionBelow != 0 {
		add(" AND position < ", f.PositionBelow)
	}
	if f.AfterID != "" {
		add(" AND id > ", f.AfterID)
	}
	return where, args
}

// expiryBound is the bound "expiry < bound" compares with for a queue
// expired at t: a queue whose end is t itself, or a fraction of a second
// before it, is expired (stored times are whole seconds).
func expiryBound(t time.Time) time.Time {
	b := t.Truncate(time.Second)
	if b.Before(t) {
		b = b.Add(time.Second)
	}
	return b
}

// QueueParams is the argument of a queue's params column, which is NOT
// NULL: nil is empty.
func QueueParams(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
