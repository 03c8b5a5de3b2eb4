package memory

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// CreateDraft implements store.DraftStore.
func (t *tx) CreateDraft(_ context.Context, d *store.Draft) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.drafts[d.ID]; ok {
		return fmt.Errorf("draft %d: %w", d.ID, store.ErrConflict)
	}
	if d.ID == 0 {
		d.ID = t.d.draftMax + 1
	}
	useID(t, &t.d.draftMax, d.ID)
	put(t, t.d.drafts, d.ID, cloneDraft(d))
	index(t, t.d.draftsByUser, d.UserID, d.ID)
	return nil
}

// Drafts implements store.DraftStore.
func (t *tx) Drafts(_ context.Context, user store.UserID) ([]store.Draft, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.Draft{}
	for id := range t.d.draftsByUser[user].all() {
		out = append(out, *cloneDraft(t.d.drafts[id]))
	}
	return out, nil
}

// DeleteDrafts implements store.DraftStore.
func (t *tx) DeleteDrafts(_ context.Context, user store.UserID) (int, error) {
	if err := t.write(); err != nil {
		return 0, err
	}
	ids := t.d.draftsByUser[user].collect()
	for _, id := range ids {
		del(t, t.d.drafts, id)
		unindex(t, t.d.draftsByUser, user, id)
	}
	return len(ids), nil
}

// DeleteDraftsOf implements store.DraftStore.
func (t *tx) DeleteDraftsOf(ctx context.Context, users []store.UserID) (int, error) {
	if err := t.write(); err != nil {
		return 0, err
	}
	n := 0
	for _, u := range users {
		k, err := t.DeleteDrafts(ctx, u) // a repeated id finds nothing left
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}
