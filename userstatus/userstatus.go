// Package userstatus applies Zulip's rules for user statuses: POST
// /users/me/status, GET /users/{user_id}/status, user_status events and
// the user_status section of POST /register.
package userstatus

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/reactions"
	"github.com/chatcore/chatcore/store"
)

// MaxStatusText is the longest status text in characters, as Zulip's.
const MaxStatusText = 60

// UpdateRequest is the parameters of POST /users/me/status; absent ones
// leave the status as it is.
type UpdateRequest struct {
	// Away is Zulip's deprecated way to set presence_enabled (to !Away).
	Away       *bool   `json:"away"`
	StatusText *string `json:"status_text"`
	// EmojiName "" clears the emoji; EmojiCode and ReactionType are looked
	// up from EmojiName when absent.
	EmojiName    *string `json:"emoji_name"`
	EmojiCode    *string `json:"emoji_code"`
	ReactionType *string `json:"reaction_type" wire:"alias=emoji_type"`
}

// View is a status as Zulip's format_user_status shows it: only the parts
// that are set ("away" when the user's presence_enabled is off).
type View map[string]any

// Update changes the actor's status, as Zulip's update_user_status_backend
// and do_update_user_status: the text is trimmed; an emoji name "" clears
// the emoji; away sets presence_enabled to its opposite (with a
// "user_settings" event to the actor). A "user_status" event with the
// user id and the parameters given goes to every active user of the realm.
//
// Errors (BAD_REQUEST): "Client did not pass any new values." when away,
// status_text and emoji_name are all absent; "status_text is too long
// (limit: 60 characters)"; the emoji errors of reactions.ResolveEmoji.
func Update(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req UpdateRequest) error {
	var text *string
	if req.StatusText != nil {
		t := strings.TrimSpace(*req.StatusText)
		if utf8.RuneCountInString(t) > MaxStatusText {
			return chatcore.BadRequestf("status_text is too long (limit: %d characters)", MaxStatusText)
		}
		text = &t
	}
	if req.Away == nil && text == nil && req.EmojiName == nil {
		return chatcore.BadRequest("Client did not pass any new values.")
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		var code, typ string
		if req.EmojiName != nil {
			if *req.EmojiName == "" {
				code, typ = "", reactions.UnicodeEmoji
			} else if code, typ, err = reactions.ResolveEmoji(ctx, tx, u.RealmID, *req.EmojiName, req.EmojiCode, req.ReactionType); err != nil {
				return err
			}
		}
		if req.Away != nil && u.Settings.PresenceEnabled == *req.Away {
			v := !*req.Away
			if err := tx.UpdateUserSettings(ctx, u.ID, []store.SettingValue{{Name: "presence_enabled", Value: v}}); err != nil {
				return err
			}
			if err := tx.RecordSettingEdits(ctx, u.ID, []string{"presence_enabled"}); err != nil {
				return err
			}
			fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "user_settings", "op": "update", "property": "presence_enabled", "value": v})
		}
		s, err := tx.UserStatus(ctx, u.ID)
		if errors.Is(err, chatcore.ErrNotFound) {
			s, err = &store.UserStatus{UserID: u.ID, ReactionType: reactions.UnicodeEmoji}, nil
		}
		if err != nil {
			return err
		}
		s.RealmID, s.Updated = u.RealmID, svc.Now().UTC()
		if text != nil {
			s.StatusText = *text
		}
		if req.EmojiName != nil {
			s.EmojiName, s.EmojiCode, s.ReactionType = *req.EmojiName, code, typ
		}
		if err := tx.PutUserStatus(ctx, *s); err != nil {
			return err
		}
		ev := map[string]any{"type": "user_status", "user_id": u.ID}
		if req.Away != nil {
			ev["away"] = *req.Away
		}
		if text != nil {
			ev["status_text"] = *text
		}
		if req.EmojiName != nil {
			ev["emoji_name"], ev["emoji_code"], ev["reaction_type"] = *req.EmojiName, code, typ
		}
		everyone, err := chatcore.ActiveUserIDs(ctx, tx, u.RealmID)
		if err != nil {
			return err
		}
		fx.Event(u.RealmID, everyone, ev)
		return nil
	})
}

// Get returns a user's status as GET /users/{user_id}/status shows it (an
// empty View when they set none).
//
// Errors (BAD_REQUEST): "No such user" for a user not in the actor's realm
// or deactivated.
func Get(ctx context.Context, svc *chatcore.Service, actorID, userID chatcore.UserID) (View, error) {
	var out View
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		t, err := tx.User(ctx, userID)
		if errors.Is(err, chatcore.ErrNotFound) || err == nil && (t.RealmID != u.RealmID || !t.IsActive) {
			return chatcore.BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		s, err := tx.UserStatus(ctx, t.ID)
		if errors.Is(err, chatcore.ErrNotFound) {
			s, err = &store.UserStatus{}, nil
		}
		if err != nil {
			return err
		}
		out = view(s, t)
		return nil
	})
	return out, err
}

// view is Zulip's format_user_status.
func view(s *store.UserStatus, u *chatcore.User) View {
	v := View{}
	if !u.Settings.PresenceEnabled {
		v["away"] = true
	}
	if s.StatusText != "" {
		v["status_text"] = s.StatusText
	}
	if s.EmojiName != "" {
		v["emoji_name"], v["emoji_code"], v["reaction_type"] = s.EmojiName, s.EmojiCode, s.ReactionType
	}
	return v
}

// State returns the user_status section of POST /register for the realm:
// the statuses of its active users that show anything, by user id (as a
// decimal string), as Zulip's get_all_users_status_dict.
func State(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID) (map[string]View, error) {
	rows, err := tx.UserStatuses(ctx, realm)
	if err != nil {
		return nil, err
	}
	out := map[string]View{}
	if len(rows) == 0 {
		return out, nil
	}
	ids := make([]chatcore.UserID, len(rows))
	for i, r := range rows {
		ids[i] = r.UserID
	}
	active := true
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm, IDs: ids, Active: &active})
	if err != nil {
		return nil, err
	}
	byID := make(map[chatcore.UserID]*chatcore.User, len(users))
	for i := range users {
		byID[users[i].ID] = &users[i]
	}
	for i := range rows {
		u := byID[rows[i].UserID]
		if u == nil {
			continue
		}
		if v := view(&rows[i], u); len(v) > 0 {
			out[strconv.FormatInt(int64(u.ID), 10)] = v
		}
	}
	return out, nil
}
