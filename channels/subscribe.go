package channels

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// Bounds of the subscription requests, checked before any store access.
const (
	// MaxSubscriptionChannels bounds the channels of one subscribe or
	// unsubscribe request.
	MaxSubscriptionChannels = 1000
	// MaxPrincipals bounds the users one request subscribes or unsubscribes.
	MaxPrincipals = 1000
	// MaxPropertyChanges bounds subscription_data of POST
	// /users/me/subscriptions/properties.
	MaxPropertyChanges = 1000
)

// NewChannel is one entry of the subscriptions list of POST
// /users/me/subscriptions: a channel by name, created when it does not
// exist, with the description and the subscriber's colour to use.
type NewChannel struct {
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Color       *string `json:"color"`
}

// Principals names users by id or by e-mail (one kind per request).
type Principals struct {
	IDs    []chatcore.UserID
	Emails []string
}

func (p Principals) len() int { return len(p.IDs) + len(p.Emails) }

// SubscribeRequest holds the parameters of POST /users/me/subscriptions.
type SubscribeRequest struct {
	Subscriptions []NewChannel
	// Principals are the users to subscribe; none means the actor.
	Principals Principals
	// InviteOnly makes the channels created private (with protected history
	// unless HistoryPublicToSubscribers).
	InviteOnly                 bool
	HistoryPublicToSubscribers *bool
	// AuthorizationErrorsFatal (default true) refuses the whole request when
	// a channel is not accessible; false skips such channels and lists them
	// in Unauthorized.
	AuthorizationErrorsFatal *bool
	// IsWebPublic asks for web-public channels, which chatcore does not
	// have: creating one is "Web-public channels are not enabled."
	IsWebPublic bool
}

// SubscribeResult is the answer of POST /users/me/subscriptions: channel
// names by user id (decimal string).
type SubscribeResult struct {
	Subscribed        map[string][]string `json:"subscribed"`
	AlreadySubscribed map[string][]string `json:"already_subscribed"`
	// Unauthorized is set only when authorization errors are not fatal.
	Unauthorized []string `json:"unauthorized,omitempty"`
}

var colorPattern = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// checkColor is Zulip's check_color.
func checkColor(name, v string) error {
	if !colorPattern.MatchString(v) {
		return chatcore.BadRequestf("%s is not a valid hex color code", name)
	}
	return nil
}

// checkChannelName is Zulip's check_stream_name on a trimmed name.
func checkChannelName(name string) error {
	if name == "" {
		return chatcore.BadRequest("Channel name can't be empty.")
	}
	if utf8.RuneCountInString(name) > MaxNameLength {
		return chatcore.BadRequestf("Channel name too long (limit: %d characters).", MaxNameLength)
	}
	i := 0
	for _, r := range name {
		i++
		if unicode.IsControl(r) || r == utf8.RuneError || r >= 0xFDD0 && r <= 0xFDEF || r&0xFFFE == 0xFFFE {
			return chatcore.BadRequestf("Invalid character in channel name, at position %d.", i)
		}
	}
	return nil
}

// checkSubscribeRequest validates what needs no store, in Zulip's order.
func checkSubscribeRequest(req *SubscribeRequest) error {
	switch {
	case len(req.Subscriptions) > MaxSubscriptionChannels:
		return chatcore.TooLongError("subscriptions", MaxSubscriptionChannels)
	case req.Principals.len() > MaxPrincipals:
		return chatcore.TooLongError("principals", MaxPrincipals)
	}
	for i := range req.Subscriptions {
		c := &req.Subscriptions[i]
		if c.Color != nil {
			if err := checkColor("add.color", *c.Color); err != nil {
				return err
			}
		}
		if c.Description != nil && utf8.RuneCountInString(*c.Description) > MaxDescriptionLength {
			return chatcore.BadRequestf("subscriptions[%d].description is too long (limit: %d characters)", i, MaxDescriptionLength)
		}
		c.Name = strings.TrimSpace(c.Name)
		if err := checkChannelName(c.Name); err != nil {
			return err
		}
	}
	return nil
}

// principalUsers resolves principals to active users (bots included) of the
// realm. Errors: BAD_REQUEST "No such user" for an unknown or deactivated
// one.
func principalUsers(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, p Principals) ([]*chatcore.User, error) {
	var out []*chatcore.User
	for _, id := range p.IDs {
		u, err := chatcore.UserInRealm(ctx, tx, realm, id)
		if errors.Is(err, chatcore.ErrNotFound) || err == nil && !u.IsActive {
			return nil, chatcore.BadRequest("No such user")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	for _, email := range p.Emails {
		u, err := tx.UserByEmail(ctx, realm, email)
		if errors.Is(err, chatcore.ErrNotFound) || err == nil && !u.IsActive {
			return nil, chatcore.BadRequest("No such user")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b *chatcore.User) int { return int(a.ID - b.ID) })
	return slices.CompactFunc(out, func(a, b *chatcore.User) bool { return a.ID == b.ID }), nil
}

// Subscribe subscribes the principals (default: the actor) to the channels
// named in req, creating those that do not exist, in one transaction, as
// Zulip's POST /users/me/subscriptions does. Members create channels (public,
// or private with invite_only); the creator subscribes. New subscriptions
// get a colour from Zulip's palette, or the one given; a returning
// subscriber keeps their old settings. Events: stream create for new
// channels, subscription add to each new subscriber and peer_add to those
// who may see the channel's subscribers.
//
// Errors (BAD_REQUEST unless said): "Not allowed for guest users";
// "subscriptions is too long (limit: 1000 items)", "principals is too long
// (limit: 1000 items)"; "add.color is not a valid hex color code"; "Channel
// name can't be empty.", "Channel name too long (limit: 60 characters).",
// "Invalid character in channel name, at position N."; "No such user" for a
// principal; "Unable to access channel (NAME)." for a private channel the
// actor is not subscribed to and whose can_subscribe_group and
// can_add_subscribers_group do not hold the actor (unless authorization
// errors are not fatal); "Insufficient permission" when the actor
// subscribes others to an existing channel without being an administrator
// or in the realm's can_add_subscribers_group or the channel's
// can_add_subscribers_group or can_administer_channel_group; UNAUTHORIZED
// for a missing or deactivated actor.
func Subscribe(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req SubscribeRequest) (SubscribeResult, error) {
	if err := checkSubscribeRequest(&req); err != nil {
		return SubscribeResult{}, err
	}
	res := SubscribeResult{Subscribed: map[string][]string{}, AlreadySubscribed: map[string][]string{}}
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		res = SubscribeResult{Subscribed: map[string][]string{}, AlreadySubscribed: map[string][]string{}}
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if u.Role == chatcore.RoleGuest {
			return chatcore.BadRequest("Not allowed for guest users")
		}
		targets := []*chatcore.User{u}
		if req.Principals.len() > 0 {
			if targets, err = principalUsers(ctx, tx, u.RealmID, req.Principals); err != nil {
				return err
			}
		}
		others := slices.ContainsFunc(targets, func(t *chatcore.User) bool { return t.ID != u.ID })
		channels, created, err := resolveChannels(ctx, svc, tx, fx, u, &req)
		if err != nil {
			return err
		}
		var p *chatcore.Permissions
		if len(created) < len(channels) {
			if p, err = chatcore.LoadPermissions(ctx, tx, u.RealmID); err != nil {
				return err
			}
		}
		var authorized []*chatcore.Stream
		cannotAdd := false
		for _, st := range channels {
			if slices.Contains(created, st) {
				authorized = append(authorized, st)
				continue
			}
			sub, err := tx.Subscription(ctx, st.ID, u.ID)
			if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
				return err
			}
			subscribed := err == nil && sub.Active
			if !hasContentAccess(p, u, st, subscribed) {
				if flag(req.AuthorizationErrorsFatal, true) {
					return chatcore.BadRequestf("Unable to access channel (%s).", st.Name)
				}
				res.Unauthorized = append(res.Unauthorized, st.Name)
				continue
			}
			cannotAdd = cannotAdd || others && !mayAddSubscribers(p, u, st)
			authorized = append(authorized, st)
		}
		if cannotAdd {
			return chatcore.BadRequest("Insufficient permission")
		}
		colors := map[string]string{}
		for _, c := range req.Subscriptions {
			if c.Color != nil {
				colors[chatcore.FoldKey(c.Name)] = *c.Color
			}
		}
		return addSubscriptions(ctx, svc, tx, fx, u, authorized, targets, colors, &res)
	})
	if err != nil {
		return SubscribeResult{}, err
	}
	return res, nil
}

// resolveChannels finds the channels named in req, creating the missing ones
// (each name once), and returns them in request order with those created.
func resolveChannels(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User, req *SubscribeRequest) ([]*chatcore.Stream, []*chatcore.Stream, error) {
	var out, created []*chatcore.Stream
	seen := map[string]*chatcore.Stream{}
	for _, c := range req.Subscriptions {
		key := chatcore.FoldKey(c.Name)
		if st, ok := seen[key]; ok {
			if !slices.Contains(out, st) {
				out = append(out, st)
			}
			continue
		}
		st, err := tx.StreamByName(ctx, u.RealmID, c.Name)
		if errors.Is(err, chatcore.ErrNotFound) {
			st, err = createChannel(ctx, svc, tx, fx, u, c, req)
			if err != nil {
				return nil, nil, err
			}
			created = append(created, st)
		} else if err != nil {
			return nil, nil, err
		}
		seen[key] = st
		out = append(out, st)
	}
	return out, created, nil
}

// createChannel creates the channel c for u and queues its stream create
// event for those who may see it: everyone but guests for a public channel,
// the administrators for a private one (its subscribers learn of it from
// their subscription add event).
func createChannel(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User, c NewChannel, req *SubscribeRequest) (*chatcore.Stream, error) {
	if err := checkMayCreate(ctx, tx, u, req.InviteOnly); err != nil {
		return nil, err
	}
	if req.IsWebPublic {
		return nil, errWebPublicDisabled()
	}
	st := &chatcore.Stream{
		RealmID: u.RealmID, Name: c.Name, InviteOnly: req.InviteOnly,
		HistoryPublicToSubscribers: !req.InviteOnly, DateCreated: svc.Now(), CreatorID: u.ID,
	}
	if req.InviteOnly && req.HistoryPublicToSubscribers != nil {
		st.HistoryPublicToSubscribers = *req.HistoryPublicToSubscribers
	}
	if c.Description != nil {
		st.Description = strings.ReplaceAll(*c.Description, "\n", " ")
		html, _, _, err := svc.RenderMessage(ctx, tx, u.RealmID, st.Description)
		if err != nil {
			return nil, err
		}
		st.RenderedDescription = html
	}
	if err := tx.CreateStream(ctx, st); err != nil {
		return nil, err
	}
	active := true
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, Active: &active})
	if err != nil {
		return nil, err
	}
	var audience, admins []chatcore.UserID
	for _, v := range users {
		if v.Role.IsAdmin() {
			admins = append(admins, v.ID)
		}
		if v.Role != chatcore.RoleGuest {
			audience = append(audience, v.ID)
		}
	}
	if st.InviteOnly {
		audience = admins
	}
	p, err := chatcore.LoadPermissions(ctx, tx, u.RealmID)
	if err != nil {
		return nil, err
	}
	view, err := channelView(ctx, svc, tx, st, 0, p, admins)
	if err != nil {
		return nil, err
	}
	if len(audience) > 0 {
		fx.Event(u.RealmID, audience, map[string]any{"type": "stream", "op": "create", "streams": []View{view}})
	}
	return st, nil
}

// addSubscriptions subscribes every target to every channel, filling res and
// queueing the subscription events.
func addSubscriptions(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User, channels []*chatcore.Stream, targets []*chatcore.User, colors map[string]string, res *SubscribeResult) error {
	used := map[chatcore.UserID][]string{}
	for _, t := range targets {
		subs, err := tx.Subscriptions(ctx, 0, t.ID)
		if err != nil {
			return err
		}
		for _, sub := range subs {
			if sub.Active && sub.Color != "" {
				used[t.ID] = append(used[t.ID], sub.Color)
			}
		}
	}
	for _, st := range channels {
		next, err := nextMessageID(ctx, tx, st)
		if err != nil {
			return err
		}
		var added []chatcore.Subscription
		for _, t := range targets {
			key := fmt.Sprint(t.ID)
			old, err := tx.Subscription(ctx, st.ID, t.ID)
			if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
				return err
			}
			if err == nil && old.Active {
				res.AlreadySubscribed[key] = append(res.AlreadySubscribed[key], st.Name)
				continue
			}
			sub := chatcore.Subscription{StreamID: st.ID, UserID: t.ID, Active: true, SinceMessageID: next}
			if err == nil {
				sub.SubscriptionProperties = old.SubscriptionProperties
			}
			if !st.HistoryPublicToSubscribers {
				sub.FirstVisibleMessageID = next
			}
			if c, ok := colors[chatcore.FoldKey(st.Name)]; ok {
				sub.Color = c
			} else if sub.Color == "" {
				sub.Color = pickColor(used[t.ID])
			}
			used[t.ID] = append(used[t.ID], sub.Color)
			if err := tx.PutSubscription(ctx, sub); err != nil {
				return err
			}
			res.Subscribed[key] = append(res.Subscribed[key], st.Name)
			added = append(added, sub)
		}
		if err := subscriptionAddEvents(ctx, svc, tx, fx, st, added); err != nil {
			return err
		}
	}
	return nil
}

// nextMessageID is the id the channel's next message will have at least.
func nextMessageID(ctx context.Context, tx chatcore.Tx, st *chatcore.Stream) (chatcore.MessageID, error) {
	last, err := tx.MessageIDs(ctx, chatcore.MessageQuery{RealmID: st.RealmID, Recipients: []chatcore.RecipientID{st.RecipientID}, Newest: true, Limit: 1})
	if err != nil || len(last) == 0 {
		return 0, err
	}
	return last[0] + 1, nil
}

// subscriptionAddEvents queues the subscription add event of each new
// subscriber (their subscription with its subscribers) and one peer_add
// event for the others who may see the channel's subscribers.
func subscriptionAddEvents(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, st *chatcore.Stream, added []chatcore.Subscription) error {
	if len(added) == 0 {
		return nil
	}
	subscribers, err := tx.ActiveSubscriberIDs(ctx, st.ID)
	if err != nil {
		return err
	}
	admins, err := realmAdmins(ctx, tx, st.RealmID)
	if err != nil {
		return err
	}
	p, err := chatcore.LoadPermissions(ctx, tx, st.RealmID)
	if err != nil {
		return err
	}
	cv, err := channelView(ctx, svc, tx, st, len(subscribers), p, admins)
	if err != nil {
		return err
	}
	ids := make([]chatcore.UserID, 0, len(added))
	for _, sub := range added {
		list := slicex.OrEmpty(slices.Clone(subscribers))
		v := Subscription{View: cv, Subscribers: &list, Personal: personalView(sub)}
		fx.Event(st.RealmID, []chatcore.UserID{sub.UserID}, map[string]any{"type": "subscription", "op": "add", "subscriptions": []Subscription{v}})
		ids = append(ids, sub.UserID)
	}
	peers, err := peerAudience(ctx, tx, st, ids)
	if err != nil {
		return err
	}
	if len(peers) > 0 {
		fx.Event(st.RealmID, peers, map[string]any{"type": "subscription", "op": "peer_add", "stream_ids": []chatcore.StreamID{st.ID}, "user_ids": ids})
	}
	return nil
}

// realmAdmins returns the active administrators and owners of the realm.
func realmAdmins(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID) ([]chatcore.UserID, error) {
	active := true
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm, Active: &active, Roles: []chatcore.Role{chatcore.RoleOwner, chatcore.RoleAdministrator}})
	if err != nil {
		return nil, err
	}
	out := make([]chatcore.UserID, len(users))
	for i, u := range users {
		out[i] = u.ID
	}
	return out, nil
}

// peerAudience returns who learns of subscriber changes of st: every active
// non-guest user of a public channel, else its administrators, plus its
// active subscribers; the users in except are left out.
func peerAudience(ctx context.Context, tx chatcore.Tx, st *chatcore.Stream, except []chatcore.UserID) ([]chatcore.UserID, error) {
	active := true
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: st.RealmID, Active: &active})
	if err != nil {
		return nil, err
	}
	subs, err := tx.ActiveSubscriberIDs(ctx, st.ID)
	if err != nil {
		return nil, err
	}
	var out []chatcore.UserID
	for i := range users {
		u := &users[i]
		if slices.Contains(except, u.ID) {
			continue
		}
		_, subscribed := slices.BinarySearch(subs, u.ID) // ascending, as ActiveSubscriberIDs gives them
		if canSeeChannel(u, st, subscribed) {
			out = append(out, u.ID)
		}
	}
	return out, nil
}
