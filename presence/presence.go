// Package presence applies Zulip's presence rules: POST /users/me/presence,
// GET /realm/presence, GET /users/{user_id_or_email}/presence and the
// presence section of /register. Reports are buffered by the Service
// ([chatcore.Service.ReportPresence]) and written in batches, so a report
// never waits for the store's writer.
package presence

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/chatcore/chatcore"
)

// defaultHistoryDays is how far back presence answers go by default.
const defaultHistoryDays = 14

// Answer is the presence data of an answer: Presences keyed by user
// id (modern format, each a [Times]) or by e-mail (legacy format,
// each a map with "aggregated" and "website"), the server time in seconds,
// and the update id to send as last_update_id next time.
type Answer struct {
	Presences       map[string]any
	ServerTimestamp float64
	LastUpdateID    int64
}

// UpdateRequest is POST /users/me/presence.
type UpdateRequest struct {
	// Status is "active" or "idle".
	Status string `json:"status" wire:"required"`
	// PingOnly asks for no presence data in the answer.
	PingOnly *bool `json:"ping_only"`
	// NewUserInput is accepted and has no effect (Zulip records user
	// activity intervals with it, which chatcore does not model).
	NewUserInput *bool `json:"new_user_input"`
	// SlimPresence asks for the modern format (keyed by user id).
	SlimPresence *bool `json:"slim_presence"`
	// LastUpdateID asks for the rows changed since that presence update id
	// (and implies the modern format).
	LastUpdateID *int64 `json:"last_update_id"`
	// HistoryLimitDays limits the answer to users who reported in that many
	// last days (default 14; 0: none).
	HistoryLimitDays *int `json:"history_limit_days"`
}

// Times is a user's presence in the modern format: when they were
// last active and last connected, in unix seconds.
type Times struct {
	ActiveTimestamp int64 `json:"active_timestamp"`
	IdleTimestamp   int64 `json:"idle_timestamp"`
}

// Update records a presence report of the actor (a human) and, unless
// PingOnly, answers the realm's presence as Zulip's update_active_status:
// the rows of active human users, in the modern format with SlimPresence or
// LastUpdateID, changed since LastUpdateID when given, of users who reported
// in within HistoryLimitDays (unless a positive LastUpdateID is given). The
// report is written with the next batch (see [chatcore.WithPresenceFlush]); a user
// newly online gets a presence event to the realm then. A user whose
// presence_enabled setting is off reports nothing (the answer is the same). With PingOnly the
// answer is the zero Answer (and the caller sends no presence data).
//
// Errors: BAD_REQUEST "Invalid status: x"; UNAUTHORIZED for a missing or
// deactivated actor. It never waits for the store's writer.
func Update(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req UpdateRequest) (Answer, error) {
	if req.Status != "active" && req.Status != "idle" {
		return Answer{}, chatcore.BadRequestf("Invalid status: %s", req.Status)
	}
	slim := req.LastUpdateID != nil || req.SlimPresence != nil && *req.SlimPresence
	now := svc.Now()
	var ans Answer
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if u.Settings.PresenceEnabled { // the setting stops presence updates altogether
			svc.ReportPresence(u, now, req.Status == "active")
		}
		if req.PingOnly != nil && *req.PingOnly {
			return nil
		}
		ans, err = presenceAnswer(ctx, svc, tx, u.RealmID, now, slim, req.LastUpdateID, req.HistoryLimitDays)
		return err
	})
	return ans, err
}

// Realm answers GET /realm/presence: the legacy-format presence of
// the realm's active human users who reported in within 14 days (Zulip
// leaves presence_last_update_id out of this answer).
func Realm(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) (Answer, error) {
	var ans Answer
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		ans, err = presenceAnswer(ctx, svc, tx, u.RealmID, svc.Now(), false, nil, nil)
		return err
	})
	return ans, err
}

// User answers GET /users/{user_id_or_email}/presence: the presence of
// one user of the actor's realm, named by id or e-mail, in the modern format
// with slim ({"active_timestamp", "idle_timestamp"}) or else in the legacy
// one without client and pushable, where "aggregated" says "offline" once
// the user's last report is older than the offline threshold.
//
// Errors (BAD_REQUEST): "No such user" (unknown, deactivated, or of another
// realm); "Presence is not supported for bot users."; "No presence data for
// x" when the user never reported in.
func User(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, userIDOrEmail string, slim bool) (map[string]any, error) {
	var out map[string]any
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		var target *chatcore.User
		if id, perr := strconv.ParseInt(userIDOrEmail, 10, 64); perr == nil {
			target, err = chatcore.UserInRealm(ctx, tx, u.RealmID, chatcore.UserID(id))
		} else {
			target, err = tx.UserByEmail(ctx, u.RealmID, userIDOrEmail)
		}
		if errors.Is(err, chatcore.ErrNotFound) || err == nil && !target.IsActive {
			return chatcore.BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		if target.IsBot {
			return chatcore.BadRequest("Presence is not supported for bot users.")
		}
		rows, err := tx.UserPresences(ctx, []chatcore.UserID{target.ID})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return chatcore.BadRequestf("No presence data for %s", userIDOrEmail)
		}
		active, connected := rows[0].Times(target)
		if slim {
			out = map[string]any{"active_timestamp": active.Unix(), "idle_timestamp": connected.Unix()}
			return nil
		}
		p := chatcore.LegacyPresenceOf(active, connected)
		agg := chatcore.LegacyPresence{Status: p.Status, Timestamp: p.Timestamp}
		if svc.Now().Unix()-agg.Timestamp > chatcore.PresenceOfflineThresholdSeconds {
			agg.Status = "offline"
		}
		out = map[string]any{"aggregated": agg, "website": chatcore.LegacyPresence{Status: p.Status, Timestamp: p.Timestamp}}
		return nil
	})
	return out, err
}

// presenceAnswer reads the realm's presence as Zulip's get_presence_dict_by_realm.
func presenceAnswer(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, realm chatcore.RealmID, now time.Time, slim bool, lastUpdateID *int64, historyDays *int) (Answer, error) {
	ans := Answer{Presences: map[string]any{}, ServerTimestamp: float64(now.UnixMicro()) / 1e6, LastUpdateID: -1}
	if lastUpdateID != nil {
		ans.LastUpdateID = *lastUpdateID
	}
	days := defaultHistoryDays
	if historyDays != nil {
		days = *historyDays
	}
	if days == 0 {
		return ans, nil
	}
	q := chatcore.PresenceQuery{RealmID: realm}
	if lastUpdateID != nil {
		q.AfterUpdateID = *lastUpdateID
	}
	if lastUpdateID == nil || *lastUpdateID <= 0 {
		q.ConnectedSince = now.AddDate(0, 0, -days)
	}
	rows, err := tx.Presences(ctx, q)
	if err != nil || len(rows) == 0 {
		return ans, err
	}
	ids := make([]chatcore.UserID, len(rows))
	for i, r := range rows {
		ids[i] = r.UserID
		ans.LastUpdateID = max(ans.LastUpdateID, r.LastUpdateID)
	}
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm, IDs: ids})
	if err != nil {
		return ans, err
	}
	byID := make(map[chatcore.UserID]*chatcore.User, len(users))
	for i := range users {
		byID[users[i].ID] = &users[i]
	}
	for _, r := range rows {
		u := byID[r.UserID]
		if u == nil {
			continue
		}
		active, connected := r.Times(u)
		if slim {
			ans.Presences[strconv.FormatInt(int64(u.ID), 10)] = Times{active.Unix(), connected.Unix()}
			continue
		}
		p := chatcore.LegacyPresenceOf(active, connected)
		ans.Presences[svc.APIEmail(u)] = map[string]any{
			"aggregated": chatcore.LegacyPresence{Client: p.Client, Status: p.Status, Timestamp: p.Timestamp},
			"website":    p,
		}
	}
	return ans, nil
}

// State is the presence section of /register for u: the realm's presence as
// [Update] answers it without a last_update_id, in the modern format with
// slim, of users who reported in within historyDays (nil: 14).
func State(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, u *chatcore.User, slim bool, historyDays *int) (Answer, error) {
	return presenceAnswer(ctx, svc, tx, u.RealmID, svc.Now(), slim, nil, historyDays)
}
