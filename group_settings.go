package chatcore

import (
	"context"
	"fmt"
	"time"

	"github.com/chatcore/chatcore/store"
)

// Group-based permissions: Zulip's system groups and the settings whose
// value is a group ([GroupSettingValue]), read once per transaction into a
// [Permissions] that answers who may do what.

type (
	// GroupSettingValue is [store.GroupSettingValue].
	GroupSettingValue = store.GroupSettingValue
	// GroupSetting is [store.GroupSetting].
	GroupSetting = store.GroupSetting
	// GroupAdminStore is [store.GroupAdminStore].
	GroupAdminStore = store.GroupAdminStore
)

// The kinds of objects a group setting belongs to.
const (
	SettingOfRealm   = store.SettingOfRealm
	SettingOfChannel = store.SettingOfChannel
	SettingOfGroup   = store.SettingOfGroup
)

// GroupInternet is Zulip's role:internet system group: everyone, spectators
// included (chatcore has no spectators, so it holds what role:everyone holds).
const GroupInternet SystemGroup = "role:internet"

// SystemGroupDef describes one of Zulip's system groups.
type SystemGroupDef struct {
	Name        SystemGroup
	Description string
	// Role is the largest role number of its members; zero for role:nobody.
	Role Role
	// DirectRole is the role whose users are its direct members (zero: none).
	DirectRole Role
	// Subgroup is its direct subgroup ("" for none).
	Subgroup SystemGroup
}

// SystemGroupDefs are Zulip's system groups in the order a realm creates
// them: each but the first and role:nobody has the one before as its
// direct subgroup.
var SystemGroupDefs = []SystemGroupDef{
	{GroupOwners, "Owners of this organization", RoleOwner, RoleOwner, ""},
	{GroupAdministrators, "Administrators of this organization, including owners", RoleAdministrator, RoleAdministrator, GroupOwners},
	{GroupModerators, "Moderators of this organization, including administrators", RoleModerator, RoleModerator, GroupAdministrators},
	{GroupFullMembers, "Members of this organization, not including new accounts and guests", RoleMember, RoleMember, GroupModerators},
	{GroupMembers, "Members of this organization, not including guests", RoleMember, RoleMember, GroupFullMembers},
	{GroupEveryone, "Everyone in this organization, including guests", RoleGuest, RoleGuest, GroupMembers},
	{GroupInternet, "Everyone on the Internet", RoleGuest, 0, GroupEveryone},
	{GroupNobody, "Nobody", 0, 0, ""},
}

// SystemGroupDefOf returns the definition of the system group name.
func SystemGroupDefOf(name SystemGroup) (SystemGroupDef, bool) {
	for _, d := range SystemGroupDefs {
		if d.Name == name {
			return d, true
		}
	}
	return SystemGroupDef{}, false
}

// EnsureSystemGroups creates the system groups realm lacks (a realm created
// by an embedder or a fixture) and returns the ids of all of them by name.
// A user group that already has a system group's name and is not a system
// group is an error.
func EnsureSystemGroups(ctx context.Context, tx Tx, realm RealmID, now time.Time) (map[SystemGroup]GroupID, error) {
	groups, err := tx.Groups(ctx, realm)
	if err != nil {
		return nil, err
	}
	ids := map[SystemGroup]GroupID{}
	for _, g := range groups {
		if _, ok := SystemGroupDefOf(SystemGroup(g.Name)); ok {
			if !g.IsSystemGroup {
				return nil, fmt.Errorf("chatcore: realm %d: group %d has the system group name %q", realm, g.ID, g.Name)
			}
			ids[SystemGroup(g.Name)] = g.ID
		}
	}
	for _, d := range SystemGroupDefs {
		if _, ok := ids[d.Name]; ok {
			continue
		}
		g := &Group{RealmID: realm, Name: string(d.Name), Description: d.Description, IsSystemGroup: true,
			SystemRole: d.Role, DateCreated: now}
		if err := tx.CreateGroup(ctx, g); err != nil {
			return nil, err
		}
		ids[d.Name] = g.ID
	}
	return ids, nil
}

// settingKey identifies a group setting of a realm.
type settingKey struct {
	kind string
	id   int64
	name string
}

// Permissions answers group-based permission questions for one realm as
// one transaction saw it: its groups and its stored group settings. Build
// it with [LoadPermissions]; it is not safe for concurrent use.
type Permissions struct {
	realm    RealmID
	groups   map[GroupID]*Group
	order    []GroupID
	byName   map[SystemGroup]GroupID
	settings map[settingKey]GroupSettingValue
}

// LoadPermissions reads the groups and group settings of realm (two reads).
func LoadPermissions(ctx context.Context, tx Tx, realm RealmID) (*Permissions, error) {
	groups, err := tx.Groups(ctx, realm)
	if err != nil {
		return nil, err
	}
	settings, err := tx.GroupSettings(ctx, realm)
	if err != nil {
		return nil, err
	}
	return newPermissions(realm, groups, settings), nil
}

// loadPermissionsWith reads the groups of realm and returns its
// [Permissions] with settings, the realm's group settings read already.
func loadPermissionsWith(ctx context.Context, tx Tx, realm RealmID, settings []GroupSetting) (*Permissions, error) {
	groups, err := tx.Groups(ctx, realm)
	if err != nil {
		return nil, err
	}
	return newPermissions(realm, groups, settings), nil
}

// newPermissions indexes the groups and group settings of realm.
func newPermissions(realm RealmID, groups []Group, settings []GroupSetting) *Permissions {
	p := &Permissions{realm: realm, groups: make(map[GroupID]*Group, len(groups)), byName: map[SystemGroup]GroupID{},
		settings: make(map[settingKey]GroupSettingValue, len(settings))}
	for i := range groups {
		g := &groups[i]
		p.groups[g.ID] = g
		p.order = append(p.order, g.ID)
		if g.IsSystemGroup {
			p.byName[SystemGroup(g.Name)] = g.ID
		}
	}
	for _, s := range settings {
		p.settings[settingKey{s.Kind, s.ObjectID, s.Name}] = s.Value
	}
	return p
}

// Realm returns the realm p describes.
func (p *Permissions) Realm() RealmID { return p.realm }

// Group returns the group id of the realm, or nil.
func (p *Permissions) Group(id GroupID) *Group { return p.groups[id] }

// Groups returns the realm's groups ordered by id.
func (p *Permissions) Groups() []*Group {
	out := make([]*Group, 0, len(p.order))
	for _, id := range p.order {
		out = append(out, p.groups[id])
	}
	return out
}

// SystemGroupID returns the id of the realm's system group name, or zero
// when the realm lacks it.
func (p *Permissions) SystemGroupID(name SystemGroup) GroupID { return p.byName[name] }

// Value returns the value of a setting: the stored one, else the system
// group def (as its id when the realm has it).
func (p *Permissions) Value(kind string, obj int64, name string, def SystemGroup) GroupSettingValue {
	if v, ok := p.settings[settingKey{kind, obj, name}]; ok {
		return v
	}
	return GroupSettingValue{GroupID: p.byName[def]}
}

// Stored reports the stored value of a setting, if any.
func (p *Permissions) Stored(kind string, obj int64, name string) (GroupSettingValue, bool) {
	v, ok := p.settings[settingKey{kind, obj, name}]
	return v, ok
}

// Set records v as the value of a setting in p (after the caller stored it).
func (p *Permissions) Set(kind string, obj int64, name string, v GroupSettingValue) {
	p.settings[settingKey{kind, obj, name}] = v
}

// Allows reports whether u is in the value of a setting, def standing for
// the value when none is stored. A realm without system groups answers
// defaults by role ([SystemGroup.Contains]).
func (p *Permissions) Allows(u *User, kind string, obj int64, name string, def SystemGroup) bool {
	if v, ok := p.settings[settingKey{kind, obj, name}]; ok {
		return p.InValue(u, v)
	}
	if id := p.byName[def]; id != 0 {
		return p.InGroup(u, id)
	}
	return def.Contains(u, def)
}

// InValue reports whether u is in the group-setting value v.
func (p *Permissions) InValue(u *User, v GroupSettingValue) bool {
	if v.GroupID != 0 {
		return p.InGroup(u, v.GroupID)
	}
	for _, id := range v.DirectMembers {
		if id == u.ID {
			return true
		}
	}
	seen := map[GroupID]bool{}
	for _, g := range v.DirectSubgroups {
		if p.inGroup(u, g, seen) {
			return true
		}
	}
	return false
}

// InGroup reports whether u (active, of p's realm) is a member of group id,
// recursively through subgroups; a system group holds its realm's users
// by role, bots included, as in Zulip.
func (p *Permissions) InGroup(u *User, id GroupID) bool {
	return p.inGroup(u, id, map[GroupID]bool{})
}

func (p *Permissions) inGroup(u *User, id GroupID, seen map[GroupID]bool) bool {
	g := p.groups[id]
	if g == nil || seen[id] || !u.IsActive || u.RealmID != p.realm {
		return false
	}
	seen[id] = true
	if g.IsSystemGroup {
		return g.SystemRole != 0 && u.Role <= g.SystemRole
	}
	for _, m := range g.Members {
		if m == u.ID {
			return true
		}
	}
	for _, sub := range g.Subgroups {
		if p.inGroup(u, sub, seen) {
			return true
		}
	}
	return false
}

// Contains reports whether group id has sub among its subgroups,
// recursively (a group contains itself).
func (p *Permissions) Contains(id, sub GroupID) bool {
	seen := map[GroupID]bool{}
	var walk func(GroupID) bool
	walk = func(g GroupID) bool {
		if g == sub {
			return true
		}
		if seen[g] {
			return false
		}
		seen[g] = true
		grp := p.groups[g]
		if grp == nil {
			return false
		}
		for _, s := range grp.Subgroups {
			if walk(s) {
				return true
			}
		}
		if grp.IsSystemGroup {
			if d, ok := SystemGroupDefOf(SystemGroup(grp.Name)); ok && d.Subgroup != "" {
				return walk(p.byName[d.Subgroup])
			}
		}
		return false
	}
	return walk(id)
}

// UsesGroup reports whether a stored group setting names group id (the
// group's own settings aside).
func (p *Permissions) UsesGroup(id GroupID) bool {
	for k, v := range p.settings {
		if k.kind == SettingOfGroup && k.id == int64(id) {
			continue
		}
		if v.GroupID == id {
			return true
		}
		for _, s := range v.DirectSubgroups {
			if s == id {
				return true
			}
		}
	}
	return false
}

// channelGuestsNever are the channel settings Zulip never lets a guest hold
// (their allow_everyone_group is false).
var channelGuestsNever = map[string]bool{
	"can_add_subscribers_group": true, "can_administer_channel_group": true,
	"can_remove_subscribers_group": true, "can_subscribe_group": true,
}

// InChannelSetting reports whether u is in the group setting name of
// channel st: its stored value, else its default, def, except that
// can_administer_channel_group and can_add_subscribers_group default to
// the channel's creator (Zulip's "channel_creator"; nobody for a channel
// without one). Guests are never in can_add_subscribers_group,
// can_administer_channel_group, can_remove_subscribers_group or
// can_subscribe_group.
func (p *Permissions) InChannelSetting(u *User, st *Stream, name string, def SystemGroup) bool {
	if channelGuestsNever[name] && u.Role == RoleGuest {
		return false
	}
	if v, ok := p.settings[settingKey{SettingOfChannel, int64(st.ID), name}]; ok {
		return p.InValue(u, v)
	}
	switch name {
	case "can_administer_channel_group", "can_add_subscribers_group":
		return st.CreatorID != 0 && st.CreatorID == u.ID
	}
	return p.Allows(u, SettingOfChannel, int64(st.ID), name, def)
}
