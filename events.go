package chatcore

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/chatcore/chatcore/internal/eventwire"
	"github.com/chatcore/chatcore/store"
)

// OnEventsCommitted registers fn to be called after every commit that
// appended events to the log, with one notice per realm, on the committing
// goroutine (fn must not block). It returns a function that unregisters fn.
// Package eventqueue uses it to wake waiting polls.
func (s *Service) OnEventsCommitted(fn func([]EventNotice)) (stop func()) {
	return s.notify.Add(fn)
}

// noticeEvents tells the registered functions about the logged events.
func (s *Service) noticeEvents(logged []LoggedEvent) {
	if s.notify.Len() == 0 || len(logged) == 0 {
		return
	}
	s.notify.Call(store.EventNotices(logged))
}

// logEvents appends the operation's events to the store's event log inside
// its transaction, and every so often first collects what the log no longer
// needs. The collection goes first: a store may hold a lock from the append
// to the commit that every write of the realm appending events waits for
// (PostgreSQL's append lock), and a collection deletes many rows.
func (s *Service) logEvents(ctx context.Context, tx Tx, events []Event) ([]LoggedEvent, error) {
	logged := make([]LoggedEvent, 0, len(events))
	for _, e := range events {
		data, err := json.Marshal(e.Data)
		if err != nil {
			return nil, err
		}
		if e.markdown != nil {
			raw, err := json.Marshal(*e.markdown)
			if err != nil {
				return nil, err
			}
			data = append(append(append([]byte(`{"`+rawContentKey+`":`), raw...), ','), data[1:]...)
		}
		if e.echo != nil {
			echo, err := json.Marshal(e.echo)
			if err != nil {
				return nil, err
			}
			data = append(append(append([]byte(`{"`+eventwire.LocalEchoKey+`":`), echo...), ','), data[1:]...)
		}
		if e.modernPresence != nil {
			modern, err := json.Marshal(e.modernPresence)
			if err != nil {
				return nil, err
			}
			data = append(append(append([]byte(`{"`+eventwire.ModernPresenceKey+`":`), modern...), ','), data[1:]...)
		}
		users := slices.Clone(e.UserIDs)
		slices.Sort(users)
		logged = append(logged, LoggedEvent{RealmID: e.RealmID, UserIDs: slices.Compact(users), Public: e.public, Group: e.group, Data: data})
	}
	// The count of entries this Service appended paces the collection: a
	// store may fill the ids in only with the transaction's next statement
	// or its commit (see EventStore).
	n := s.logged.Add(int64(len(logged)))
	if n/collectEvery != (n-int64(len(logged)))/collectEvery {
		if err := s.collectInTx(ctx, tx, CollectBatch); err != nil {
			return nil, err
		}
	}
	if err := tx.AppendEvents(ctx, logged); err != nil {
		return nil, err
	}
	return logged, nil
}

// rawContentKey holds a message event's Markdown in the log; it is never
// delivered.
const rawContentKey = eventwire.RawContentKey

// collectEvery: the log is collected in the write that appends every
// collectEvery-th entry this Service appends (each server instance sharing
// a store collects at its own pace, together at the pace of the log).
const collectEvery = 256

// CollectBatch bounds the queues and log entries one write of a collection
// deletes (the writes that collect as they go, and package eventqueue's
// collector), and the queues one read of a restart announcement pages
// through.
const CollectBatch = 1024

// collectInTx deletes up to limit expired queues and prunes up to limit log
// entries that no queue needs.
func (s *Service) collectInTx(ctx context.Context, tx Tx, limit int) error {
	expired, err := tx.EventQueues(ctx, EventQueueFilter{ExpiredAt: s.clock.Now(), Limit: limit})
	if err != nil {
		return err
	}
	if _, err := DeleteQueues(ctx, tx, expired); err != nil {
		return err
	}
	_, err = PruneEventLog(ctx, tx, limit)
	return err
}

// PruneEventLog deletes, in tx, up to limit log entries that no event queue
// still needs: those at or below the bound the store gives (the oldest
// queue's position, or higher where a realm's ids run apart from the
// others'), or the whole log when no queue is left. It returns how many it
// deleted. Writes prune a little as they go; package eventqueue's collection
// calls it to prune the rest. Errors come from the store.
func PruneEventLog(ctx context.Context, tx Tx, limit int) (int, error) {
	through, ok, err := tx.OldestEventQueuePosition(ctx)
	if err != nil {
		return 0, err
	}
	if !ok {
		if through, err = tx.LastEventID(ctx, 0); err != nil {
			return 0, err
		}
	}
	return tx.PruneEvents(ctx, through, limit)
}

// DeleteQueues deletes the event queues qs and returns how many the store
// deleted.
func DeleteQueues(ctx context.Context, tx Tx, qs []EventQueue) (int, error) {
	if len(qs) == 0 {
		return 0, nil
	}
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = q.ID
	}
	return tx.DeleteEventQueues(ctx, ids)
}
