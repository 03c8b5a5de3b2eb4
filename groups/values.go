package groups

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// Value is a group-setting value on the wire: a group id, or an anonymous
// group {"direct_members": [...], "direct_subgroups": [...]}.
type Value struct {
	chatcore.GroupSettingValue
}

// MarshalJSON writes the id form for a named group, the object form
// otherwise.
func (v Value) MarshalJSON() ([]byte, error) {
	if v.GroupID != 0 {
		return json.Marshal(v.GroupID)
	}
	return json.Marshal(struct {
		DirectMembers   []chatcore.UserID  `json:"direct_members"`
		DirectSubgroups []chatcore.GroupID `json:"direct_subgroups"`
	}{slicex.OrEmpty(v.DirectMembers), slicex.OrEmpty(v.DirectSubgroups)})
}

// UnmarshalJSON reads either form; an object with no members and one
// subgroup becomes that subgroup's id, as Zulip canonicalises it.
func (v *Value) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] != '{' {
		var id chatcore.GroupID
		if err := json.Unmarshal(b, &id); err != nil {
			return err
		}
		if id <= 0 {
			return fmt.Errorf("invalid group id %d", id)
		}
		*v = Value{chatcore.GroupSettingValue{GroupID: id}}
		return nil
	}
	var o struct {
		DirectMembers   *[]chatcore.UserID  `json:"direct_members"`
		DirectSubgroups *[]chatcore.GroupID `json:"direct_subgroups"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return err
	}
	if o.DirectMembers == nil || o.DirectSubgroups == nil {
		return fmt.Errorf("direct_members and direct_subgroups are required")
	}
	members, subs := slicex.SortedSet(slices.Clone(*o.DirectMembers)), slicex.SortedSet(slices.Clone(*o.DirectSubgroups))
	if len(members) == 0 && len(subs) == 1 {
		*v = Value{chatcore.GroupSettingValue{GroupID: subs[0]}}
		return nil
	}
	*v = Value{chatcore.GroupSettingValue{DirectMembers: members, DirectSubgroups: subs}}
	return nil
}

// Change is a group-setting change as PATCH requests carry it: the new
// value and, optionally, the value the client believes is current.
type Change struct {
	New *Value `json:"new"`
	Old *Value `json:"old"`
}

// maxValueItems bounds the members and subgroups of one anonymous value.
const maxValueItems = 1000

// SettingDef is a group-based setting with its default system group.
type SettingDef struct {
	Name    string
	Default chatcore.SystemGroup
	// Creator marks settings whose default for a new group is its creator
	// (Zulip's "group_creator").
	Creator bool
	// AllowInternet lets the setting be role:internet.
	AllowInternet bool
	// NoEveryone is Zulip's allow_everyone_group=False: the setting cannot
	// be role:everyone, and guests are never in it whatever its value.
	NoEveryone bool
	// NoNobody is Zulip's allow_nobody_group=False: it cannot be
	// role:nobody.
	NoNobody bool
	// SystemOnly is Zulip's require_system_group: its value is a system
	// group, and one of Allowed when that is not empty
	// (allowed_system_groups).
	SystemOnly bool
	Allowed    []chatcore.SystemGroup
}

// GroupSettings are the group-based settings of a user group.
var GroupSettings = []SettingDef{
	{Name: "can_add_members_group", Default: chatcore.GroupNobody, Creator: true},
	{Name: "can_join_group", Default: chatcore.GroupNobody},
	{Name: "can_leave_group", Default: chatcore.GroupEveryone},
	{Name: "can_manage_group", Default: chatcore.GroupNobody, Creator: true},
	{Name: "can_mention_group", Default: chatcore.GroupEveryone},
	{Name: "can_remove_members_group", Default: chatcore.GroupNobody},
}

// RealmSettings are the realm's group-based settings chatcore keeps as
// group-setting values, with Zulip's defaults.
var RealmSettings = []SettingDef{
	{Name: "can_add_custom_emoji_group", Default: chatcore.GroupMembers, NoEveryone: true},
	{Name: "can_add_subscribers_group", Default: chatcore.GroupMembers, NoEveryone: true},
	{Name: "can_create_bots_group", Default: chatcore.GroupMembers, NoEveryone: true},
	{Name: "can_create_groups", Default: chatcore.GroupMembers, NoEveryone: true},
	{Name: "can_create_private_channel_group", Default: chatcore.GroupMembers, NoEveryone: true},
	{Name: "can_create_public_channel_group", Default: chatcore.GroupMembers, NoEveryone: true},
	{Name: "can_create_web_public_channel_group", Default: chatcore.GroupOwners, NoEveryone: true, SystemOnly: true,
		Allowed: []chatcore.SystemGroup{chatcore.GroupModerators, chatcore.GroupAdministrators, chatcore.GroupOwners, chatcore.GroupNobody}},
	{Name: "can_create_write_only_bots_group", Default: chatcore.GroupMembers, NoEveryone: true},
	{Name: "can_invite_users_group", Default: chatcore.GroupMembers, NoEveryone: true},
	{Name: "can_manage_all_groups", Default: chatcore.GroupOwners, NoEveryone: true, NoNobody: true},
	{Name: "can_manage_billing_group", Default: chatcore.GroupAdministrators, NoEveryone: true, NoNobody: true},
	{Name: "can_mention_many_users_group", Default: chatcore.GroupAdministrators},
	{Name: "can_set_delete_message_policy_group", Default: chatcore.GroupModerators, NoEveryone: true},
	{Name: "can_set_topics_policy_group", Default: chatcore.GroupMembers},
	{Name: "can_summarize_topics_group", Default: chatcore.GroupEveryone},
	{Name: "create_multiuse_invite_group", Default: chatcore.GroupAdministrators, NoEveryone: true},
	{Name: "direct_message_initiator_group", Default: chatcore.GroupEveryone},
	{Name: "direct_message_permission_group", Default: chatcore.GroupEveryone},
}

// ChannelSettings are a channel's group-based settings with Zulip's
// defaults (can_administer_channel_group and can_add_subscribers_group
// default to the channel's creator, set when it is created; chatcore's
// channels loaded from fixtures have none).
var ChannelSettings = []SettingDef{
	{Name: "can_add_subscribers_group", Default: chatcore.GroupNobody},
	{Name: "can_administer_channel_group", Default: chatcore.GroupNobody},
	{Name: "can_delete_any_message_group", Default: chatcore.GroupNobody},
	{Name: "can_delete_own_message_group", Default: chatcore.GroupNobody},
	{Name: "can_move_messages_out_of_channel_group", Default: chatcore.GroupNobody},
	{Name: "can_move_messages_within_channel_group", Default: chatcore.GroupNobody},
	{Name: "can_remove_subscribers_group", Default: chatcore.GroupAdministrators},
	{Name: "can_resolve_topics_group", Default: chatcore.GroupNobody},
	{Name: "can_send_message_group", Default: chatcore.GroupEveryone},
	{Name: "can_subscribe_group", Default: chatcore.GroupNobody},
}

// settingDef returns the definition of name among defs.
func settingDef(defs []SettingDef, name string) (SettingDef, bool) {
	for _, d := range defs {
		if d.Name == name {
			return d, true
		}
	}
	return SettingDef{}, false
}

// CheckValue validates v for setting def of p's realm, as the user group
// routes do (see checkValue); active holds the realm's active users.
func CheckValue(p *chatcore.Permissions, active map[chatcore.UserID]bool, def SettingDef, v chatcore.GroupSettingValue) error {
	return checkValue(p, active, def, v)
}

// SameValue reports whether two group-setting values are equal.
func SameValue(a, b chatcore.GroupSettingValue) bool { return sameValue(a, b) }

// checkValue validates v for setting def of p's realm: its groups must be
// groups of the realm that are not deactivated, its members active users
// of the realm (active says which), role:internet only where allowed.
func checkValue(p *chatcore.Permissions, active map[chatcore.UserID]bool, def SettingDef, v chatcore.GroupSettingValue) error {
	if len(v.DirectMembers)+len(v.DirectSubgroups) > maxValueItems {
		return chatcore.BadRequestf("Too many members or subgroups for '%s'.", def.Name)
	}
	ids := v.DirectSubgroups
	if v.GroupID != 0 {
		ids = []chatcore.GroupID{v.GroupID}
	}
	for _, id := range ids {
		g := p.Group(id)
		if g == nil || g.Deactivated {
			return chatcore.BadRequestf("Invalid user group ID: %d", id)
		}
		if g.Name == string(chatcore.GroupInternet) && !def.AllowInternet {
			return chatcore.BadRequestf("'%s' setting cannot be set to 'role:internet' group.", def.Name)
		}
	}
	if v.GroupID == 0 {
		if def.SystemOnly {
			return errSystemGroupRequired(def.Name)
		}
	} else if err := checkNamedValue(def, p.Group(v.GroupID)); err != nil {
		return err
	}
	for _, id := range v.DirectMembers {
		if !active[id] {
			return chatcore.BadRequestf("Invalid user ID: %d", id)
		}
	}
	return nil
}

// errSystemGroupRequired is Zulip's SystemGroupRequiredError.
func errSystemGroupRequired(name string) *chatcore.Error {
	return chatcore.BadRequestf("'%s' must be a system user group.", name)
}

// checkNamedValue applies the rules of def on the named group g, its
// value, as Zulip's check_setting_configuration_for_system_groups does
// after the role:internet rule.
func checkNamedValue(def SettingDef, g *chatcore.Group) error {
	if def.SystemOnly && !g.IsSystemGroup {
		return errSystemGroupRequired(def.Name)
	}
	if !g.IsSystemGroup {
		return nil
	}
	name := chatcore.SystemGroup(g.Name)
	switch {
	case def.NoNobody && name == chatcore.GroupNobody:
		return chatcore.BadRequestf("'%s' setting cannot be set to 'role:nobody' group.", def.Name)
	case def.NoEveryone && name == chatcore.GroupEveryone:
		return chatcore.BadRequestf("'%s' setting cannot be set to 'role:everyone' group.", def.Name)
	case len(def.Allowed) > 0 && !slices.Contains(def.Allowed, name):
		return chatcore.BadRequestf("'%s' setting cannot be set to '%s' group.", def.Name, g.Name)
	}
	return nil
}

// valueView returns the wire form of a setting's value in p.
func valueView(p *chatcore.Permissions, kind string, obj int64, def SettingDef) Value {
	return Value{p.Value(kind, obj, def.Name, def.Default)}
}

// sameValue reports whether two values are equal.
func sameValue(a, b chatcore.GroupSettingValue) bool {
	return a.GroupID == b.GroupID && slices.Equal(slicex.OrEmpty(a.DirectMembers), slicex.OrEmpty(b.DirectMembers)) &&
		slices.Equal(slicex.OrEmpty(a.DirectSubgroups), slicex.OrEmpty(b.DirectSubgroups))
}
