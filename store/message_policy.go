package store

import "time"

// MessagePolicy is a realm's message editing, moving and deletion settings.
// The zero value is Zulip's default for every setting, so realms created
// without them behave as a new Zulip organization does.
type MessagePolicy struct {
	// ContentEditingDisabled turns off content editing for everyone (Zulip's
	// allow_message_editing false). Moving messages is not affected.
	ContentEditingDisabled bool
	// EditHistoryDisabled hides edit history (Zulip's allow_edit_history
	// false, message_edit_history_visibility_policy "none").
	EditHistoryDisabled bool
	// ContentEditLimit is message_content_edit_limit_seconds (default 600).
	ContentEditLimit TimeLimit
	// MoveWithinChannelLimit is move_messages_within_stream_limit_seconds
	// (default 604800, one week).
	MoveWithinChannelLimit TimeLimit
	// MoveBetweenChannelsLimit is move_messages_between_streams_limit_seconds
	// (default 604800).
	MoveBetweenChannelsLimit TimeLimit
	// DeleteOwnLimit is message_content_delete_limit_seconds (default 600).
	DeleteOwnLimit TimeLimit
	// MoveBetweenTopics is can_move_messages_between_topics_group (default
	// role:everyone).
	MoveBetweenTopics SystemGroup
	// MoveBetweenChannels is can_move_messages_between_channels_group
	// (default role:members).
	MoveBetweenChannels SystemGroup
	// ResolveTopics is can_resolve_topics_group (default role:everyone).
	ResolveTopics SystemGroup
	// DeleteAny is can_delete_any_message_group (default
	// role:administrators).
	DeleteAny SystemGroup
	// DeleteOwn is can_delete_own_message_group (default role:everyone).
	DeleteOwn SystemGroup
}

// The defaults of the MessagePolicy settings, as in Zulip.
const (
	DefaultContentEditLimit = 600 * time.Second
	DefaultMoveLimit        = 7 * 24 * time.Hour
	DefaultDeleteOwnLimit   = 600 * time.Second
)

// TimeLimit is a time-limit setting in whole seconds: zero means the
// setting's default, a negative value no limit (Zulip's null, "unlimited").
type TimeLimit int64

// Unlimited is the TimeLimit with no limit.
const Unlimited TimeLimit = -1

// Effective returns the limit with def standing for the zero value; ok is
// false when there is no limit.
func (l TimeLimit) Effective(def time.Duration) (d time.Duration, ok bool) {
	switch {
	case l == 0:
		return def, true
	case l < 0:
		return 0, false
	}
	return time.Duration(l) * time.Second, true
}

// Seconds returns the limit as Zulip's API sends it: seconds, or nil for no
// limit, with def standing for the zero value.
func (l TimeLimit) Seconds(def time.Duration) *int64 {
	d, ok := l.Effective(def)
	if !ok {
		return nil
	}
	s := int64(d / time.Second)
	return &s
}

// SystemGroup names one of Zulip's system groups, the role-based groups a
// permission setting can name ("role:everyone", "role:members", ...). The
// empty value means the setting's default.
type SystemGroup string

// Zulip's system groups that permission settings name.
const (
	GroupEveryone       SystemGroup = "role:everyone"
	GroupMembers        SystemGroup = "role:members"
	GroupFullMembers    SystemGroup = "role:fullmembers"
	GroupModerators     SystemGroup = "role:moderators"
	GroupAdministrators SystemGroup = "role:administrators"
	GroupOwners         SystemGroup = "role:owners"
	GroupNobody         SystemGroup = "role:nobody"
)

// Or returns g, or def when g is empty.
func (g SystemGroup) Or(def SystemGroup) SystemGroup {
	if g == "" {
		return def
	}
	return g
}

// Contains reports whether u belongs to the system group g (def standing
// for the empty value). Membership is by role: everyone includes guests,
// members (and full members: chatcore has no waiting period) every role
// from member up, and so on; nobody and unknown names contain no one.
func (g SystemGroup) Contains(u *User, def SystemGroup) bool {
	var worst Role
	switch g.Or(def) {
	case GroupEveryone:
		worst = RoleGuest
	case GroupMembers, GroupFullMembers:
		worst = RoleMember
	case GroupModerators:
		worst = RoleModerator
	case GroupAdministrators:
		worst = RoleAdministrator
	case GroupOwners:
		worst = RoleOwner
	default:
		return false
	}
	return u.Role <= worst
}
