package groups

import (
	"slices"

	"github.com/chatcore/chatcore"
)

// policyGroups are the realm's message permissions kept in its
// MessagePolicy as system groups, with their wire names and defaults.
func policyGroups(p chatcore.MessagePolicy) map[string]chatcore.SystemGroup {
	return map[string]chatcore.SystemGroup{
		"can_move_messages_between_topics_group":   p.MoveBetweenTopics.Or(chatcore.GroupEveryone),
		"can_move_messages_between_channels_group": p.MoveBetweenChannels.Or(chatcore.GroupMembers),
		"can_resolve_topics_group":                 p.ResolveTopics.Or(chatcore.GroupEveryone),
		"can_delete_any_message_group":             p.DeleteAny.Or(chatcore.GroupAdministrators),
		"can_delete_own_message_group":             p.DeleteOwn.Or(chatcore.GroupEveryone),
	}
}

// policySettings are the rules of the message permissions of
// [policyGroups] (their defaults are there).
var policySettings = []SettingDef{
	{Name: "can_delete_any_message_group", NoEveryone: true},
	{Name: "can_delete_own_message_group"},
	{Name: "can_move_messages_between_channels_group", NoEveryone: true},
	{Name: "can_move_messages_between_topics_group"},
	{Name: "can_resolve_topics_group"},
}

// PolicySetting returns the rules of a message permission the realm keeps
// in its MessagePolicy (can_delete_any_message_group and the like), for
// [CheckValue].
func PolicySetting(name string) (SettingDef, bool) { return settingDef(policySettings, name) }

// RealmSettingValues returns the group-based settings of realm by wire
// name (without the realm_ prefix), as POST /register sends them: the
// stored value or the default system group's id, from p, the realm's
// permissions. A realm without system groups leaves out the settings whose
// value would be one.
func RealmSettingValues(p *chatcore.Permissions, realm *chatcore.Realm) map[string]Value {
	out := map[string]Value{}
	for _, d := range RealmSettings {
		if v, ok := p.Stored(chatcore.SettingOfRealm, int64(realm.ID), d.Name); ok {
			out[d.Name] = Value{v}
		} else if id := p.SystemGroupID(d.Default); id != 0 {
			out[d.Name] = Value{chatcore.GroupSettingValue{GroupID: id}}
		}
	}
	for name, g := range policyGroups(realm.Messages) {
		if id := p.SystemGroupID(g); id != 0 {
			out[name] = Value{chatcore.GroupSettingValue{GroupID: id}}
		}
	}
	return out
}

// RealmGroupSettingNames are the names of the settings
// [RealmSettingValues] gives for a realm with its system groups, sorted.
func RealmGroupSettingNames() []string {
	var out []string
	for _, d := range RealmSettings {
		out = append(out, d.Name)
	}
	for name := range policyGroups(chatcore.MessagePolicy{}) {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
