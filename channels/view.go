package channels

import (
	"cmp"
	"context"
	"slices"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/internal/slicex"
)

// View is a channel as GET /streams, GET /streams/{stream_id} and
// stream events show it (Zulip's BasicChannel). Its group settings are
// the stored values, else Zulip's defaults: the channel's creator for
// can_administer_channel_group and can_add_subscribers_group (nobody for a
// channel without one), a system group for the others, and everyone for
// can_create_topic_group, which chatcore does not model. In a realm
// without system groups the defaults are anonymous groups (nobody, the
// realm's administrators) and those whose default is everyone are left
// out. Settings chatcore does not model otherwise have Zulip's defaults.
type View struct {
	StreamID                   chatcore.StreamID   `json:"stream_id"`
	Name                       string              `json:"name"`
	IsArchived                 bool                `json:"is_archived"`
	Description                string              `json:"description"`
	RenderedDescription        string              `json:"rendered_description"`
	DateCreated                int64               `json:"date_created"`
	CreatorID                  *chatcore.UserID    `json:"creator_id"`
	InviteOnly                 bool                `json:"invite_only"`
	IsWebPublic                bool                `json:"is_web_public"`
	StreamPostPolicy           int                 `json:"stream_post_policy"`
	MessageRetentionDays       *int                `json:"message_retention_days"`
	HistoryPublicToSubscribers bool                `json:"history_public_to_subscribers"`
	TopicsPolicy               string              `json:"topics_policy"`
	FirstMessageID             *chatcore.MessageID `json:"first_message_id"`
	FolderID                   *int64              `json:"folder_id"`
	IsRecentlyActive           bool                `json:"is_recently_active"`
	IsAnnouncementOnly         bool                `json:"is_announcement_only"`
	CanAddSubscribersGroup     *groups.Value       `json:"can_add_subscribers_group"`
	CanRemoveSubscribersGroup  *groups.Value       `json:"can_remove_subscribers_group"`
	CanAdministerChannelGroup  *groups.Value       `json:"can_administer_channel_group"`
	CanDeleteAnyMessageGroup   *groups.Value       `json:"can_delete_any_message_group,omitempty"`
	CanDeleteOwnMessageGroup   *groups.Value       `json:"can_delete_own_message_group,omitempty"`
	CanMoveMessagesOutGroup    *groups.Value       `json:"can_move_messages_out_of_channel_group,omitempty"`
	CanMoveMessagesWithinGroup *groups.Value       `json:"can_move_messages_within_channel_group,omitempty"`
	CanSendMessageGroup        *groups.Value       `json:"can_send_message_group,omitempty"`
	CanSubscribeGroup          *groups.Value       `json:"can_subscribe_group"`
	CanResolveTopicsGroup      *groups.Value       `json:"can_resolve_topics_group,omitempty"`
	CanCreateTopicGroup        *groups.Value       `json:"can_create_topic_group,omitempty"`
	SubscriberCount            int                 `json:"subscriber_count"`
	StreamWeeklyTraffic        *int                `json:"stream_weekly_traffic"`
	// IsDefault is set by GET /streams with include_default only.
	IsDefault *bool `json:"is_default,omitempty"`
}

// Subscription is a channel with the user's personal settings for it, as
// the subscriptions, unsubscribed and never_subscribed lists show it
// (personal settings are absent from never_subscribed).
type Subscription struct {
	View
	// Subscribers is present when the request asked for subscribers.
	Subscribers *[]chatcore.UserID `json:"subscribers,omitempty"`
	*Personal
}

// Personal is the personal part of a [Subscription].
type Personal struct {
	Color                  string `json:"color"`
	PinToTop               bool   `json:"pin_to_top"`
	IsMuted                bool   `json:"is_muted"`
	InHomeView             bool   `json:"in_home_view"`
	DesktopNotifications   *bool  `json:"desktop_notifications"`
	AudibleNotifications   *bool  `json:"audible_notifications"`
	PushNotifications      *bool  `json:"push_notifications"`
	EmailNotifications     *bool  `json:"email_notifications"`
	WildcardMentionsNotify *bool  `json:"wildcard_mentions_notify"`
}

// channelColors are Zulip's colours for new subscriptions, in the order it
// hands them out.
var channelColors = []string{
	"#76ce90", "#fae589", "#a6c7e5", "#e79ab5", "#bfd56f", "#f4ae55", "#b0a5fd", "#addfe5",
	"#f5ce6e", "#c2726a", "#94c849", "#bd86e5", "#ee7e4a", "#a6dcbf", "#95a5fd", "#53a063",
	"#9987e1", "#e4523d", "#c2c2c2", "#4f8de4", "#c6a8ad", "#e7cc4d", "#c8bebf", "#a47462",
}

// pickColor returns the first colour of channelColors none of used has, or
// one chosen by how many are used when every colour is taken.
func pickColor(used []string) string {
	for _, c := range channelColors {
		if !slices.Contains(used, c) {
			return c
		}
	}
	return channelColors[len(used)%len(channelColors)]
}

// channelWorld is what one request reads once to show many channels: the
// realm's channels, every active subscription to them and the realm's
// administrators.
type channelWorld struct {
	viewer  *chatcore.User
	streams []chatcore.Stream
	// subscribers are the active subscribers of each channel, ascending.
	subscribers map[chatcore.StreamID][]chatcore.UserID
	// mine are the viewer's subscriptions (active or not) by channel.
	mine   map[chatcore.StreamID]chatcore.Subscription
	admins []chatcore.UserID
	// p holds the realm's groups and stored group settings.
	p *chatcore.Permissions
}

// loadChannelWorld reads the channels of viewer's realm with their
// subscribers in five queries, and the realm's permissions (two more)
// unless p holds them already.
func loadChannelWorld(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, p *chatcore.Permissions) (*channelWorld, error) {
	w := &channelWorld{viewer: viewer, subscribers: map[chatcore.StreamID][]chatcore.UserID{}, mine: map[chatcore.StreamID]chatcore.Subscription{}, p: p}
	var err error
	if w.streams, err = tx.Streams(ctx, viewer.RealmID); err != nil {
		return nil, err
	}
	all, err := tx.RealmSubscribers(ctx, viewer.RealmID)
	if err != nil {
		return nil, err
	}
	// The realm's administrators are few; reading them alone keeps this from
	// decoding every user of a large realm.
	active := true
	admins, err := tx.Users(ctx, chatcore.UserFilter{RealmID: viewer.RealmID, Active: &active,
		Roles: []chatcore.Role{chatcore.RoleOwner, chatcore.RoleAdministrator}})
	if err != nil {
		return nil, err
	}
	for _, u := range admins {
		w.admins = append(w.admins, u.ID)
	}
	for _, sub := range all {
		w.subscribers[sub.StreamID] = append(w.subscribers[sub.StreamID], sub.UserID)
	}
	mine, err := tx.Subscriptions(ctx, 0, viewer.ID)
	if err != nil {
		return nil, err
	}
	for _, sub := range mine {
		w.mine[sub.StreamID] = sub
	}
	if w.p == nil {
		if w.p, err = chatcore.LoadPermissions(ctx, tx, viewer.RealmID); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// creatorDefaults are the channel settings whose default is the channel's
// creator (Zulip's "channel_creator"), as [chatcore.Permissions.InChannelSetting]
// decides them.
var creatorDefaults = map[string]bool{"can_administer_channel_group": true, "can_add_subscribers_group": true}

// viewSettings are the group settings a View shows: chatcore's
// ([groups.ChannelSettings]) and can_create_topic_group, everyone.
var viewSettings = append(slices.Clone(groups.ChannelSettings),
	groups.SettingDef{Name: "can_create_topic_group", Default: chatcore.GroupEveryone})

// setting returns the field of v that shows setting name.
func (v *View) setting(name string) **groups.Value {
	switch name {
	case "can_add_subscribers_group":
		return &v.CanAddSubscribersGroup
	case "can_remove_subscribers_group":
		return &v.CanRemoveSubscribersGroup
	case "can_administer_channel_group":
		return &v.CanAdministerChannelGroup
	case "can_delete_any_message_group":
		return &v.CanDeleteAnyMessageGroup
	case "can_delete_own_message_group":
		return &v.CanDeleteOwnMessageGroup
	case "can_move_messages_out_of_channel_group":
		return &v.CanMoveMessagesOutGroup
	case "can_move_messages_within_channel_group":
		return &v.CanMoveMessagesWithinGroup
	case "can_send_message_group":
		return &v.CanSendMessageGroup
	case "can_subscribe_group":
		return &v.CanSubscribeGroup
	case "can_resolve_topics_group":
		return &v.CanResolveTopicsGroup
	case "can_create_topic_group":
		return &v.CanCreateTopicGroup
	}
	panic("channels: no view field for " + name)
}

// settingValue returns the value View shows for setting d of st, from p;
// false when it is left out (a default of everyone in a realm without
// system groups). admins are the realm's administrators, shown for a
// default of role:administrators in such a realm.
func settingValue(p *chatcore.Permissions, st *chatcore.Stream, d groups.SettingDef, admins []chatcore.UserID) (groups.Value, bool) {
	if v, ok := p.Stored(chatcore.SettingOfChannel, int64(st.ID), d.Name); ok {
		return groups.Value{GroupSettingValue: v}, true
	}
	def := d.Default
	if creatorDefaults[d.Name] {
		if st.CreatorID != 0 {
			return groups.Value{GroupSettingValue: chatcore.GroupSettingValue{DirectMembers: []chatcore.UserID{st.CreatorID}}}, true
		}
		def = chatcore.GroupNobody
	}
	if id := p.SystemGroupID(def); id != 0 {
		return groups.Value{GroupSettingValue: chatcore.GroupSettingValue{GroupID: id}}, true
	}
	switch def {
	case chatcore.GroupNobody:
		return groups.Value{}, true
	case chatcore.GroupAdministrators:
		return groups.Value{GroupSettingValue: chatcore.GroupSettingValue{DirectMembers: slices.Clone(admins)}}, true
	}
	return groups.Value{}, false
}

// subscribed reports whether the viewer is an active subscriber of st.
func (w *channelWorld) subscribed(st chatcore.StreamID) bool {
	sub, ok := w.mine[st]
	return ok && sub.Active
}

// canSeeMetadata reports whether the viewer may know of st: public channels
// for non-guests, channels they are subscribed to, and every channel for
// administrators. Zulip shows a channel's subscribers by the same rule.
func (w *channelWorld) canSeeMetadata(st *chatcore.Stream) bool {
	return canSeeChannel(w.viewer, st, w.subscribed(st.ID))
}

// canSeeChannel is Zulip's metadata access to a channel.
func canSeeChannel(viewer *chatcore.User, st *chatcore.Stream, subscribed bool) bool {
	return subscribed || viewer.Role.IsAdmin() || !st.InviteOnly && viewer.Role != chatcore.RoleGuest
}

// channelView builds the view of st, its group settings from p (see
// settingValue).
func channelView(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, st *chatcore.Stream, subscriberCount int, p *chatcore.Permissions, admins []chatcore.UserID) (View, error) {
	v := View{
		StreamID: st.ID, Name: st.Name, IsArchived: st.IsArchived, Description: st.Description,
		RenderedDescription: st.RenderedDescription, DateCreated: st.DateCreated.Unix(),
		InviteOnly: st.InviteOnly, StreamPostPolicy: 1, HistoryPublicToSubscribers: st.HistoryPublicToSubscribers,
		TopicsPolicy: "inherit", IsRecentlyActive: true, SubscriberCount: subscriberCount,
	}
	for _, d := range viewSettings {
		if val, ok := settingValue(p, st, d, admins); ok {
			*v.setting(d.Name) = &val
		}
	}
	if st.DateCreated.IsZero() {
		v.DateCreated = 0
	}
	if st.CreatorID != 0 {
		v.CreatorID = new(st.CreatorID)
	}
	if st.FirstMessageID != 0 {
		v.FirstMessageID = new(st.FirstMessageID)
	}
	if v.RenderedDescription == "" && st.Description != "" {
		html, _, _, err := svc.RenderMessage(ctx, tx, st.RealmID, st.Description)
		if err != nil {
			return View{}, err
		}
		v.RenderedDescription = html
	}
	return v, nil
}

// personalView builds the personal part of a subscription view.
func personalView(sub chatcore.Subscription) *Personal {
	p := sub.SubscriptionProperties
	color := p.Color
	if color == "" {
		color = channelColors[int(sub.StreamID)%len(channelColors)]
	}
	return &Personal{
		Color: color, PinToTop: p.PinToTop, IsMuted: p.IsMuted, InHomeView: !p.IsMuted,
		DesktopNotifications: p.DesktopNotifications, AudibleNotifications: p.AudibleNotifications,
		PushNotifications: p.PushNotifications, EmailNotifications: p.EmailNotifications,
		WildcardMentionsNotify: p.WildcardMentionsNotify,
	}
}

// subscriptionView builds the view of the viewer's subscription to st, with
// the subscribers when withSubscribers.
func subscriptionView(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, w *channelWorld, st *chatcore.Stream, personal bool, withSubscribers bool) (Subscription, error) {
	subs := w.subscribers[st.ID]
	cv, err := channelView(ctx, svc, tx, st, len(subs), w.p, w.admins)
	if err != nil {
		return Subscription{}, err
	}
	v := Subscription{View: cv}
	if personal {
		v.Personal = personalView(w.mine[st.ID])
	}
	if withSubscribers && w.canSeeMetadata(st) {
		list := slicex.OrEmpty(slices.Clone(subs))
		v.Subscribers = &list
	}
	return v, nil
}

// State is the subscription section of POST /register (subscriptions,
// unsubscribed and never_subscribed).
type State struct {
	// Subscribed are the actor's active subscriptions, by channel name.
	Subscribed []Subscription
	// Unsubscribed are channels the actor left and may still see, by name.
	Unsubscribed []Subscription
	// NeverSubscribed are channels the actor may see and never joined, by name.
	NeverSubscribed []Subscription
}

// SubscriptionState computes the subscription section of POST /register for
// the viewer in the caller's transaction tx (read through [chatcore.Service.View]
// or [chatcore.Service.Update]), with each channel's subscribers when
// withSubscribers and the viewer may see them. p, when not nil, holds the
// realm's permissions read in tx already. Errors are the store's.
func SubscriptionState(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, viewer *chatcore.User, p *chatcore.Permissions, withSubscribers bool) (*State, error) {
	w, err := loadChannelWorld(ctx, tx, viewer, p)
	if err != nil {
		return nil, err
	}
	return subscriptionState(ctx, svc, tx, w, withSubscribers)
}

// subscriptionState is [SubscriptionState] over the viewer's channel world w.
func subscriptionState(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, w *channelWorld, withSubscribers bool) (*State, error) {
	out := &State{Subscribed: []Subscription{}, Unsubscribed: []Subscription{}, NeverSubscribed: []Subscription{}}
	for i := range w.streams {
		st := &w.streams[i]
		sub, known := w.mine[st.ID]
		switch {
		case known && sub.Active:
			v, err := subscriptionView(ctx, svc, tx, w, st, true, withSubscribers)
			if err != nil {
				return nil, err
			}
			out.Subscribed = append(out.Subscribed, v)
		case !w.canSeeMetadata(st):
		case known:
			v, err := subscriptionView(ctx, svc, tx, w, st, true, withSubscribers)
			if err != nil {
				return nil, err
			}
			out.Unsubscribed = append(out.Unsubscribed, v)
		default:
			v, err := subscriptionView(ctx, svc, tx, w, st, false, withSubscribers)
			if err != nil {
				return nil, err
			}
			out.NeverSubscribed = append(out.NeverSubscribed, v)
		}
	}
	for _, l := range [][]Subscription{out.Subscribed, out.Unsubscribed, out.NeverSubscribed} {
		slices.SortFunc(l, func(a, b Subscription) int { return cmp.Compare(a.Name, b.Name) })
	}
	return out, nil
}

// Subscriptions returns the actor's active subscriptions by channel name, as
// GET /users/me/subscriptions shows them; with includeSubscribers each
// carries its subscribers. Errors: UNAUTHORIZED for a missing or deactivated
// actor; others are internal.
func Subscriptions(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, includeSubscribers bool) ([]Subscription, error) {
	var out []Subscription
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		st, err := SubscriptionState(ctx, svc, tx, u, nil, includeSubscribers)
		if err != nil {
			return err
		}
		out = st.Subscribed
		return nil
	})
	return out, err
}
