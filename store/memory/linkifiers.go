package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// Linkifier implements store.LinkifierStore.
func (t *tx) Linkifier(_ context.Context, id store.LinkifierID) (*store.Linkifier, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	l, ok := t.d.linkifiers[id]
	if !ok {
		return nil, fmt.Errorf("linkifier %d: %w", id, store.ErrNotFound)
	}
	return cloneLinkifier(l), nil
}

// Linkifiers implements store.LinkifierStore.
func (t *tx) Linkifiers(_ context.Context, realm store.RealmID) ([]store.Linkifier, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.Linkifier{}
	for id := range t.d.linkifiersByRealm[realm].all() {
		out = append(out, *t.d.linkifiers[id])
	}
	slices.SortStableFunc(out, func(a, b store.Linkifier) int { return cmp.Compare(a.Order, b.Order) })
	return out, nil
}

// CreateLinkifier implements store.LinkifierStore.
func (t *tx) CreateLinkifier(_ context.Context, l *store.Linkifier) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.linkifiers[l.ID]; ok {
		return fmt.Errorf("linkifier %d: %w", l.ID, store.ErrConflict)
	}
	pattern := realmKey{l.RealmID, l.Pattern}
	if _, ok := t.d.linkifierByPattern[pattern]; ok {
		return fmt.Errorf("linkifier pattern %q in realm %d: %w", l.Pattern, l.RealmID, store.ErrConflict)
	}
	if l.ID == 0 {
		l.ID = t.d.linkifierMax + 1
	}
	useID(t, &t.d.linkifierMax, l.ID)
	put(t, t.d.linkifiers, l.ID, cloneLinkifier(l))
	put(t, t.d.linkifierByPattern, pattern, l.ID)
	index(t, t.d.linkifiersByRealm, l.RealmID, l.ID)
	bumpLinkifiers(t, l.RealmID)
	return nil
}

// UpdateLinkifier implements store.LinkifierStore. The stored RealmID is
// kept; a pattern used by another linkifier of the realm gives ErrConflict.
func (t *tx) UpdateLinkifier(_ context.Context, l *store.Linkifier) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.linkifiers[l.ID]
	if !ok {
		return fmt.Errorf("linkifier %d: %w", l.ID, store.ErrNotFound)
	}
	pattern := realmKey{old.RealmID, l.Pattern}
	if other, ok := t.d.linkifierByPattern[pattern]; ok && other != l.ID {
		return fmt.Errorf("linkifier pattern %q in realm %d: %w", l.Pattern, old.RealmID, store.ErrConflict)
	}
	c := cloneLinkifier(l)
	c.RealmID = old.RealmID
	del(t, t.d.linkifierByPattern, realmKey{old.RealmID, old.Pattern})
	put(t, t.d.linkifierByPattern, pattern, l.ID)
	put(t, t.d.linkifiers, l.ID, c)
	bumpLinkifiers(t, c.RealmID)
	return nil
}

// DeleteLinkifier implements store.LinkifierStore.
func (t *tx) DeleteLinkifier(_ context.Context, id store.LinkifierID) error {
	if err := t.write(); err != nil {
		return err
	}
	l, ok := t.d.linkifiers[id]
	if !ok {
		return fmt.Errorf("linkifier %d: %w", id, store.ErrNotFound)
	}
	del(t, t.d.linkifiers, id)
	del(t, t.d.linkifierByPattern, realmKey{l.RealmID, l.Pattern})
	unindex(t, t.d.linkifiersByRealm, l.RealmID, id)
	bumpLinkifiers(t, l.RealmID)
	return nil
}

// LinkifiersVersion implements store.LinkifierStore.
func (t *tx) LinkifiersVersion(_ context.Context, realm store.RealmID) (int64, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	return t.d.linkifierVersions[realm], nil
}

// bumpLinkifiers raises the realm's linkifiers version, undone with the
// transaction's other writes.
func bumpLinkifiers(t *tx, realm store.RealmID) {
	put(t, t.d.linkifierVersions, realm, t.d.linkifierVersions[realm]+1)
}
