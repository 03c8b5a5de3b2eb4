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

// User implements chatcore.UserStore.
func (t *tx) User(_ context.Context, id chatcore.UserID) (*chatcore.User, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	u, ok := t.d.users[id]
	if !ok {
		return nil, fmt.Errorf("user %d: %w", id, chatcore.ErrNotFound)
	}
	return cloneUser(u), nil
}

// UserByEmail implements chatcore.UserStore.
func (t *tx) UserByEmail(ctx context.Context, realm chatcore.RealmID, email string) (*chatcore.User, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.userByEmail[realmKey{realm, chatcore.FoldKey(email)}]
	if !ok {
		return nil, fmt.Errorf("user %q in realm %d: %w", email, realm, chatcore.ErrNotFound)
	}
	return t.User(ctx, id)
}

// UserByAPIKeyHash implements chatcore.UserStore.
func (t *tx) UserByAPIKeyHash(ctx context.Context, hash string) (*chatcore.User, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.userByAPIKey[hash]
	if !ok || hash == "" {
		return nil, fmt.Errorf("user by API key: %w", chatcore.ErrNotFound)
	}
	return t.User(ctx, id)
}

// Users implements chatcore.UserStore.
func (t *tx) Users(_ context.Context, f chatcore.UserFilter) ([]chatcore.User, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var ids []chatcore.UserID
	switch {
	case f.IDs != nil:
		ids = slices.Compact(slices.Sorted(slices.Values(f.IDs)))
	case f.RealmID != 0:
		ids = t.d.usersByRealm[f.RealmID].collect()
	default:
		ids = slices.Sorted(maps.Keys(t.d.users))
	}
	out := []chatcore.User{}
	for _, id := range ids {
		u, ok := t.d.users[id]
		if !ok || !matchUser(u, &f) {
			continue
		}
		out = append(out, *u)
	}
	return out, nil
}

func matchUser(u *chatcore.User, f *chatcore.UserFilter) bool {
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

// CreateUser implements chatcore.UserStore.
func (t *tx) CreateUser(_ context.Context, u *chatcore.User) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.realms[u.RealmID]; !ok {
		return fmt.Errorf("realm %d: %w", u.RealmID, chatcore.ErrNotFound)
	}
	if _, ok := t.d.users[u.ID]; ok {
		return fmt.Errorf("user %d: %w", u.ID, chatcore.ErrConflict)
	}
	if err := t.userUnique(u); err != nil {
		return err
	}
	if u.ID == 0 {
		u.ID = t.d.userMax + 1
	}
	useID(t, &t.d.userMax, u.ID)
	u.FullNameKey = chatcore.FoldKey(u.FullName)
	t.putUser(u)
	index(t, t.d.usersByRealm, u.RealmID, u.ID)
	return nil
}

// UpdateUser implements chatcore.UserStore.
func (t *tx) UpdateUser(_ context.Context, u *chatcore.User) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.users[u.ID]
	if !ok {
		return fmt.Errorf("user %d: %w", u.ID, chatcore.ErrNotFound)
	}
	if err := t.userUnique(u); err != nil {
		return err
	}
	del(t, t.d.userByEmail, realmKey{old.RealmID, chatcore.FoldKey(old.Email)})
	if old.APIKeyHash != "" {
		del(t, t.d.userByAPIKey, old.APIKeyHash)
	}
	if old.RealmID != u.RealmID {
		unindex(t, t.d.usersByRealm, old.RealmID, u.ID)
		index(t, t.d.usersByRealm, u.RealmID, u.ID)
	}
	u.FullNameKey = chatcore.FoldKey(u.FullName)
	t.putUser(u)
	return nil
}

// userUnique checks that no other user has u's e-mail in its realm or u's API
// key hash.
func (t *tx) userUnique(u *chatcore.User) error {
	if other, ok := t.d.userByEmail[realmKey{u.RealmID, chatcore.FoldKey(u.Email)}]; ok && other != u.ID {
		return fmt.Errorf("user e-mail %q in realm %d: %w", u.Email, u.RealmID, chatcore.ErrConflict)
	}
	if other, ok := t.d.userByAPIKey[u.APIKeyHash]; ok && u.APIKeyHash != "" && other != u.ID {
		return fmt.Errorf("user API key: %w", chatcore.ErrConflict)
	}
	return nil
}

// putUser stores a copy of u and its unique indexes.
func (t *tx) putUser(u *chatcore.User) {
	put(t, t.d.users, u.ID, cloneUser(u))
	put(t, t.d.userByEmail, realmKey{u.RealmID, chatcore.FoldKey(u.Email)}, u.ID)
	if u.APIKeyHash != "" {
		put(t, t.d.userByAPIKey, u.APIKeyHash, u.ID)
	}
}

// BotServices implements chatcore.UserStore.
func (t *tx) BotServices(_ context.Context, bot chatcore.UserID) ([]chatcore.BotService, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []chatcore.BotService{}
	for id := range t.d.servicesByBot[bot].all() {
		out = append(out, *t.d.services[id])
	}
	return out, nil
}

// CreateBotService implements chatcore.UserStore.
func (t *tx) CreateBotService(_ context.Context, s *chatcore.BotService) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.users[s.BotID]; !ok {
		return fmt.Errorf("bot %d: %w", s.BotID, chatcore.ErrNotFound)
	}
	if _, ok := t.d.services[s.ID]; ok {
		return fmt.Errorf("bot service %d: %w", s.ID, chatcore.ErrConflict)
	}
	if s.ID == 0 {
		s.ID = t.d.serviceMax + 1
	}
	useID(t, &t.d.serviceMax, s.ID)
	put(t, t.d.services, s.ID, cloneService(s))
	index(t, t.d.servicesByBot, s.BotID, s.ID)
	return nil
}

// UpdateSettingBulk implements chatcore.SettingsStore.
func (t *tx) UpdateSettingBulk(_ context.Context, b chatcore.BulkSettingUpdate) ([]chatcore.UserID, error) {
	if err := t.write(); err != nil {
		return nil, err
	}
	var probe chatcore.Settings
	if err := probe.Set(b.Setting, b.Value); err != nil {
		return nil, err
	}
	want, _ := probe.Value(b.Setting)

	targets := t.groupMembers(b.GroupIDs, b.RealmID)
	for _, id := range b.UserIDs {
		if u, ok := t.d.users[id]; ok && u.RealmID == b.RealmID && !u.IsBot {
			targets = append(targets, id)
		}
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)

	changed := []chatcore.UserID{}
	for _, id := range targets {
		u := t.d.users[id]
		if have, _ := u.Settings.Value(b.Setting); have == want {
			continue
		}
		if b.SkipIfEdited {
			if _, edited := slices.BinarySearch(t.d.edited[id], b.Setting); edited {
				continue
			}
		}
		c := cloneUser(u)
		_ = c.Settings.Set(b.Setting, want) // cannot fail: probe accepted it
		put(t, t.d.users, id, c)
		changed = append(changed, id)
	}
	return changed, nil
}

// RecordSettingEdits implements chatcore.SettingsStore.
func (t *tx) RecordSettingEdits(_ context.Context, user chatcore.UserID, settings []string) error {
	if err := t.write(); err != nil {
		return err
	}
	if len(settings) == 0 {
		return nil
	}
	names := slices.Concat(t.d.edited[user], settings)
	slices.Sort(names)
	put(t, t.d.edited, user, slices.Compact(names))
	return nil
}

// EditedSettings implements chatcore.SettingsStore.
func (t *tx) EditedSettings(_ context.Context, user chatcore.UserID) ([]string, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	return append([]string{}, t.d.edited[user]...), nil
}

// Group implements chatcore.GroupStore.
func (t *tx) Group(_ context.Context, id chatcore.GroupID) (*chatcore.Group, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	g, ok := t.d.groups[id]
	if !ok {
		return nil, fmt.Errorf("group %d: %w", id, chatcore.ErrNotFound)
	}
	return cloneGroup(g), nil
}

// Groups implements chatcore.GroupStore.
func (t *tx) Groups(_ context.Context, realm chatcore.RealmID) ([]chatcore.Group, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []chatcore.Group{}
	for id := range t.d.groupsByRealm[realm].all() {
		out = append(out, *cloneGroup(t.d.groups[id]))
	}
	return out, nil
}

// CreateGroup implements chatcore.GroupStore.
func (t *tx) CreateGroup(_ context.Context, g *chatcore.Group) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.groups[g.ID]; ok {
		return fmt.Errorf("group %d: %w", g.ID, chatcore.ErrConflict)
	}
	name := realmKey{g.RealmID, g.Name}
	if _, ok := t.d.groupByName[name]; ok {
		return fmt.Errorf("group %q in realm %d: %w", g.Name, g.RealmID, chatcore.ErrConflict)
	}
	if g.ID == 0 {
		g.ID = t.d.groupMax + 1
	}
	useID(t, &t.d.groupMax, g.ID)
	put(t, t.d.groups, g.ID, cloneGroup(g))
	put(t, t.d.groupByName, name, g.ID)
	index(t, t.d.groupsByRealm, g.RealmID, g.ID)
	return nil
}

// GroupMembers implements chatcore.GroupStore.
func (t *tx) GroupMembers(_ context.Context, ids []chatcore.GroupID) ([]chatcore.UserID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := t.groupMembers(ids, 0)
	slices.Sort(out)
	return append([]chatcore.UserID{}, slices.Compact(out)...), nil
}

// groupMembers returns the active human members of the groups and their
// subgroups, unsorted and possibly with duplicates. A non-zero realm ignores
// groups and users of other realms.
func (t *tx) groupMembers(ids []chatcore.GroupID, realm chatcore.RealmID) []chatcore.UserID {
	var out []chatcore.UserID
	seen := make(map[chatcore.GroupID]bool)
	queue := slices.Clone(ids)
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		g, ok := t.d.groups[id]
		if seen[id] || !ok || realm != 0 && g.RealmID != realm {
			continue
		}
		seen[id] = true
		for _, m := range g.Members {
			u, ok := t.d.users[m]
			if ok && u.IsActive && !u.IsBot && (realm == 0 || u.RealmID == realm) {
				out = append(out, m)
			}
		}
		queue = append(queue, g.Subgroups...)
	}
	return out
}
