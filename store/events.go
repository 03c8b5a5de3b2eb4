package store

import (
	"context"
	"slices"
	"time"
)

// LoggedEvent is one entry of the event log: an event as the Service shaped
// it, for the users it is addressed to. The log is what event queues read
// (see [EventStore]).
type LoggedEvent struct {
	// ID is filled in by [EventStore.AppendEvents], at the latest when the
	// transaction's next statement runs or it commits.
	ID      int64
	RealmID RealmID
	// UserIDs are the users the event is for, ascending and without
	// duplicates. [EventStore.EventsFor] leaves it nil in its results.
	UserIDs []UserID
	// Public marks a public channel's message event that the queues of the
	// realm that ask for every public channel message (see
	// [EventQueue].Public) receive too when their user is none of UserIDs
	// and no other event of the same Group is addressed to that user. It is
	// either such queues' copy alone (no UserIDs) or an event for UserIDs
	// whose data suits them as well.
	Public bool
	// Group ties the events of one message together (its id; 0: none). The
	// events of a group are appended by one AppendEvents call, at most one
	// of them Public, and that one last: a store looks for an event
	// addressed to the user among the group's events up to the Public one.
	Group int64
	// Data is the event as JSON, without its id.
	Data []byte
}

// EventLogQuery selects the log entries one queue may receive.
type EventLogQuery struct {
	RealmID RealmID
	UserID  UserID
	// After is an exclusive lower bound on ids.
	After int64
	// Public also selects the realm's Public entries when no entry of their
	// Group is addressed to UserID.
	Public bool
	// Limit bounds the result; zero means no limit.
	Limit int
}

// EventQueue is a registered event queue: a cursor over the event log with
// the options its client registered with. Queues live in the store, so
// every server instance sharing it can serve any queue, and they survive a
// restart.
type EventQueue struct {
	// ID is the queue id clients send; unique.
	ID      string
	RealmID RealmID
	UserID  UserID
	// Params are the queue's options as the Service encodes them (opaque
	// to stores).
	Params []byte
	// Public makes the queue receive the realm's Public log entries.
	Public bool
	// Lifespan is how long the queue lives without a poll; stored in whole
	// seconds.
	Lifespan time.Duration
	// Position is the log id through which the queue needs nothing more.
	Position int64
	// Acked is the id of the last event the client acknowledged, as the
	// client knows it; -1 before the first.
	Acked int64
	// Created and LastPoll are stored in whole seconds.
	Created  time.Time
	LastPoll time.Time
}

// EventStore persists the event log and the event queues that read it. The
// Service appends an operation's events in the operation's own write
// transaction, so an event exists exactly when its change has committed.
type EventStore interface {
	// AppendEvents appends the events in order and fills in their ids: each
	// above every id ever appended (pruned ones included). A store may send
	// the append with the transaction's next call or with its commit (a
	// round trip fewer for a client-server database); the ids are filled in
	// then, so a caller reads them only after another call on the Tx or
	// once the transaction has committed (and the append's own failure is
	// then that call's, or the commit's). Within a realm,
	// ids follow commit order: a transaction that sees an entry of a realm
	// sees every entry of that realm with a lower id that will ever exist.
	// (A single-writer store gets this for free, across realms too; a store
	// with concurrent writers serialises the appends of each realm, and
	// need not order the appends of different realms.)
	AppendEvents(ctx context.Context, events []LoggedEvent) error
	// LastEventID returns the realm's head as this transaction sees it: an
	// id at or above every entry of the realm ever appended that the
	// transaction sees (pruned ones included), such that every entry of the
	// realm at or below it that will ever exist is seen or was pruned; 0
	// when the realm has none. A single-writer store may answer the highest
	// id appended in any realm. Pruning does not lower it. With realm 0 it
	// returns the highest id the transaction sees of any realm, pruned ones
	// included (an upper bound of every realm's head).
	LastEventID(ctx context.Context, realm RealmID) (int64, error)
	// EventsFor returns the entries q selects, ascending by id: entries of
	// q.RealmID with id above q.After addressed to q.UserID, and, when
	// q.Public is set, the realm's Public entries such that no entry of the
	// same Group is addressed to q.UserID.
	EventsFor(ctx context.Context, q EventLogQuery) ([]LoggedEvent, error)
	// CountEventsFor returns how many entries EventsFor(q) would return
	// (q.Limit ignored), counting no further than max.
	CountEventsFor(ctx context.Context, q EventLogQuery, max int) (int, error)
	// PruneEvents deletes the oldest entries with id <= through, at most
	// limit (positive) of them, and returns how many it deleted. It deletes
	// a Group whole or not at all: the entries of a group that has entries
	// past the last one it would delete stay for a later call (a queue
	// positioned inside a group has had its user's entry, and the group's
	// Public one, later, must still see it). The Service's limit is far above
	// any group's size.
	PruneEvents(ctx context.Context, through int64, limit int) (int, error)
	// EventsPrunedThrough returns the highest id of the realm's entries
	// that PruneEvents deleted, 0 when none: every entry of the realm above
	// it that was appended is still there. A single-writer store may answer
	// the highest id deleted in any realm.
	EventsPrunedThrough(ctx context.Context, realm RealmID) (int64, error)

	// CreateEventQueue inserts q; a queue id in use gives ErrConflict, from
	// this call or from the commit of its transaction.
	CreateEventQueue(ctx context.Context, q *EventQueue) error
	// EventQueue returns the queue with the id, or ErrNotFound.
	EventQueue(ctx context.Context, id string) (*EventQueue, error)
	// UpdateEventQueue overwrites Position, Acked and LastPoll of the stored
	// queue q.ID (nothing else), or returns ErrNotFound.
	UpdateEventQueue(ctx context.Context, q *EventQueue) error
	// DeleteEventQueues deletes the queues with these ids and returns how
	// many existed.
	DeleteEventQueues(ctx context.Context, ids []string) (int, error)
	// EventQueues returns the queues f selects, ordered by id (by LastPoll,
	// then id, with f.OldestPollFirst).
	EventQueues(ctx context.Context, f EventQueueFilter) ([]EventQueue, error)
	// CountEventQueues returns how many queues EventQueues(f) would return,
	// counting no further than f.Limit when it is positive (OldestPollFirst
	// makes no difference). It reads no queue's Params.
	CountEventQueues(ctx context.Context, f EventQueueFilter) (int, error)
	// OldestEventQueuePosition returns an id at or below which no queue
	// needs an entry it sees, and false when there is no queue: the
	// smallest Position of any queue, or, in a store whose realms' ids
	// commit out of order (see AppendEvents), possibly higher, but never
	// at or above an entry it sees of a queue's realm above that queue's
	// Position. (Pruning deletes what it sees at or below the answer.)
	OldestEventQueuePosition(ctx context.Context) (int64, bool, error)
}

// EventQueueFilter selects event queues; zero fields do not filter.
type EventQueueFilter struct {
	RealmID RealmID
	UserID  UserID
	// ExpiredAt keeps queues whose LastPoll plus Lifespan is before it.
	ExpiredAt time.Time
	// PositionBelow keeps queues whose Position is below it.
	PositionBelow int64
	// AfterID keeps queues whose id sorts after it (paging in id order).
	AfterID string
	// OldestPollFirst orders the result by LastPoll, then id, instead of
	// by id: the queues idle the longest come first.
	OldestPollFirst bool
	// Limit bounds the result; zero means no limit.
	Limit int
}

// EventNotice tells, after a commit, which queues may have new events: the
// queues of UserIDs in the realm and, when Public is set, the realm's
// queues that receive every public channel message.
type EventNotice struct {
	RealmID RealmID
	UserIDs []UserID
	Public  bool
	// LastID is the highest log id the commit appended.
	LastID int64
}

// EventNotices groups committed log entries into the notices
// chatcore.Service.OnEventsCommitted functions receive: one per realm, in the order
// the realms first appear, with its users sorted and without duplicates, and
// the highest log id. A Bus that carries commits to other processes can send
// these.
func EventNotices(logged []LoggedEvent) []EventNotice {
	var out []EventNotice
	for _, e := range logged {
		i := slices.IndexFunc(out, func(n EventNotice) bool { return n.RealmID == e.RealmID })
		if i < 0 {
			out = append(out, EventNotice{RealmID: e.RealmID})
			i = len(out) - 1
		}
		n := &out[i]
		n.UserIDs = append(n.UserIDs, e.UserIDs...)
		n.Public = n.Public || e.Public
		n.LastID = max(n.LastID, e.ID)
	}
	for i := range out {
		slices.Sort(out[i].UserIDs)
		out[i].UserIDs = slices.Compact(out[i].UserIDs)
	}
	return out
}
