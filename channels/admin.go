package channels

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/internal/slicex"
)

// Channel administration: PATCH /streams/{stream_id}, DELETE
// /streams/{stream_id} (archiving) and GET /streams/{stream_id}/members.

// ChannelEventsTopic is the topic of the notification bot's messages about
// a channel, in the channel itself.
const ChannelEventsTopic = "channel events"

// UpdateRequest is PATCH /streams/{stream_id}: nil fields are left alone.
type UpdateRequest struct {
	NewName                    *string
	Description                *string
	IsPrivate                  *bool
	HistoryPublicToSubscribers *bool
	// IsWebPublic asks to make the channel web-public, which chatcore's
	// channels never are: "Web-public channels are not enabled."
	IsWebPublic bool
	// Settings are group-setting changes ({"new": ..., "old": ...}) of the
	// channel's permission groups ([groups.ChannelSettings]).
	Settings map[string]groups.Change
}

// errWebPublicDisabled is Zulip's refusal of a web-public channel on a
// server whose web-public channels are off, as chatcore's always are.
func errWebPublicDisabled() *chatcore.Error {
	return chatcore.BadRequest("Web-public channels are not enabled.")
}

// errCannotAdminister refuses a channel change to those outside its
// can_administer_channel_group who are not realm administrators.
func errCannotAdminister() *chatcore.Error {
	return chatcore.BadRequest("You do not have permission to administer this channel.")
}

// adminWorld is what a channel administration reads: the actor, the
// channel, the realm's permissions and the channel's audience.
type adminWorld struct {
	actor *chatcore.User
	st    *chatcore.Stream
	p     *chatcore.Permissions
	// audience are the active users who may know of the channel; active
	// all active users by id.
	audience []chatcore.UserID
	active   map[chatcore.UserID]bool
	subs     []chatcore.UserID
}

// loadAdmin reads the actor and channel id and checks the actor may
// administer it: realm administrators always, others through the channel's
// can_administer_channel_group (its creator by default), even when not
// subscribed to a private one. A channel whose content the actor may not
// reach is "Invalid channel ID", as in Zulip.
func loadAdmin(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, actorID chatcore.UserID, id chatcore.StreamID) (*adminWorld, error) {
	u, st, err := actorAndChannel(ctx, tx, actorID, id)
	if err != nil {
		return nil, err
	}
	if _, err := chatcore.EnsureSystemGroups(ctx, tx, u.RealmID, svc.Now()); err != nil {
		return nil, err
	}
	p, err := chatcore.LoadPermissions(ctx, tx, u.RealmID)
	if err != nil {
		return nil, err
	}
	w := &adminWorld{actor: u, st: st, p: p, active: map[chatcore.UserID]bool{}}
	if err := w.readAudience(ctx, tx); err != nil {
		return nil, err
	}
	subscribed := false
	for _, s := range w.subs {
		subscribed = subscribed || s == u.ID
	}
	if u.Role.IsAdmin() || inChannelSetting(p, u, st, "can_administer_channel_group") {
		return w, nil
	}
	if hasContentAccess(p, u, st, subscribed) {
		return nil, errCannotAdminister()
	}
	return nil, errInvalidChannelID()
}

// readAudience reads the channel's active subscribers and who may know of it.
func (w *adminWorld) readAudience(ctx context.Context, tx chatcore.Tx) error {
	active := true
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: w.st.RealmID, Active: &active})
	if err != nil {
		return err
	}
	subs, err := tx.ActiveSubscriberIDs(ctx, w.st.ID)
	if err != nil {
		return err
	}
	isSub := map[chatcore.UserID]bool{}
	for _, id := range subs {
		isSub[id] = true
	}
	w.subs, w.audience = nil, nil
	for i := range users {
		v := &users[i]
		w.active[v.ID] = true
		if isSub[v.ID] {
			w.subs = append(w.subs, v.ID)
		}
		if canSeeChannel(v, w.st, isSub[v.ID]) {
			w.audience = append(w.audience, v.ID)
		}
	}
	return nil
}

// update records a stream update event of one property.
func (w *adminWorld) update(fx *chatcore.Effects, property string, value any, extra map[string]any) {
	data := map[string]any{"type": "stream", "op": "update", "stream_id": w.st.ID, "name": w.st.Name,
		"property": property, "value": value}
	for k, v := range extra {
		data[k] = v
	}
	fx.Event(w.st.RealmID, w.audience, data)
}

// notify posts the notification bot's message about the channel in it.
func notify(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, st *chatcore.Stream, content string) error {
	bot, err := svc.NotificationBot(ctx, tx, st.RealmID)
	if err != nil {
		return err
	}
	_, err = svc.SendInTx(ctx, tx, fx, bot, chatcore.Destination{StreamID: st.ID, Topic: ChannelEventsTopic, SkipAccessCheck: true}, content, "Internal")
	return err
}

// mention is the silent mention of u in the notification bot's messages.
func mention(u *chatcore.User) string { return fmt.Sprintf("@_**%s|%d**", u.FullName, u.ID) }

// policyName is how the notification bot names a channel's privacy.
func policyName(inviteOnly, historyPublic bool) string {
	switch {
	case !inviteOnly:
		return "Public"
	case historyPublic:
		return "Private, shared history"
	}
	return "Private, protected history"
}

// quoted is Zulip's quote block of a description in the bot's message.
func quoted(s string) string {
	if s == "" {
		return "*No description.*"
	}
	return "```` quote\n" + s + "\n````"
}

// Update changes a channel's name, description, privacy, history or
// permission groups (PATCH /streams/{stream_id}) in one transaction. Realm
// administrators and the members of the channel's
// can_administer_channel_group may. Each change publishes a stream update
// event to those who may know of the channel, and the notification bot
// tells the channel about a new name, description or privacy in the topic
// "channel events". Errors: "Invalid channel ID"; "You do not have
// permission to administer this channel."; the channel name errors;
// "Channel '<name>' already exists"; "Channel description too long (limit:
// 1024 characters)"; "Insufficient permission" when is_private is given
// by someone outside the realm's can_create_private_channel_group (true)
// or can_create_public_channel_group (false), or for a change of
// can_delete_any_message_group or can_delete_own_message_group by someone
// neither administrator nor in can_set_delete_message_policy_group;
// "Web-public channels are not enabled."; "Invalid <setting>"; the
// group-setting errors of package groups; "Channel is archived." for an
// archived channel; "No new data supplied" for an empty request.
func Update(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.StreamID, req UpdateRequest) error {
	if req.NewName == nil && req.Description == nil && req.IsPrivate == nil && req.HistoryPublicToSubscribers == nil && !req.IsWebPublic && len(req.Settings) == 0 {
		return chatcore.BadRequest("No new data supplied")
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		w, err := loadAdmin(ctx, svc, tx, actorID, id)
		if err != nil {
			return err
		}
		st := *w.st
		if st.IsArchived {
			return chatcore.BadRequest("Channel is archived.")
		}
		var notices []string
		if req.NewName != nil {
			name := strings.TrimSpace(*req.NewName)
			if err := checkChannelName(name); err != nil {
				return err
			}
			if name != st.Name {
				other, err := tx.StreamByName(ctx, st.RealmID, name)
				if err == nil && other.ID != st.ID {
					return chatcore.BadRequestf("Channel '%s' already exists", name)
				}
				if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
					return err
				}
				notices = append(notices, fmt.Sprintf("%s renamed channel **%s** to **%s**.", mention(w.actor), st.Name, name))
				w.update(fx, "name", name, nil)
				st.Name = name
			}
		}
		if req.Description != nil && *req.Description != st.Description {
			d := strings.TrimSpace(*req.Description)
			if utf8.RuneCountInString(d) > MaxDescriptionLength {
				return chatcore.BadRequestf("Channel description too long (limit: %d characters)", MaxDescriptionLength)
			}
			html := ""
			if d != "" {
				if html, _, _, err = svc.RenderMessage(ctx, tx, st.RealmID, d); err != nil {
					return err
				}
			}
			notices = append(notices, fmt.Sprintf("%s changed the description for this channel.\n\n* **Old description:**\n%s\n* **New description:**\n%s",
				mention(w.actor), quoted(st.Description), quoted(d)))
			st.Description, st.RenderedDescription = d, html
			w.update(fx, "description", d, map[string]any{"rendered_description": html})
		}
		inviteOnly, history := st.InviteOnly, st.HistoryPublicToSubscribers
		if req.IsPrivate != nil {
			inviteOnly = *req.IsPrivate
			if !inviteOnly {
				history = true // public channels have public history
			}
		}
		if req.HistoryPublicToSubscribers != nil {
			if !*req.HistoryPublicToSubscribers && !inviteOnly {
				return chatcore.BadRequest("Invalid parameters")
			}
			history = *req.HistoryPublicToSubscribers
		}
		if req.IsPrivate != nil {
			// Zulip asks, whether or not the privacy changes, for the
			// permission to create a channel of the privacy asked for.
			name := "can_create_public_channel_group"
			if *req.IsPrivate {
				name = "can_create_private_channel_group"
			}
			if !groups.RealmAllows(w.p, w.actor, name) {
				return chatcore.BadRequest("Insufficient permission")
			}
		}
		if req.IsWebPublic {
			return errWebPublicDisabled()
		}
		if inviteOnly != st.InviteOnly || history != st.HistoryPublicToSubscribers {
			notices = append(notices, fmt.Sprintf("%s changed the [access permissions](/help/channel-permissions) for this channel from **%s** to **%s**.",
				mention(w.actor), policyName(st.InviteOnly, st.HistoryPublicToSubscribers), policyName(inviteOnly, history)))
			privacy := map[string]any{"invite_only": inviteOnly, "history_public_to_subscribers": history, "is_web_public": false}
			if inviteOnly != st.InviteOnly {
				w.update(fx, "invite_only", inviteOnly, privacy)
			}
			if history != st.HistoryPublicToSubscribers {
				w.update(fx, "history_public_to_subscribers", history, privacy)
			}
			st.InviteOnly, st.HistoryPublicToSubscribers = inviteOnly, history
		}
		if err := applyChannelSettings(ctx, tx, fx, w, req.Settings); err != nil {
			return err
		}
		if err := tx.UpdateStream(ctx, &st); err != nil {
			if errors.Is(err, chatcore.ErrConflict) {
				return chatcore.BadRequestf("Channel '%s' already exists", st.Name)
			}
			return err
		}
		for _, n := range notices {
			if err := notify(ctx, svc, tx, fx, &st, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// applyChannelSettings validates and stores the channel's group-setting
// changes, with a stream update event for each.
func applyChannelSettings(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, w *adminWorld, changes map[string]groups.Change) error {
	for _, d := range groups.ChannelSettings {
		c, ok := changes[d.Name]
		if !ok {
			continue
		}
		if c.New == nil {
			return chatcore.BadRequestf("Invalid %s", d.Name)
		}
		if deletePolicySettings[d.Name] && !w.actor.Role.IsAdmin() && !groups.RealmAllows(w.p, w.actor, "can_set_delete_message_policy_group") {
			return chatcore.BadRequest("Insufficient permission")
		}
		cur := w.p.Value(chatcore.SettingOfChannel, int64(w.st.ID), d.Name, d.Default)
		if c.Old != nil && !groups.SameValue(c.Old.GroupSettingValue, cur) {
			return chatcore.BadRequest("'old' value does not match the expected value.")
		}
		if err := groups.CheckValue(w.p, w.active, d, c.New.GroupSettingValue); err != nil {
			return err
		}
		s := chatcore.GroupSetting{RealmID: w.st.RealmID, Kind: chatcore.SettingOfChannel, ObjectID: int64(w.st.ID), Name: d.Name, Value: c.New.GroupSettingValue}
		if err := tx.PutGroupSetting(ctx, s); err != nil {
			return err
		}
		w.update(fx, d.Name, *c.New, nil)
	}
	for name := range changes {
		if _, ok := settingDefOf(name); !ok {
			return chatcore.BadRequestf("Invalid %s", name)
		}
	}
	return nil
}

// deletePolicySettings are the channel settings only the realm's
// administrators and can_set_delete_message_policy_group may change.
var deletePolicySettings = map[string]bool{"can_delete_any_message_group": true, "can_delete_own_message_group": true}

// settingDefOf returns the channel setting name.
func settingDefOf(name string) (groups.SettingDef, bool) {
	for _, d := range groups.ChannelSettings {
		if d.Name == name {
			return d, true
		}
	}
	return groups.SettingDef{}, false
}

// Archive archives a channel (DELETE /streams/{stream_id}), as Zulip now
// does instead of deleting it: it keeps its messages and subscriptions,
// takes no new messages and leaves the lists of active channels. The
// notification bot says so in the channel first. Events: stream delete
// (with the channel's view) and stream update is_archived, to those who
// may know of it; an archived default channel stops being one (with its
// default_streams event). Errors: those of [Update], and "Channel is
// already deactivated" for an archived channel.
func Archive(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.StreamID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		w, err := loadAdmin(ctx, svc, tx, actorID, id)
		if err != nil {
			return err
		}
		if w.st.IsArchived {
			return chatcore.BadRequest("Channel is already deactivated")
		}
		if err := notify(ctx, svc, tx, fx, w.st, fmt.Sprintf("Channel #**%s** has been archived.", w.st.Name)); err != nil {
			return err
		}
		st := *w.st
		st.IsArchived = true
		if err := tx.UpdateStream(ctx, &st); err != nil {
			return err
		}
		view, err := channelView(ctx, svc, tx, &st, len(w.subs), w.p, nil)
		if err != nil {
			return err
		}
		fx.Event(st.RealmID, w.audience, map[string]any{"type": "stream", "op": "delete", "streams": []View{view},
			"stream_ids": []chatcore.StreamID{st.ID}})
		w.update(fx, "is_archived", true, nil)
		return dropDefault(ctx, tx, fx, &st)
	})
}

// Members returns the active subscribers of a channel (GET
// /streams/{stream_id}/members), to anyone who may know of the channel.
// Errors: "Invalid channel ID".
func Members(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.StreamID) ([]chatcore.UserID, error) {
	var out []chatcore.UserID
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, st, err := actorAndChannel(ctx, tx, actorID, id)
		if err != nil {
			return err
		}
		w := &adminWorld{actor: u, st: st, active: map[chatcore.UserID]bool{}}
		if err := w.readAudience(ctx, tx); err != nil {
			return err
		}
		subscribed := false
		for _, s := range w.subs {
			subscribed = subscribed || s == u.ID
		}
		if !canSeeChannel(u, st, subscribed) {
			return errInvalidChannelID()
		}
		out = slicex.OrEmpty(w.subs)
		return nil
	})
	return out, err
}

// checkMayCreate refuses a new channel to those outside the realm's
// can_create_public_channel_group or can_create_private_channel_group
// (role:members by default): "Insufficient permission".
func checkMayCreate(ctx context.Context, tx chatcore.Tx, u *chatcore.User, private bool) error {
	name := "can_create_public_channel_group"
	if private {
		name = "can_create_private_channel_group"
	}
	return groups.RequireRealmPermission(ctx, tx, u, name)
}
