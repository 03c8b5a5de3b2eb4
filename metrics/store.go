package metrics

import (
	"context"
	"time"

	"github.com/chatcore/chatcore"
)

// InstrumentStore returns st with its transactions timed
// (chatcore_store_transaction_duration_seconds, result "ok" or "error") and
// the extra runs of their functions counted
// (chatcore_store_transaction_retries_total). Give the result to
// [chatcore.New]; keep st itself for what is specific to its type (a
// PostgreSQL store's Bus). The optional read hint
// [chatcore.SingleReadStore] is kept when st has it.
func (m *Metrics) InstrumentStore(st chatcore.Store) chatcore.Store {
	s := &timedStore{Store: st, m: m}
	if one, ok := st.(chatcore.SingleReadStore); ok {
		return &timedSingleStore{timedStore: s, one: one}
	}
	return s
}

type timedStore struct {
	chatcore.Store
	m *Metrics
}

func (s *timedStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.m.time("view", func(counted func(tx chatcore.Tx) error) error { return s.Store.View(ctx, counted) }, fn)
}

func (s *timedStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.m.time("update", func(counted func(tx chatcore.Tx) error) error { return s.Store.Update(ctx, counted) }, fn)
}

type timedSingleStore struct {
	*timedStore
	one chatcore.SingleReadStore
}

func (s *timedSingleStore) ViewSingle(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.m.time("view", func(counted func(tx chatcore.Tx) error) error { return s.one.ViewSingle(ctx, counted) }, fn)
}

// time runs one transaction through run with fn wrapped to count its runs.
func (m *Metrics) time(kind string, run func(func(tx chatcore.Tx) error) error, fn func(tx chatcore.Tx) error) error {
	runs := 0
	start := time.Now()
	err := run(func(tx chatcore.Tx) error {
		runs++
		return fn(tx)
	})
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.txDuration.WithLabelValues(kind, result).Observe(time.Since(start).Seconds())
	if runs > 1 {
		m.txRetries.WithLabelValues(kind).Add(float64(runs - 1))
	}
	return err
}
