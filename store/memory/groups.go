package memory

import (
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// Group implements store.GroupStore.
func (t *tx) Group(_ context.Context, id store.GroupID) (*store.Group, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	g, ok := t.d.groups[id]
	if !ok {
		return nil, fmt.Errorf("group %d: %w", id, store.ErrNotFound)
	}
	return cloneGroup(g), nil
}

// Groups implements store.GroupStore.
func (t *tx) Groups(_ context.Context, realm store.RealmID) ([]store.Group, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.Group{}
	for id := range t.d.groupsByRealm[realm].all() {
		out = append(out, *cloneGroup(t.d.groups[id]))
	}
	return out, nil
}

// CreateGroup implements store.GroupStore.
func (t *tx) CreateGroup(_ context.Context, g *store.Group) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.groups[g.ID]; ok {
		return fmt.Errorf("group %d: %w", g.ID, store.ErrConflict)
	}
	name := realmKey{g.RealmID, g.Name}
	if _, ok := t.d.groupByName[name]; ok {
		return fmt.Errorf("group %q in realm %d: %w", g.Name, g.RealmID, store.ErrConflict)
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

// GroupMembers implements store.GroupStore.
func (t *tx) GroupMembers(_ context.Context, ids []store.GroupID) ([]store.UserID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := t.groupMembers(ids, 0)
	slices.Sort(out)
	return append([]store.UserID{}, slices.Compact(out)...), nil
}

// groupMembers returns the active human members of the groups and their
// subgroups, unsorted and possibly with duplicates. A non-zero realm ignores
// groups and users of other realms.
func (t *tx) groupMembers(ids []store.GroupID, realm store.RealmID) []store.UserID {
	var out []store.UserID
	seen := make(map[store.GroupID]bool)
	queue := slices.Clone(ids)
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		g, ok := t.d.groups[id]
		if seen[id] || !ok || realm != 0 && g.RealmID != realm {
			continue
		}
		seen[id] = true
		if g.IsSystemGroup {
			for uid := range t.d.usersByRealm[g.RealmID].all() {
				u := t.d.users[uid]
				if u.IsActive && !u.IsBot && u.Role <= g.SystemRole {
					out = append(out, uid)
				}
			}
		}
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
