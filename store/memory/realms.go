package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/chatcore/chatcore"
)

// Realm implements chatcore.RealmStore.
func (t *tx) Realm(_ context.Context, id chatcore.RealmID) (*chatcore.Realm, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	r, ok := t.d.realms[id]
	if !ok {
		return nil, fmt.Errorf("realm %d: %w", id, chatcore.ErrNotFound)
	}
	return cloneRealm(r), nil
}

// RealmByStringID implements chatcore.RealmStore.
func (t *tx) RealmByStringID(ctx context.Context, stringID string) (*chatcore.Realm, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.realmByString[stringID]
	if !ok {
		return nil, fmt.Errorf("realm %q: %w", stringID, chatcore.ErrNotFound)
	}
	return t.Realm(ctx, id)
}

// Realms implements chatcore.RealmStore.
func (t *tx) Realms(context.Context) ([]chatcore.Realm, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := make([]chatcore.Realm, 0, len(t.d.realms))
	for _, id := range slices.Sorted(maps.Keys(t.d.realms)) {
		out = append(out, *t.d.realms[id])
	}
	return out, nil
}

// CreateRealm implements chatcore.RealmStore.
func (t *tx) CreateRealm(_ context.Context, r *chatcore.Realm) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.realms[r.ID]; ok {
		return fmt.Errorf("realm %d: %w", r.ID, chatcore.ErrConflict)
	}
	if _, ok := t.d.realmByString[r.StringID]; ok {
		return fmt.Errorf("realm %q: %w", r.StringID, chatcore.ErrConflict)
	}
	if r.ID == 0 {
		r.ID = t.d.realmMax + 1
	}
	useID(t, &t.d.realmMax, r.ID)
	put(t, t.d.realms, r.ID, cloneRealm(r))
	put(t, t.d.realmByString, r.StringID, r.ID)
	return nil
}

// UpdateRealm implements chatcore.RealmStore.
func (t *tx) UpdateRealm(_ context.Context, r *chatcore.Realm) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.realms[r.ID]
	if !ok {
		return fmt.Errorf("realm %d: %w", r.ID, chatcore.ErrNotFound)
	}
	if other, ok := t.d.realmByString[r.StringID]; ok && other != r.ID {
		return fmt.Errorf("realm %q: %w", r.StringID, chatcore.ErrConflict)
	}
	del(t, t.d.realmByString, old.StringID)
	put(t, t.d.realmByString, r.StringID, r.ID)
	put(t, t.d.realms, r.ID, cloneRealm(r))
	return nil
}
