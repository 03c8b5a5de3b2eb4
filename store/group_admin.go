package store

import "context"

// GroupSettingValue is the value of a group-based permission setting, as
// Zulip stores it: a named group (GroupID not zero) or an anonymous group of
// direct members and subgroups (GroupID zero; both lists empty is nobody).
type GroupSettingValue struct {
	GroupID         GroupID   `json:"group,omitempty"`
	DirectMembers   []UserID  `json:"direct_members,omitempty"`
	DirectSubgroups []GroupID `json:"direct_subgroups,omitempty"`
}

// The kinds of objects a group setting belongs to.
const (
	SettingOfRealm   = "realm"
	SettingOfChannel = "stream"
	SettingOfGroup   = "group"
)

// GroupSetting is one group-based permission setting of a realm, a channel
// or a user group (Kind one of SettingOfRealm, SettingOfChannel,
// SettingOfGroup; ObjectID the realm, channel or group id). A setting
// without a stored row has its default.
type GroupSetting struct {
	RealmID  RealmID
	Kind     string
	ObjectID int64
	// Name is the wire name, e.g. "can_send_message_group".
	Name  string
	Value GroupSettingValue
}

// GroupAdminStore changes user groups and stores group-based settings.
type GroupAdminStore interface {
	// UpdateGroup overwrites the name, description and Deactivated of the
	// stored group g.ID (members, subgroups, realm, system fields, creator
	// and date are kept), or returns ErrNotFound. A name another group of
	// the realm has gives ErrConflict.
	UpdateGroup(ctx context.Context, g *Group) error
	// ChangeGroupMembers adds and removes direct members of the group in
	// one write each; adding a member already there or removing one who is
	// not is a no-op. An unknown group gives ErrNotFound.
	ChangeGroupMembers(ctx context.Context, id GroupID, add, remove []UserID) error
	// ChangeSubgroups adds and removes direct subgroups of the group, as
	// ChangeGroupMembers does members.
	ChangeSubgroups(ctx context.Context, id GroupID, add, remove []GroupID) error
	// GroupSettings returns the stored group settings of a realm, ordered by
	// kind, object id and name.
	GroupSettings(ctx context.Context, realm RealmID) ([]GroupSetting, error)
	// ChannelGroupSettings returns the stored group settings of the channel
	// (kind SettingOfChannel, object id stream), ordered by name.
	ChannelGroupSettings(ctx context.Context, stream StreamID) ([]GroupSetting, error)
	// PutGroupSetting inserts or replaces the setting (keyed by kind, object
	// id and name).
	PutGroupSetting(ctx context.Context, s GroupSetting) error
}
