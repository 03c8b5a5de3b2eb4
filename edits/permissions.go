package edits

import (
	"context"

	"github.com/chatcore/chatcore"
)

// channelPerms answers the channel permission groups that let u delete,
// move or resolve beyond the realm's settings, reading the realm's groups
// and group settings once, on the first question.
type channelPerms struct {
	tx chatcore.Tx
	u  *chatcore.User
	p  *chatcore.Permissions
}

// in reports whether u is in the channel's group setting name (role:nobody
// unless stored; the channel's creator for can_administer_channel_group).
func (c *channelPerms) in(ctx context.Context, st *chatcore.Stream, name string) (bool, error) {
	if c.p == nil {
		p, err := chatcore.LoadPermissions(ctx, c.tx, c.u.RealmID)
		if err != nil {
			return false, err
		}
		c.p = p
	}
	return c.p.InChannelSetting(c.u, st, name, chatcore.GroupNobody), nil
}

// any reports whether rule holds for u in one of chans.
func (c *channelPerms) any(ctx context.Context, chans []*chatcore.Stream, rule func(context.Context, *chatcore.Stream) (bool, error)) (bool, error) {
	for _, st := range chans {
		if ok, err := rule(ctx, st); err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// canMoveWithin is Zulip's permission to move messages between topics of
// st: realm administrators, its administrators and its
// can_move_messages_within_channel_group.
func (c *channelPerms) canMoveWithin(ctx context.Context, st *chatcore.Stream) (bool, error) {
	return c.adminOr(ctx, st, "can_move_messages_within_channel_group")
}

// canMoveOut is Zulip's permission to move messages out of st: realm
// administrators, its administrators and its
// can_move_messages_out_of_channel_group.
func (c *channelPerms) canMoveOut(ctx context.Context, st *chatcore.Stream) (bool, error) {
	return c.adminOr(ctx, st, "can_move_messages_out_of_channel_group")
}

// canResolve is Zulip's channel permission to resolve topics of st: its
// can_resolve_topics_group.
func (c *channelPerms) canResolve(ctx context.Context, st *chatcore.Stream) (bool, error) {
	return c.in(ctx, st, "can_resolve_topics_group")
}

// adminOr reports whether u is a realm administrator, in st's
// can_administer_channel_group or in its setting name.
func (c *channelPerms) adminOr(ctx context.Context, st *chatcore.Stream, name string) (bool, error) {
	if c.u.Role.IsAdmin() {
		return true, nil
	}
	if ok, err := c.in(ctx, st, "can_administer_channel_group"); err != nil || ok {
		return ok, err
	}
	return c.in(ctx, st, name)
}
