// Package realms serves Zulip's PATCH /realm: an organization's settings
// that chatcore models (its name, description and language, the name,
// e-mail and unique-name rules, read receipts, message editing limits and
// the group-based permissions), as a Go
// API over a [chatcore.Service]. Each change is one transaction and
// publishes realm update / update_dict events to the realm's active users.
package realms

import (
	"context"
	"slices"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
)

// MaxNameLength is Zulip's limit on the organization name.
const MaxNameLength = 40

// MaxDescriptionLength is Zulip's Realm.MAX_REALM_DESCRIPTION_LENGTH, in
// characters.
const MaxDescriptionLength = 1000

// ownerSettings are the group settings only the realm's owners change, as
// Zulip's update_realm has them.
var ownerSettings = map[string]bool{
	"create_multiuse_invite_group": true, "can_create_groups": true, "can_invite_users_group": true,
	"can_manage_all_groups": true, "can_manage_billing_group": true,
}

// Limit is a time-limit setting on the wire: seconds, or unlimited.
type Limit struct {
	Seconds   int64
	Unlimited bool
}

// UpdateRequest is PATCH /realm: nil fields are left alone.
type UpdateRequest struct {
	Name *string
	// Description is the organization's description, Markdown (at most
	// MaxDescriptionLength characters).
	Description *string
	// DefaultLanguage is the organization's language, one of the Service's
	// languages ([chatcore.Service.SettingValueSets]).
	DefaultLanguage      *string
	NameChangesDisabled  *bool
	EmailChangesDisabled *bool
	RequireUniqueNames   *bool
	AllowMessageEditing  *bool
	// EnableReadReceipts is Zulip's enable_read_receipts (stored inverted,
	// as Realm.ReadReceiptsDisabled).
	EnableReadReceipts *bool
	// The time limits ("unlimited" or a positive number of seconds).
	ContentEditLimit         *Limit
	ContentDeleteLimit       *Limit
	MoveWithinChannelLimit   *Limit
	MoveBetweenChannelsLimit *Limit
	// Settings are group-setting changes of the realm's permissions
	// ([groups.RealmSettings] and the message policy's groups).
	Settings map[string]groups.Change
}

// policyField returns the MessagePolicy field of a message permission setting.
func policyField(p *chatcore.MessagePolicy, name string) *chatcore.SystemGroup {
	switch name {
	case "can_move_messages_between_topics_group":
		return &p.MoveBetweenTopics
	case "can_move_messages_between_channels_group":
		return &p.MoveBetweenChannels
	case "can_resolve_topics_group":
		return &p.ResolveTopics
	case "can_delete_any_message_group":
		return &p.DeleteAny
	case "can_delete_own_message_group":
		return &p.DeleteOwn
	}
	return nil
}

// limitOf converts a wire limit of setting name.
func limitOf(name string, l *Limit) (chatcore.TimeLimit, error) {
	if l.Unlimited {
		return chatcore.Unlimited, nil
	}
	if l.Seconds <= 0 {
		return 0, chatcore.BadRequestf("Bad value for '%s': %d", name, l.Seconds)
	}
	return chatcore.TimeLimit(l.Seconds), nil
}

// Update changes the settings of the actor's realm (PATCH /realm). Only
// administrators may. Errors: "description is too long (limit: 1000
// characters)"; "Must be an organization administrator"; "Invalid language
// '<code>'"; "Must be an organization owner" for an administrator changing
// create_multiuse_invite_group, can_create_groups, can_invite_users_group,
// can_manage_all_groups or can_manage_billing_group;
// "Organization name is too long."; "Organization name can't be empty.";
// "Bad value for '<setting>': N" for a time limit that is not
// positive; "Invalid <setting>" for an unknown group setting or one of the
// message permissions given a group that is not a system group; the
// group-setting errors of package groups; "No new data supplied".
// Publishes realm update events (one per changed property) and an
// update_dict event with the changed editing limits and permissions.
func Update(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req UpdateRequest) error {
	if req.Description != nil && utf8.RuneCountInString(*req.Description) > MaxDescriptionLength {
		return chatcore.BadRequestf("description is too long (limit: %d characters)", MaxDescriptionLength)
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		if err != nil {
			return err
		}
		if req.DefaultLanguage != nil {
			if _, ok := svc.SettingValueSets().Languages[*req.DefaultLanguage]; !ok {
				return chatcore.BadRequestf("Invalid language '%s'", *req.DefaultLanguage)
			}
		}
		for name := range req.Settings {
			if ownerSettings[name] && u.Role != chatcore.RoleOwner {
				return chatcore.ErrMustBeOwner()
			}
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if _, err := chatcore.EnsureSystemGroups(ctx, tx, realm.ID, svc.Now()); err != nil {
			return err
		}
		p, err := chatcore.LoadPermissions(ctx, tx, realm.ID)
		if err != nil {
			return err
		}
		active := true
		users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm.ID, Active: &active})
		if err != nil {
			return err
		}
		isActive := map[chatcore.UserID]bool{}
		audience := make([]chatcore.UserID, 0, len(users))
		for _, v := range users {
			isActive[v.ID] = true
			audience = append(audience, v.ID)
		}
		r := *realm
		type prop struct {
			name  string
			value any
		}
		var props []prop
		dict := map[string]any{}
		if req.Name != nil && *req.Name != r.Name {
			if utf8.RuneCountInString(*req.Name) > MaxNameLength {
				return chatcore.BadRequest("Organization name is too long.")
			}
			if *req.Name == "" {
				return chatcore.BadRequest("Organization name can't be empty.")
			}
			r.Name = *req.Name
			props = append(props, prop{"name", r.Name})
		}
		if req.Description != nil && *req.Description != r.Description {
			r.Description = *req.Description
			props = append(props, prop{"description", r.Description})
		}
		if req.DefaultLanguage != nil && *req.DefaultLanguage != realmLanguage(&r) {
			r.DefaultLanguage = *req.DefaultLanguage
			props = append(props, prop{"default_language", r.DefaultLanguage})
		}
		for _, b := range []struct {
			name string
			in   *bool
			dst  *bool
		}{
			{"name_changes_disabled", req.NameChangesDisabled, &r.NameChangesDisabled},
			{"email_changes_disabled", req.EmailChangesDisabled, &r.EmailChangesDisabled},
			{"require_unique_names", req.RequireUniqueNames, &r.RequireUniqueNames},
		} {
			if b.in != nil && *b.in != *b.dst {
				*b.dst = *b.in
				props = append(props, prop{b.name, *b.in})
			}
		}
		if req.EnableReadReceipts != nil && *req.EnableReadReceipts == r.ReadReceiptsDisabled {
			r.ReadReceiptsDisabled = !*req.EnableReadReceipts
			props = append(props, prop{"enable_read_receipts", *req.EnableReadReceipts})
		}
		pol := &r.Messages
		if req.AllowMessageEditing != nil && *req.AllowMessageEditing == pol.ContentEditingDisabled {
			pol.ContentEditingDisabled = !*req.AllowMessageEditing
			dict["allow_message_editing"] = *req.AllowMessageEditing
		}
		for _, l := range []struct {
			name string
			in   *Limit
			dst  *chatcore.TimeLimit
			def  int64
		}{
			{"message_content_edit_limit_seconds", req.ContentEditLimit, &pol.ContentEditLimit, int64(chatcore.DefaultContentEditLimit.Seconds())},
			{"message_content_delete_limit_seconds", req.ContentDeleteLimit, &pol.DeleteOwnLimit, int64(chatcore.DefaultDeleteOwnLimit.Seconds())},
			{"move_messages_within_stream_limit_seconds", req.MoveWithinChannelLimit, &pol.MoveWithinChannelLimit, int64(chatcore.DefaultMoveLimit.Seconds())},
			{"move_messages_between_streams_limit_seconds", req.MoveBetweenChannelsLimit, &pol.MoveBetweenChannelsLimit, int64(chatcore.DefaultMoveLimit.Seconds())},
		} {
			if l.in == nil {
				continue
			}
			v, err := limitOf(l.name, l.in)
			if err != nil {
				return err
			}
			*l.dst = v
			if v == chatcore.Unlimited {
				dict[l.name] = nil
			} else {
				dict[l.name] = int64(v)
			}
		}
		names := make([]string, 0, len(req.Settings))
		for n := range req.Settings {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, name := range names {
			c := req.Settings[name]
			if c.New == nil {
				return chatcore.BadRequestf("Invalid %s", name)
			}
			if f := policyField(pol, name); f != nil {
				g := p.Group(c.New.GroupID)
				if c.New.GroupID == 0 || g == nil || !g.IsSystemGroup {
					return chatcore.BadRequestf("Invalid %s", name)
				}
				def, _ := groups.PolicySetting(name)
				if err := groups.CheckValue(p, isActive, def, c.New.GroupSettingValue); err != nil {
					return err
				}
				*f = chatcore.SystemGroup(g.Name)
				dict[name] = *c.New
				continue
			}
			def, ok := groups.RealmSetting(name)
			if !ok {
				return chatcore.BadRequestf("Invalid %s", name)
			}
			cur := p.Value(chatcore.SettingOfRealm, int64(r.ID), name, def.Default)
			if c.Old != nil && !groups.SameValue(c.Old.GroupSettingValue, cur) {
				return chatcore.BadRequest("'old' value does not match the expected value.")
			}
			if err := groups.CheckValue(p, isActive, def, c.New.GroupSettingValue); err != nil {
				return err
			}
			if err := tx.PutGroupSetting(ctx, chatcore.GroupSetting{RealmID: r.ID, Kind: chatcore.SettingOfRealm,
				ObjectID: int64(r.ID), Name: name, Value: c.New.GroupSettingValue}); err != nil {
				return err
			}
			dict[name] = *c.New
		}
		if len(props) == 0 && len(dict) == 0 {
			return chatcore.BadRequest("No new data supplied")
		}
		if err := tx.UpdateRealm(ctx, &r); err != nil {
			return err
		}
		for _, pr := range props {
			fx.Event(r.ID, audience, map[string]any{"type": "realm", "op": "update", "property": pr.name, "value": pr.value})
		}
		if len(dict) > 0 {
			fx.Event(r.ID, audience, map[string]any{"type": "realm", "op": "update_dict", "property": "default", "data": dict})
		}
		return nil
	})
}

// realmLanguage is the realm's language: Zulip's "en" when none is stored.
func realmLanguage(r *chatcore.Realm) string {
	if r.DefaultLanguage == "" {
		return "en"
	}
	return r.DefaultLanguage
}
