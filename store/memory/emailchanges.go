package memory

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// CreateEmailChange implements store.EmailChangeStore.
func (t *tx) CreateEmailChange(_ context.Context, c *store.EmailChange) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.emailChanges[c.Key]; ok {
		return fmt.Errorf("e-mail change: %w", store.ErrConflict)
	}
	put(t, t.d.emailChanges, c.Key, cloneEmailChange(c))
	return nil
}

// EmailChange implements store.EmailChangeStore.
func (t *tx) EmailChange(_ context.Context, key string) (*store.EmailChange, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	c, ok := t.d.emailChanges[key]
	if !ok {
		return nil, fmt.Errorf("e-mail change: %w", store.ErrNotFound)
	}
	return cloneEmailChange(c), nil
}

// DeleteEmailChanges implements store.EmailChangeStore.
func (t *tx) DeleteEmailChanges(_ context.Context, user store.UserID) error {
	if err := t.write(); err != nil {
		return err
	}
	for k, c := range t.d.emailChanges {
		if c.UserID == user {
			del(t, t.d.emailChanges, k)
		}
	}
	return nil
}
