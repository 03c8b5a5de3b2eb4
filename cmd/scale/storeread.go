package main

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chatcore/chatcore/store"
)

// The store's part of a GET /messages request: the message queries its
// transactions make, replayed as MessageIDs in one View. Compared with the
// raw sibling, it measures what the query model controls (the SQL the store
// builds for the query, the reads it needs first, such as the user's
// memberships, and its round trips), without HTTP, authentication, access
// checks, the messages' other columns and children, views and JSON.

// recordingStore is the store of the capture server: while recording, the
// transactions it runs note every query given to Messages and MessageIDs.
// It hides the store's optional interfaces (single-statement views, announced
// reads), so it serves only the untimed capture runs, never timed ones.
type recordingStore struct {
	closingStore
	mu      sync.Mutex
	on      bool
	queries []store.MessageQuery
}

// record runs call with recording on and returns the queries noted.
func (s *recordingStore) record(call func() error) ([]store.MessageQuery, error) {
	s.mu.Lock()
	s.on, s.queries = true, nil
	s.mu.Unlock()
	err := call()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.on = false
	return s.queries, err
}

func (s *recordingStore) note(q store.MessageQuery) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.on {
		s.queries = append(s.queries, q)
	}
}

func (s *recordingStore) View(ctx context.Context, fn func(tx store.Tx) error) error {
	return s.closingStore.View(ctx, func(tx store.Tx) error { return fn(recordingTx{tx, s}) })
}

func (s *recordingStore) Update(ctx context.Context, fn func(tx store.Tx) error) error {
	return s.closingStore.Update(ctx, func(tx store.Tx) error { return fn(recordingTx{tx, s}) })
}

// recordingTx notes the message queries of one transaction.
type recordingTx struct {
	store.Tx
	s *recordingStore
}

func (t recordingTx) Messages(ctx context.Context, q store.MessageQuery) ([]store.Message, error) {
	t.s.note(q)
	return t.Tx.Messages(ctx, q)
}

func (t recordingTx) MessageIDs(ctx context.Context, q store.MessageQuery) ([]store.MessageID, error) {
	t.s.note(q)
	return t.Tx.MessageIDs(ctx, q)
}

// hasStoreRead says whether r's row has a store column: the GET /messages
// reads, whose store part is their message queries.
func (r request) hasStoreRead() bool { return r.method == "GET" && r.path == "/messages" }

// captureQueries makes one untimed request r to a capture server over st
// and returns the message queries its transactions made.
func captureQueries(ctx context.Context, st closingStore, m *model, r request, timeout time.Duration) ([]store.MessageQuery, error) {
	rec := &recordingStore{closingStore: st}
	srv, err := startServer(rec)
	if err != nil {
		return nil, err
	}
	defer srv.close()
	c := newClient(srv.base, m, r.user, timeout)
	qs, err := rec.record(func() error {
		_, err := c.call(ctx, r.method, r.path, r.params(0))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("capture: %w", err)
	}
	if len(qs) == 0 {
		return nil, errors.New("capture: the request made no message query")
	}
	return qs, nil
}

// timeReplay times runs replays of qs on st, each in one View, and returns
// their p50.
func timeReplay(ctx context.Context, st store.Store, qs []store.MessageQuery, runs int) (time.Duration, error) {
	var times []time.Duration
	for range runs {
		start := time.Now()
		err := st.View(ctx, func(tx store.Tx) error {
			for _, q := range qs {
				if _, err := tx.MessageIDs(ctx, q); err != nil {
					return err
				}
			}
			return nil
		})
		times = append(times, time.Since(start))
		if err != nil {
			return 0, fmt.Errorf("replay: %w", err)
		}
	}
	return percentile(times, 0.5), nil
}
