package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// groupSettingKey identifies a stored group setting.
type groupSettingKey struct {
	kind string
	id   int64
	name string
}

// UpdateGroup implements store.GroupAdminStore.
func (t *tx) UpdateGroup(_ context.Context, g *store.Group) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.groups[g.ID]
	if !ok {
		return fmt.Errorf("group %d: %w", g.ID, store.ErrNotFound)
	}
	name := realmKey{old.RealmID, g.Name}
	if id, ok := t.d.groupByName[name]; ok && id != g.ID {
		return fmt.Errorf("group %q in realm %d: %w", g.Name, old.RealmID, store.ErrConflict)
	}
	c := cloneGroup(old)
	c.Name, c.Description, c.Deactivated = g.Name, g.Description, g.Deactivated
	del(t, t.d.groupByName, realmKey{old.RealmID, old.Name})
	put(t, t.d.groupByName, name, g.ID)
	put(t, t.d.groups, g.ID, c)
	return nil
}

// changeEdges returns list with add added and remove removed, sorted and
// without duplicates.
func changeEdges[T cmp.Ordered](list, add, remove []T) []T {
	out := append(slices.Clone(list), add...)
	out = slices.DeleteFunc(out, func(v T) bool { return slices.Contains(remove, v) })
	slices.Sort(out)
	return slices.Compact(out)
}

// ChangeGroupMembers implements store.GroupAdminStore.
func (t *tx) ChangeGroupMembers(_ context.Context, id store.GroupID, add, remove []store.UserID) error {
	if err := t.write(); err != nil {
		return err
	}
	g, ok := t.d.groups[id]
	if !ok {
		return fmt.Errorf("group %d: %w", id, store.ErrNotFound)
	}
	c := cloneGroup(g)
	c.Members = changeEdges(c.Members, add, remove)
	put(t, t.d.groups, id, c)
	return nil
}

// ChangeSubgroups implements store.GroupAdminStore.
func (t *tx) ChangeSubgroups(_ context.Context, id store.GroupID, add, remove []store.GroupID) error {
	if err := t.write(); err != nil {
		return err
	}
	g, ok := t.d.groups[id]
	if !ok {
		return fmt.Errorf("group %d: %w", id, store.ErrNotFound)
	}
	c := cloneGroup(g)
	c.Subgroups = changeEdges(c.Subgroups, add, remove)
	put(t, t.d.groups, id, c)
	return nil
}

// cloneGroupSetting returns a deep copy of s.
func cloneGroupSetting(s store.GroupSetting) store.GroupSetting {
	s.Value.DirectMembers = slices.Clone(s.Value.DirectMembers)
	s.Value.DirectSubgroups = slices.Clone(s.Value.DirectSubgroups)
	return s
}

// ChannelGroupSettings implements store.GroupAdminStore.
func (t *tx) ChannelGroupSettings(_ context.Context, stream store.StreamID) ([]store.GroupSetting, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.GroupSetting
	for _, s := range t.d.groupSettings {
		if s.Kind == store.SettingOfChannel && s.ObjectID == int64(stream) {
			out = append(out, cloneGroupSetting(s))
		}
	}
	slices.SortFunc(out, func(a, b store.GroupSetting) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// GroupSettings implements store.GroupAdminStore.
func (t *tx) GroupSettings(_ context.Context, realm store.RealmID) ([]store.GroupSetting, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.GroupSetting
	for _, s := range t.d.groupSettings {
		if s.RealmID == realm {
			out = append(out, cloneGroupSetting(s))
		}
	}
	slices.SortFunc(out, func(a, b store.GroupSetting) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ObjectID, b.ObjectID), cmp.Compare(a.Name, b.Name))
	})
	return out, nil
}

// PutGroupSetting implements store.GroupAdminStore.
func (t *tx) PutGroupSetting(_ context.Context, s store.GroupSetting) error {
	if err := t.write(); err != nil {
		return err
	}
	put(t, t.d.groupSettings, groupSettingKey{s.Kind, s.ObjectID, s.Name}, cloneGroupSetting(s))
	return nil
}
