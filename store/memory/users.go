package memory

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// User implements store.UserStore.
func (t *tx) User(_ context.Context, id store.UserID) (*store.User, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	u, ok := t.d.users[id]
	if !ok {
		return nil, fmt.Errorf("user %d: %w", id, store.ErrNotFound)
	}
	return cloneUser(u), nil
}

// UserByEmail implements store.UserStore.
func (t *tx) UserByEmail(ctx context.Context, realm store.RealmID, email string) (*store.User, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.userByEmail[realmKey{realm, store.FoldKey(email)}]
	if !ok {
		return nil, fmt.Errorf("user %q in realm %d: %w", email, realm, store.ErrNotFound)
	}
	return t.User(ctx, id)
}

// UserByAPIKeyHash implements store.UserStore.
func (t *tx) UserByAPIKeyHash(ctx context.Context, hash string) (*store.User, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.userByAPIKey[hash]
	if !ok || hash == "" {
		return nil, fmt.Errorf("user by API key: %w", store.ErrNotFound)
	}
	return t.User(ctx, id)
}

// KeyHolder implements store.UserStore.
func (t *tx) KeyHolder(ctx context.Context, hash string) (store.KeyHolder, error) {
	if err := t.read(); err != nil {
		return store.KeyHolder{}, err
	}
	id, own := t.d.userByAPIKey[hash]
	if !own || hash == "" {
		k, ok := t.d.loginKeys[hash]
		if !ok {
			return store.KeyHolder{}, fmt.Errorf("user by API key: %w", store.ErrNotFound)
		}
		id = k.UserID
	}
	u, err := t.User(ctx, id)
	if err != nil {
		return store.KeyHolder{}, err
	}
	r, ok := t.d.realms[u.RealmID]
	if !ok {
		return store.KeyHolder{}, fmt.Errorf("realm %d: %w", u.RealmID, store.ErrNotFound)
	}
	return store.KeyHolder{User: u, OwnKey: own && hash != "", RealmDeactivated: r.Deactivated}, nil
}

// Users implements store.UserStore.
func (t *tx) Users(_ context.Context, f store.UserFilter) ([]store.User, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var ids []store.UserID
	switch {
	case f.IDs != nil:
		ids = slices.Compact(slices.Sorted(slices.Values(f.IDs)))
	case f.RealmID != 0:
		ids = t.d.usersByRealm[f.RealmID].collect()
	default:
		ids = slices.Sorted(maps.Keys(t.d.users))
	}
	out := []store.User{}
	for _, id := range ids {
		u, ok := t.d.users[id]
		if !ok || !matchUser(u, &f) {
			continue
		}
		out = append(out, *u)
	}
	return out, nil
}

func matchUser(u *store.User, f *store.UserFilter) bool {
	switch {
	case f.RealmID != 0 && u.RealmID != f.RealmID,
		len(f.Roles) > 0 && !slices.Contains(f.Roles, u.Role),
		f.Active != nil && u.IsActive != *f.Active,
		f.Bot != nil && u.IsBot != *f.Bot,
		f.BotOwnerID != 0 && u.BotOwnerID != f.BotOwnerID,
		f.FullNameKey != "" && u.FullNameKey != f.FullNameKey:
		return false
	}
	return true
}

// CreateUser implements store.UserStore.
func (t *tx) CreateUser(_ context.Context, u *store.User) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.realms[u.RealmID]; !ok {
		return fmt.Errorf("realm %d: %w", u.RealmID, store.ErrNotFound)
	}
	if _, ok := t.d.users[u.ID]; ok {
		return fmt.Errorf("user %d: %w", u.ID, store.ErrConflict)
	}
	if err := t.userUnique(u); err != nil {
		return err
	}
	if u.ID == 0 {
		u.ID = t.d.userMax + 1
	}
	useID(t, &t.d.userMax, u.ID)
	u.FullNameKey = store.FoldKey(u.FullName)
	t.putUser(u)
	index(t, t.d.usersByRealm, u.RealmID, u.ID)
	return nil
}

// UpdateUser implements store.UserStore.
func (t *tx) UpdateUser(_ context.Context, u *store.User) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.users[u.ID]
	if !ok {
		return fmt.Errorf("user %d: %w", u.ID, store.ErrNotFound)
	}
	if err := t.userUnique(u); err != nil {
		return err
	}
	del(t, t.d.userByEmail, realmKey{old.RealmID, store.FoldKey(old.Email)})
	if old.APIKeyHash != "" {
		del(t, t.d.userByAPIKey, old.APIKeyHash)
	}
	if old.RealmID != u.RealmID {
		unindex(t, t.d.usersByRealm, old.RealmID, u.ID)
		index(t, t.d.usersByRealm, u.RealmID, u.ID)
	}
	u.FullNameKey = store.FoldKey(u.FullName)
	t.putUser(u)
	return nil
}

// userUnique checks that no other user has u's e-mail in its realm or u's API
// key hash.
func (t *tx) userUnique(u *store.User) error {
	if other, ok := t.d.userByEmail[realmKey{u.RealmID, store.FoldKey(u.Email)}]; ok && other != u.ID {
		return fmt.Errorf("user e-mail %q in realm %d: %w", u.Email, u.RealmID, store.ErrConflict)
	}
	if other, ok := t.d.userByAPIKey[u.APIKeyHash]; ok && u.APIKeyHash != "" && other != u.ID {
		return fmt.Errorf("user API key: %w", store.ErrConflict)
	}
	return nil
}

// putUser stores a copy of u and its unique indexes.
func (t *tx) putUser(u *store.User) {
	put(t, t.d.users, u.ID, cloneUser(u))
	put(t, t.d.userByEmail, realmKey{u.RealmID, store.FoldKey(u.Email)}, u.ID)
	if u.APIKeyHash != "" {
		put(t, t.d.userByAPIKey, u.APIKeyHash, u.ID)
	}
}

// BotServices implements store.UserStore.
func (t *tx) BotServices(_ context.Context, bot store.UserID) ([]store.BotService, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.BotService{}
	for id := range t.d.servicesByBot[bot].all() {
		out = append(out, *t.d.services[id])
	}
	return out, nil
}

// CreateBotService implements store.UserStore.
func (t *tx) CreateBotService(_ context.Context, s *store.BotService) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.users[s.BotID]; !ok {
		return fmt.Errorf("bot %d: %w", s.BotID, store.ErrNotFound)
	}
	if _, ok := t.d.services[s.ID]; ok {
		return fmt.Errorf("bot service %d: %w", s.ID, store.ErrConflict)
	}
	if s.ID == 0 {
		s.ID = t.d.serviceMax + 1
	}
	useID(t, &t.d.serviceMax, s.ID)
	put(t, t.d.services, s.ID, cloneService(s))
	index(t, t.d.servicesByBot, s.BotID, s.ID)
	return nil
}
