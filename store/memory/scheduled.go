package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// ScheduledMessage implements store.ScheduledMessageStore.
func (t *tx) ScheduledMessage(_ context.Context, id store.ScheduledMessageID) (*store.ScheduledMessage, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	m, ok := t.d.scheduled[id]
	if !ok {
		return nil, fmt.Errorf("scheduled message %d: %w", id, store.ErrNotFound)
	}
	return cloneScheduled(m), nil
}

// ScheduledMessages implements store.ScheduledMessageStore.
func (t *tx) ScheduledMessages(_ context.Context, f store.ScheduledFilter) ([]store.ScheduledMessage, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var rows []*store.ScheduledMessage
	for _, m := range t.d.scheduled {
		switch {
		case f.RealmID != 0 && m.RealmID != f.RealmID,
			f.SenderID != 0 && m.SenderID != f.SenderID,
			f.Kind != 0 && m.Kind != f.Kind,
			f.Delivered != nil && m.Delivered != *f.Delivered,
			f.Failed != nil && m.Failed != *f.Failed,
			!f.DueBy.IsZero() && m.DeliverAt.After(f.DueBy):
			continue
		}
		rows = append(rows, m)
	}
	slices.SortFunc(rows, func(a, b *store.ScheduledMessage) int {
		return cmp.Or(a.DeliverAt.Compare(b.DeliverAt), cmp.Compare(a.ID, b.ID))
	})
	if f.Limit > 0 && len(rows) > f.Limit {
		rows = rows[:f.Limit]
	}
	out := make([]store.ScheduledMessage, len(rows))
	for i, m := range rows {
		out[i] = *cloneScheduled(m)
	}
	return out, nil
}

// CreateScheduledMessage implements store.ScheduledMessageStore.
func (t *tx) CreateScheduledMessage(_ context.Context, m *store.ScheduledMessage) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.scheduled[m.ID]; ok {
		return fmt.Errorf("scheduled message %d: %w", m.ID, store.ErrConflict)
	}
	if m.ID == 0 {
		m.ID = t.d.scheduledMax + 1
	}
	useID(t, &t.d.scheduledMax, m.ID)
	put(t, t.d.scheduled, m.ID, cloneScheduled(m))
	return nil
}

// UpdateScheduledMessage implements store.ScheduledMessageStore.
func (t *tx) UpdateScheduledMessage(_ context.Context, m *store.ScheduledMessage) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.scheduled[m.ID]; !ok {
		return fmt.Errorf("scheduled message %d: %w", m.ID, store.ErrNotFound)
	}
	put(t, t.d.scheduled, m.ID, cloneScheduled(m))
	return nil
}

// DeleteScheduledMessage implements store.ScheduledMessageStore.
func (t *tx) DeleteScheduledMessage(_ context.Context, id store.ScheduledMessageID) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.scheduled[id]; !ok {
		return fmt.Errorf("scheduled message %d: %w", id, store.ErrNotFound)
	}
	del(t, t.d.scheduled, id)
	return nil
}
