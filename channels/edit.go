package channels

import (
	"context"
	"errors"
	"strings"

	"github.com/chatcore/chatcore"
)

// UnsubscribeResult is the answer of DELETE /users/me/subscriptions: the
// channel names unsubscribed from, and those the users were not subscribed
// to, one entry per user and channel.
type UnsubscribeResult struct {
	Removed    []string `json:"removed"`
	NotRemoved []string `json:"not_removed"`
}

// Unsubscribe removes the principals (default: the actor) from the named
// channels in one transaction, as Zulip's DELETE /users/me/subscriptions
// does. Unsubscribing anyone but oneself or one's own bots takes a realm
// administrator, the channels' can_administer_channel_group, or, for
// channels the actor may know of, their can_remove_subscribers_group
// (role:administrators unless stored). Events:
// subscription remove to each user removed and peer_remove to those who
// may see the channel's subscribers.
//
// Errors (BAD_REQUEST): "subscriptions is too long (limit: 1000 items)",
// "principals is too long (limit: 1000 items)"; "Channel name can't be
// empty." and the other channel-name texts; "No such user" for a principal;
// "Insufficient permission" for removing others without the right;
// "Channel(s) (A, B) do not exist" naming the missing (or hidden private)
// channels; UNAUTHORIZED for a missing or deactivated actor.
func Unsubscribe(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, names []string, principals Principals) (UnsubscribeResult, error) {
	switch {
	case len(names) > MaxSubscriptionChannels:
		return UnsubscribeResult{}, chatcore.TooLongError("subscriptions", MaxSubscriptionChannels)
	case principals.len() > MaxPrincipals:
		return UnsubscribeResult{}, chatcore.TooLongError("principals", MaxPrincipals)
	}
	trimmed := make([]string, len(names))
	for i, n := range names {
		trimmed[i] = strings.TrimSpace(n)
		if err := checkChannelName(trimmed[i]); err != nil {
			return UnsubscribeResult{}, err
		}
	}
	var res UnsubscribeResult
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		res = UnsubscribeResult{Removed: []string{}, NotRemoved: []string{}}
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		targets := []*chatcore.User{u}
		if principals.len() > 0 {
			if targets, err = principalUsers(ctx, tx, u.RealmID, principals); err != nil {
				return err
			}
		}
		others := false
		for _, t := range targets {
			if t.ID != u.ID && !(t.IsBot && t.BotOwnerID == u.ID) {
				others = true
			}
		}
		var channels []*chatcore.Stream
		var missing []string
		for _, name := range trimmed {
			st, err := tx.StreamByName(ctx, u.RealmID, name)
			if errors.Is(err, chatcore.ErrNotFound) {
				missing = append(missing, name)
				continue
			}
			if err != nil {
				return err
			}
			channels = append(channels, st)
		}
		if others && !u.Role.IsAdmin() {
			p, err := chatcore.LoadPermissions(ctx, tx, u.RealmID)
			if err != nil {
				return err
			}
			subscribed := map[chatcore.StreamID]bool{}
			for _, st := range channels {
				sub, err := tx.Subscription(ctx, st.ID, u.ID)
				if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
					return err
				}
				subscribed[st.ID] = err == nil && sub.Active
			}
			if !mayRemoveSubscribers(p, u, channels, subscribed) {
				return chatcore.BadRequest("Insufficient permission")
			}
		}
		if len(missing) > 0 {
			return chatcore.BadRequestf("Channel(s) (%s) do not exist", strings.Join(missing, ", "))
		}
		for _, st := range channels {
			var removed []chatcore.UserID
			for _, t := range targets {
				sub, err := tx.Subscription(ctx, st.ID, t.ID)
				if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
					return err
				}
				if err != nil || !sub.Active {
					res.NotRemoved = append(res.NotRemoved, st.Name)
					continue
				}
				sub.Active = false
				if err := tx.PutSubscription(ctx, *sub); err != nil {
					return err
				}
				res.Removed = append(res.Removed, st.Name)
				removed = append(removed, t.ID)
				fx.Event(st.RealmID, []chatcore.UserID{t.ID}, map[string]any{"type": "subscription", "op": "remove",
					"subscriptions": []map[string]any{{"name": st.Name, "stream_id": st.ID}}})
			}
			if len(removed) == 0 {
				continue
			}
			peers, err := peerAudience(ctx, tx, st, removed)
			if err != nil {
				return err
			}
			if len(peers) > 0 {
				fx.Event(st.RealmID, peers, map[string]any{"type": "subscription", "op": "peer_remove", "stream_ids": []chatcore.StreamID{st.ID}, "user_ids": removed})
			}
		}
		return nil
	})
	if err != nil {
		return UnsubscribeResult{}, err
	}
	return res, nil
}

// PropertyChange is one entry of subscription_data of POST
// /users/me/subscriptions/properties. Value is a bool, or a string for
// color.
type PropertyChange struct {
	StreamID chatcore.StreamID `json:"stream_id"`
	Property string            `json:"property"`
	Value    any               `json:"value"`
}

// subscriptionBoolProperties are the boolean properties, each with where it
// lives (in_home_view is is_muted inverted).
var subscriptionBoolProperties = map[string]func(p *chatcore.SubscriptionProperties, v bool){
	"in_home_view":             func(p *chatcore.SubscriptionProperties, v bool) { p.IsMuted = !v },
	"is_muted":                 func(p *chatcore.SubscriptionProperties, v bool) { p.IsMuted = v },
	"pin_to_top":               func(p *chatcore.SubscriptionProperties, v bool) { p.PinToTop = v },
	"desktop_notifications":    func(p *chatcore.SubscriptionProperties, v bool) { p.DesktopNotifications = &v },
	"audible_notifications":    func(p *chatcore.SubscriptionProperties, v bool) { p.AudibleNotifications = &v },
	"push_notifications":       func(p *chatcore.SubscriptionProperties, v bool) { p.PushNotifications = &v },
	"email_notifications":      func(p *chatcore.SubscriptionProperties, v bool) { p.EmailNotifications = &v },
	"wildcard_mentions_notify": func(p *chatcore.SubscriptionProperties, v bool) { p.WildcardMentionsNotify = &v },
}

// checkPropertyChange validates one change as Zulip does before any store
// access.
func checkPropertyChange(c PropertyChange) error {
	if c.Property == "color" {
		v, ok := c.Value.(string)
		if !ok {
			return chatcore.BadRequest("color is not a string")
		}
		return checkColor("color", v)
	}
	if _, ok := subscriptionBoolProperties[c.Property]; !ok {
		return chatcore.BadRequestf("Unknown subscription property: %s", c.Property)
	}
	if _, ok := c.Value.(bool); !ok {
		return chatcore.BadRequestf("%s is not a boolean", c.Property)
	}
	return nil
}

// UpdateProperties applies the changes to the actor's
// subscriptions in order, in one transaction, as Zulip's POST
// /users/me/subscriptions/properties does (color, pin_to_top, is_muted and
// its inverse in_home_view, desktop_, audible_, push_ and
// email_notifications, wildcard_mentions_notify). Each change sends the
// actor a subscription update event with the property and value as given; a
// change of is_muted or in_home_view also sends the other one's event.
//
// Errors (BAD_REQUEST): "subscription_data is too long (limit: 1000
// items)"; "Unknown subscription property: P"; "P is not a boolean"; "color
// is not a valid hex color code"; "Invalid channel ID" for a channel that
// does not exist or that the actor may not access; "Not subscribed to
// channel ID N"; UNAUTHORIZED for a missing or deactivated actor.
func UpdateProperties(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, changes []PropertyChange) error {
	if len(changes) > MaxPropertyChanges {
		return chatcore.TooLongError("subscription_data", MaxPropertyChanges)
	}
	for _, c := range changes {
		if err := checkPropertyChange(c); err != nil {
			return err
		}
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		for _, c := range changes {
			st, err := chatcore.StreamInRealm(ctx, tx, u.RealmID, c.StreamID)
			if errors.Is(err, chatcore.ErrNotFound) {
				return errInvalidChannelID()
			}
			if err != nil {
				return err
			}
			sub, err := tx.Subscription(ctx, st.ID, u.ID)
			if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
				return err
			}
			subscribed := err == nil && sub.Active
			if !subscribed && (st.InviteOnly || u.Role == chatcore.RoleGuest) {
				return errInvalidChannelID()
			}
			if !subscribed {
				return chatcore.BadRequestf("Not subscribed to channel ID %d", st.ID)
			}
			if c.Property == "color" {
				sub.Color = c.Value.(string)
			} else {
				subscriptionBoolProperties[c.Property](&sub.SubscriptionProperties, c.Value.(bool))
			}
			if err := tx.PutSubscription(ctx, *sub); err != nil {
				return err
			}
			fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "subscription", "op": "update",
				"stream_id": st.ID, "property": c.Property, "value": c.Value})
			switch c.Property {
			case "is_muted":
				fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "subscription", "op": "update",
					"stream_id": st.ID, "property": "in_home_view", "value": !c.Value.(bool)})
			case "in_home_view":
				fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "subscription", "op": "update",
					"stream_id": st.ID, "property": "is_muted", "value": !c.Value.(bool)})
			}
		}
		return nil
	})
}
