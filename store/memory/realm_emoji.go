package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/chatcore/chatcore/store"
)

// CreateRealmEmoji implements store.RealmEmojiStore.
func (t *tx) CreateRealmEmoji(_ context.Context, e *store.RealmEmoji) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.realmEmoji[e.ID]; ok && e.ID != 0 {
		return fmt.Errorf("realm emoji %d: %w", e.ID, store.ErrConflict)
	}
	if !e.Deactivated {
		for _, x := range t.d.realmEmoji {
			if x.RealmID == e.RealmID && x.Name == e.Name && !x.Deactivated {
				return fmt.Errorf("realm emoji %q: %w", e.Name, store.ErrConflict)
			}
		}
	}
	if e.ID == 0 {
		e.ID = t.d.realmEmojiMax + 1
	}
	useID(t, &t.d.realmEmojiMax, e.ID)
	c := *e
	c.Created = e.Created.Truncate(time.Second)
	put(t, t.d.realmEmoji, e.ID, &c)
	return nil
}

// UpdateRealmEmoji implements store.RealmEmojiStore.
func (t *tx) UpdateRealmEmoji(_ context.Context, e *store.RealmEmoji) error {
	if err := t.write(); err != nil {
		return err
	}
	old := t.d.realmEmoji[e.ID]
	if old == nil {
		return fmt.Errorf("realm emoji %d: %w", e.ID, store.ErrNotFound)
	}
	c := *old
	c.FileName, c.ContentType, c.Deactivated = e.FileName, e.ContentType, e.Deactivated
	put(t, t.d.realmEmoji, e.ID, &c)
	return nil
}

// RealmEmojis implements store.RealmEmojiStore.
func (t *tx) RealmEmojis(_ context.Context, realm store.RealmID) ([]store.RealmEmoji, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.RealmEmoji{}
	for _, e := range t.d.realmEmoji {
		if e.RealmID == realm {
			out = append(out, *e)
		}
	}
	slices.SortFunc(out, func(a, b store.RealmEmoji) int { return cmp.Compare(a.ID, b.ID) })
	return out, nil
}
