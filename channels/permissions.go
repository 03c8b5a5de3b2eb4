package channels

import (
	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
)

// Channel permission groups as the subscription and administration rules
// consult them.

// inChannelSetting reports whether u is in the channel's group setting
// name ([chatcore.Permissions.InChannelSetting] with the setting's
// default).
func inChannelSetting(p *chatcore.Permissions, u *chatcore.User, st *chatcore.Stream, name string) bool {
	def, _ := settingDefOf(name)
	return p.InChannelSetting(u, st, name, def.Default)
}

// hasContentAccess is Zulip's content access to a channel: its
// subscribers, non-guests for a public channel, and the members of its
// can_subscribe_group or can_add_subscribers_group.
func hasContentAccess(p *chatcore.Permissions, u *chatcore.User, st *chatcore.Stream, subscribed bool) bool {
	if subscribed {
		return true
	}
	if u.Role == chatcore.RoleGuest {
		return false
	}
	return !st.InviteOnly || inChannelSetting(p, u, st, "can_subscribe_group") || inChannelSetting(p, u, st, "can_add_subscribers_group")
}

// hasMetadataAccess is Zulip's metadata access to a channel: content
// access, realm administrators, and the members of its
// can_administer_channel_group.
func hasMetadataAccess(p *chatcore.Permissions, u *chatcore.User, st *chatcore.Stream, subscribed bool) bool {
	if hasContentAccess(p, u, st, subscribed) {
		return true
	}
	return u.Role != chatcore.RoleGuest && (u.Role.IsAdmin() || inChannelSetting(p, u, st, "can_administer_channel_group"))
}

// MayAddSubscribers reports whether u may subscribe others to st (a channel
// u has content access to) as Zulip decides: realm administrators, the
// realm's can_add_subscribers_group, and the channel's
// can_administer_channel_group and can_add_subscribers_group; never guests.
func MayAddSubscribers(p *chatcore.Permissions, u *chatcore.User, st *chatcore.Stream) bool {
	return mayAddSubscribers(p, u, st)
}

// mayAddSubscribers is MayAddSubscribers.
func mayAddSubscribers(p *chatcore.Permissions, u *chatcore.User, st *chatcore.Stream) bool {
	if u.Role == chatcore.RoleGuest {
		return false
	}
	if u.Role.IsAdmin() {
		return true
	}
	if groups.RealmAllows(p, u, "can_add_subscribers_group") {
		return true
	}
	return inChannelSetting(p, u, st, "can_administer_channel_group") || inChannelSetting(p, u, st, "can_add_subscribers_group")
}

// mayRemoveSubscribers reports whether u may unsubscribe others from every
// channel of chans (subscribed says which u is subscribed to), as Zulip
// decides: realm administrators always; others when they administer every
// one of them, or when they may know of each and are in each one's
// can_remove_subscribers_group.
func mayRemoveSubscribers(p *chatcore.Permissions, u *chatcore.User, chans []*chatcore.Stream, subscribed map[chatcore.StreamID]bool) bool {
	if u.Role.IsAdmin() {
		return true
	}
	if u.Role == chatcore.RoleGuest {
		return false
	}
	administersAll := true
	for _, st := range chans {
		administersAll = administersAll && inChannelSetting(p, u, st, "can_administer_channel_group")
	}
	if administersAll {
		return true
	}
	for _, st := range chans {
		if !hasMetadataAccess(p, u, st, subscribed[st.ID]) || !inChannelSetting(p, u, st, "can_remove_subscribers_group") {
			return false
		}
	}
	return true
}
