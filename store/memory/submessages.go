package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// CreateSubmessage implements store.SubmessageStore. Submessages live in
// their message; an explicit id is checked against every message's (a
// path only loaders take).
func (t *tx) CreateSubmessage(_ context.Context, s *store.Submessage) error {
	if err := t.write(); err != nil {
		return err
	}
	m, ok := t.d.messages[s.MessageID]
	if !ok {
		return fmt.Errorf("create submessage: message %d: %w", s.MessageID, store.ErrNotFound)
	}
	if s.ID != 0 && s.ID <= t.d.submessageMax {
		for _, other := range t.d.messages {
			if slices.ContainsFunc(other.Submessages, func(x store.Submessage) bool { return x.ID == s.ID }) {
				return fmt.Errorf("submessage %d: %w", s.ID, store.ErrConflict)
			}
		}
	}
	if s.ID == 0 {
		s.ID = t.d.submessageMax + 1
	}
	useID(t, &t.d.submessageMax, s.ID)
	c := cloneMessage(m)
	c.Submessages = append(c.Submessages, *s)
	slices.SortFunc(c.Submessages, func(a, b store.Submessage) int { return cmp.Compare(a.ID, b.ID) })
	put(t, t.d.messages, s.MessageID, c)
	return nil
}

// Submessages implements store.SubmessageStore.
func (t *tx) Submessages(_ context.Context, msg store.MessageID) ([]store.Submessage, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	m, ok := t.d.messages[msg]
	if !ok {
		return []store.Submessage{}, nil
	}
	return append([]store.Submessage{}, m.Submessages...), nil
}
