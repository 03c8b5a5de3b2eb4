package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// Realm implements store.RealmStore.
func (t *tx) Realm(_ context.Context, id store.RealmID) (*store.Realm, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	r, ok := t.d.realms[id]
	if !ok {
		return nil, fmt.Errorf("realm %d: %w", id, store.ErrNotFound)
	}
	return cloneRealm(r), nil
}

// RealmByStringID implements store.RealmStore.
func (t *tx) RealmByStringID(ctx context.Context, stringID string) (*store.Realm, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.realmByString[stringID]
	if !ok {
		return nil, fmt.Errorf("realm %q: %w", stringID, store.ErrNotFound)
	}
	return t.Realm(ctx, id)
}

// Realms implements store.RealmStore.
func (t *tx) Realms(context.Context) ([]store.Realm, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := make([]store.Realm, 0, len(t.d.realms))
	for _, id := range slices.Sorted(maps.Keys(t.d.realms)) {
		out = append(out, *t.d.realms[id])
	}
	return out, nil
}

// CreateRealm implements store.RealmStore.
func (t *tx) CreateRealm(_ context.Context, r *store.Realm) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.realms[r.ID]; ok {
		return fmt.Errorf("realm %d: %w", r.ID, store.ErrConflict)
	}
	if _, ok := t.d.realmByString[r.StringID]; ok {
		return fmt.Errorf("realm %q: %w", r.StringID, store.ErrConflict)
	}
	if r.ID == 0 {
		r.ID = t.d.realmMax + 1
	}
	useID(t, &t.d.realmMax, r.ID)
	put(t, t.d.realms, r.ID, cloneRealm(r))
	put(t, t.d.realmByString, r.StringID, r.ID)
	return nil
}

// UpdateRealm implements store.RealmStore.
func (t *tx) UpdateRealm(_ context.Context, r *store.Realm) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.realms[r.ID]
	if !ok {
		return fmt.Errorf("realm %d: %w", r.ID, store.ErrNotFound)
	}
	if other, ok := t.d.realmByString[r.StringID]; ok && other != r.ID {
		return fmt.Errorf("realm %q: %w", r.StringID, store.ErrConflict)
	}
	del(t, t.d.realmByString, old.StringID)
	put(t, t.d.realmByString, r.StringID, r.ID)
	put(t, t.d.realms, r.ID, cloneRealm(r))
	return nil
}

// RealmUserDefaults implements store.RealmStore.
func (t *tx) RealmUserDefaults(_ context.Context, realm store.RealmID) (store.Settings, error) {
	if err := t.read(); err != nil {
		return store.Settings{}, err
	}
	if s, ok := t.d.userDefaults[realm]; ok {
		return *s, nil
	}
	return store.DefaultSettings(), nil
}

// PutRealmUserDefaults implements store.RealmStore.
func (t *tx) PutRealmUserDefaults(_ context.Context, realm store.RealmID, s *store.Settings) error {
	if err := t.write(); err != nil {
		return err
	}
	c := *s
	put(t, t.d.userDefaults, realm, &c)
	return nil
}
