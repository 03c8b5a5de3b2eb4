package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore"
)

// Linkifier implements chatcore.LinkifierStore.
func (t *tx) Linkifier(_ context.Context, id chatcore.LinkifierID) (*chatcore.Linkifier, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	l, ok := t.d.linkifiers[id]
	if !ok {
		return nil, fmt.Errorf("linkifier %d: %w", id, chatcore.ErrNotFound)
	}
	return cloneLinkifier(l), nil
}

// Linkifiers implements chatcore.LinkifierStore.
func (t *tx) Linkifiers(_ context.Context, realm chatcore.RealmID) ([]chatcore.Linkifier, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []chatcore.Linkifier{}
	for id := range t.d.linkifiersByRealm[realm].all() {
		out = append(out, *t.d.linkifiers[id])
	}
	slices.SortStableFunc(out, func(a, b chatcore.Linkifier) int { return cmp.Compare(a.Order, b.Order) })
	return out, nil
}

// CreateLinkifier implements chatcore.LinkifierStore.
func (t *tx) CreateLinkifier(_ context.Context, l *chatcore.Linkifier) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.linkifiers[l.ID]; ok {
		return fmt.Errorf("linkifier %d: %w", l.ID, chatcore.ErrConflict)
	}
	pattern := realmKey{l.RealmID, l.Pattern}
	if _, ok := t.d.linkifierByPattern[pattern]; ok {
		return fmt.Errorf("linkifier pattern %q in realm %d: %w", l.Pattern, l.RealmID, chatcore.ErrConflict)
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

// UpdateLinkifier implements chatcore.LinkifierStore. The stored RealmID is
// kept; a pattern used by another linkifier of the realm gives ErrConflict.
func (t *tx) UpdateLinkifier(_ context.Context, l *chatcore.Linkifier) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.linkifiers[l.ID]
	if !ok {
		return fmt.Errorf("linkifier %d: %w", l.ID, chatcore.ErrNotFound)
	}
	pattern := realmKey{old.RealmID, l.Pattern}
	if other, ok := t.d.linkifierByPattern[pattern]; ok && other != l.ID {
		return fmt.Errorf("linkifier pattern %q in realm %d: %w", l.Pattern, old.RealmID, chatcore.ErrConflict)
	}
	c := cloneLinkifier(l)
	c.RealmID = old.RealmID
	del(t, t.d.linkifierByPattern, realmKey{old.RealmID, old.Pattern})
	put(t, t.d.linkifierByPattern, pattern, l.ID)
	put(t, t.d.linkifiers, l.ID, c)
	bumpLinkifiers(t, c.RealmID)
	return nil
}

// DeleteLinkifier implements chatcore.LinkifierStore.
func (t *tx) DeleteLinkifier(_ context.Context, id chatcore.LinkifierID) error {
	if err := t.write(); err != nil {
		return err
	}
	l, ok := t.d.linkifiers[id]
	if !ok {
		return fmt.Errorf("linkifier %d: %w", id, chatcore.ErrNotFound)
	}
	del(t, t.d.linkifiers, id)
	del(t, t.d.linkifierByPattern, realmKey{l.RealmID, l.Pattern})
	unindex(t, t.d.linkifiersByRealm, l.RealmID, id)
	bumpLinkifiers(t, l.RealmID)
	return nil
}

// LinkifiersVersion implements chatcore.LinkifierStore.
func (t *tx) LinkifiersVersion(_ context.Context, realm chatcore.RealmID) (int64, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	return t.d.linkifierVersions[realm], nil
}

// bumpLinkifiers raises the realm's linkifiers version, undone with the
// transaction's other writes.
func bumpLinkifiers(t *tx, realm chatcore.RealmID) {
	put(t, t.d.linkifierVersions, realm, t.d.linkifierVersions[realm]+1)
}
