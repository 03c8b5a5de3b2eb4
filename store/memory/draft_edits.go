package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// Draft implements store.DraftEditStore.
func (t *tx) Draft(_ context.Context, id store.DraftID) (*store.Draft, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	d, ok := t.d.drafts[id]
	if !ok {
		return nil, fmt.Errorf("draft %d: %w", id, store.ErrNotFound)
	}
	return cloneDraft(d), nil
}

// UpdateDraft implements store.DraftEditStore.
func (t *tx) UpdateDraft(_ context.Context, d *store.Draft) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.drafts[d.ID]
	if !ok {
		return fmt.Errorf("update draft %d: %w", d.ID, store.ErrNotFound)
	}
	c := cloneDraft(d)
	c.UserID = old.UserID
	put(t, t.d.drafts, d.ID, c)
	return nil
}

// DeleteDraft implements store.DraftEditStore.
func (t *tx) DeleteDraft(_ context.Context, id store.DraftID) error {
	if err := t.write(); err != nil {
		return err
	}
	d, ok := t.d.drafts[id]
	if !ok {
		return fmt.Errorf("delete draft %d: %w", id, store.ErrNotFound)
	}
	del(t, t.d.drafts, id)
	unindex(t, t.d.draftsByUser, d.UserID, id)
	return nil
}

// RecentDrafts implements store.DraftEditStore.
func (t *tx) RecentDrafts(_ context.Context, user store.UserID, limit int) ([]store.Draft, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, errors.New("memory: RecentDrafts: limit must be positive")
	}
	out := []store.Draft{}
	for id := range t.d.draftsByUser[user].all() {
		out = append(out, *cloneDraft(t.d.drafts[id]))
	}
	slices.SortFunc(out, func(a, b store.Draft) int {
		if a.LastEdit.IsZero() != b.LastEdit.IsZero() {
			if a.LastEdit.IsZero() {
				return 1
			}
			return -1
		}
		if c := b.LastEdit.Compare(a.LastEdit); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
