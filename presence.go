package chatcore

// Presence: POST /users/me/presence, GET /realm/presence,
// GET /users/{user_id_or_email}/presence and the presence section of
// /register.
//
// Every connected client reports every minute, so a report never waits for
// the store's writer: it is one read-only transaction (the actor, and the
// rows the answer needs) plus a map update in a presence.Buffer, which
// writes the reports of all users in one write transaction per interval
// (flushPresence). Zulip also writes presence asynchronously (through a
// queue worker), so an answer may not yet show the reports of the last
// interval; the next answer does. Update ids come from the store's per-realm
// presence sequence when a batch is written, and stored times never go
// backwards, so several servers on one database stay correct.

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/chatcore/chatcore/internal/presence"
)

// Zulip's presence settings.
const (
	// PresencePingIntervalSeconds is how often clients report presence
	// (server_presence_ping_interval_seconds).
	PresencePingIntervalSeconds = 60
	// PresenceOfflineThresholdSeconds is how long after their last report a
	// user shows as offline (server_presence_offline_threshold_seconds).
	PresenceOfflineThresholdSeconds = 140

	// presenceMinUpdate is PRESENCE_UPDATE_MIN_FREQ_SECONDS: a stored time
	// is moved forward only when the report is this much later.
	presenceMinUpdate = 55 * time.Second
	// presenceActiveOffset is PRESENCE_LEGACY_EVENT_OFFSET_FOR_ACTIVITY_SECONDS:
	// the legacy format shows a user active when their last activity is at
	// most this much older than their last report.
	presenceActiveOffset = 70 * time.Second
	// presenceOnlineAfter is how long a user must have been inactive for an
	// active report to make them newly online (and send a presence event).
	presenceOnlineAfter = (PresenceOfflineThresholdSeconds - PresencePingIntervalSeconds - 10) * time.Second
	// presenceEventUserLimit is USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS:
	// realms with more active users get no presence events.
	presenceEventUserLimit = 100
	// presenceHistoryDays is how far back presence answers go by default.
	presenceHistoryDays = 14
)

// WithPresenceFlush sets how often buffered presence reports are written to
// the store (default 2 s) and after how many users with pending reports
// they are written at once (default 10,000). Non-positive values keep the
// defaults.
func WithPresenceFlush(interval time.Duration, maxPending int) Option {
	return func(s *Service) {
		if interval > 0 {
			s.presenceFlush = interval
		}
		if maxPending > 0 {
			s.presenceMax = maxPending
		}
	}
}

// presenceConfig is the Service's presence machinery.
type presenceConfig struct {
	presenceFlush time.Duration
	presenceMax   int
	presence      *presence.Buffer
}

// startPresence builds the report buffer once the options are applied.
func (s *Service) startPresence() {
	if s.presenceFlush <= 0 {
		s.presenceFlush = 2 * time.Second
	}
	if s.presenceMax <= 0 {
		s.presenceMax = 10000
	}
	s.presence = presence.New(s.presenceFlush, s.presenceMax, s.flushPresence, func(err error) {
		s.log.Error("chatcore: writing presence", "err", err)
	})
}

// FlushPresence writes the buffered presence reports to the store now,
// instead of at the next interval ([WithPresenceFlush]); reports of a failed
// write stay buffered. [Service.Shutdown] flushes too.
func (s *Service) FlushPresence(ctx context.Context) error { return s.presence.Flush(ctx) }

// UpdatePresenceRequest is POST /users/me/presence.
type UpdatePresenceRequest struct {
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

// PresenceAnswer is the presence data of an answer: Presences keyed by user
// id (modern format, each a [PresenceTimes]) or by e-mail (legacy format,
// each a map with "aggregated" and "website"), the server time in seconds,
// and the update id to send as last_update_id next time.
type PresenceAnswer struct {
	Presences       map[string]any
	ServerTimestamp float64
	LastUpdateID    int64
}

// PresenceTimes is a user's presence in the modern format: when they were
// last active and last connected, in unix seconds.
type PresenceTimes struct {
	ActiveTimestamp int64 `json:"active_timestamp"`
	IdleTimestamp   int64 `json:"idle_timestamp"`
}

// LegacyPresence is one client entry of the legacy format ("website" and,
// without client and pushable, "aggregated").
type LegacyPresence struct {
	Client    string `json:"client,omitempty"`
	Status    string `json:"status"`
	Timestamp int64  `json:"timestamp"`
	Pushable  *bool  `json:"pushable,omitempty"`
}

// UpdatePresence records a presence report of the actor (a human) and, unless
// PingOnly, answers the realm's presence as Zulip's update_active_status:
// the rows of active human users, in the modern format with SlimPresence or
// LastUpdateID, changed since LastUpdateID when given, of users who reported
// in within HistoryLimitDays (unless a positive LastUpdateID is given). The
// report is written with the next batch (see [WithPresenceFlush]); a user
// newly online gets a presence event to the realm then. A user whose
// presence_enabled setting is off reports nothing (the answer is the same). With PingOnly the
// answer is the zero PresenceAnswer (and the caller sends no presence data).
//
// Errors: BAD_REQUEST "Invalid status: x"; UNAUTHORIZED for a missing or
// deactivated actor. It never waits for the store's writer.
func (s *Service) UpdatePresence(ctx context.Context, actorID UserID, req UpdatePresenceRequest) (PresenceAnswer, error) {
	if req.Status != "active" && req.Status != "idle" {
		return PresenceAnswer{}, BadRequestf("Invalid status: %s", req.Status)
	}
	slim := req.LastUpdateID != nil || req.SlimPresence != nil && *req.SlimPresence
	now := s.clock.Now()
	var ans PresenceAnswer
	err := s.View(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if u.Settings.PresenceEnabled { // the setting stops presence updates altogether
			s.presence.Add(presence.Report{User: int64(u.ID), Realm: int64(u.RealmID), At: now, Active: req.Status == "active"})
		}
		if req.PingOnly != nil && *req.PingOnly {
			return nil
		}
		ans, err = s.presenceAnswer(ctx, tx, u.RealmID, now, slim, req.LastUpdateID, req.HistoryLimitDays)
		return err
	})
	return ans, err
}

// RealmPresence answers GET /realm/presence: the legacy-format presence of
// the realm's active human users who reported in within 14 days (Zulip
// leaves presence_last_update_id out of this answer).
func (s *Service) RealmPresence(ctx context.Context, actorID UserID) (PresenceAnswer, error) {
	var ans PresenceAnswer
	err := s.View(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		ans, err = s.presenceAnswer(ctx, tx, u.RealmID, s.clock.Now(), false, nil, nil)
		return err
	})
	return ans, err
}

// UserPresence answers GET /users/{user_id_or_email}/presence: the presence of
// one user of the actor's realm, named by id or e-mail, in the modern format
// with slim ({"active_timestamp", "idle_timestamp"}) or else in the legacy
// one without client and pushable, where "aggregated" says "offline" once
// the user's last report is older than the offline threshold.
//
// Errors (BAD_REQUEST): "No such user" (unknown, deactivated, or of another
// realm); "Presence is not supported for bot users."; "No presence data for
// x" when the user never reported in.
func (s *Service) UserPresence(ctx context.Context, actorID UserID, userIDOrEmail string, slim bool) (map[string]any, error) {
	var out map[string]any
	err := s.View(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		var target *User
		if id, perr := strconv.ParseInt(userIDOrEmail, 10, 64); perr == nil {
			target, err = UserInRealm(ctx, tx, u.RealmID, UserID(id))
		} else {
			target, err = tx.UserByEmail(ctx, u.RealmID, userIDOrEmail)
		}
		if errors.Is(err, ErrNotFound) || err == nil && !target.IsActive {
			return BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		if target.IsBot {
			return BadRequest("Presence is not supported for bot users.")
		}
		rows, err := tx.UserPresences(ctx, []UserID{target.ID})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			return BadRequestf("No presence data for %s", userIDOrEmail)
		}
		active, connected := presenceTimes(rows[0], target)
		if slim {
			out = map[string]any{"active_timestamp": active.Unix(), "idle_timestamp": connected.Unix()}
			return nil
		}
		p := legacyPresence(active, connected)
		agg := LegacyPresence{Status: p.Status, Timestamp: p.Timestamp}
		if s.clock.Now().Unix()-agg.Timestamp > PresenceOfflineThresholdSeconds {
			agg.Status = "offline"
		}
		out = map[string]any{"aggregated": agg, "website": LegacyPresence{Status: p.Status, Timestamp: p.Timestamp}}
		return nil
	})
	return out, err
}

// presenceAnswer reads the realm's presence as Zulip's get_presence_dict_by_realm.
func (s *Service) presenceAnswer(ctx context.Context, tx Tx, realm RealmID, now time.Time, slim bool, lastUpdateID *int64, historyDays *int) (PresenceAnswer, error) {
	ans := PresenceAnswer{Presences: map[string]any{}, ServerTimestamp: float64(now.UnixMicro()) / 1e6, LastUpdateID: -1}
	if lastUpdateID != nil {
		ans.LastUpdateID = *lastUpdateID
	}
	days := presenceHistoryDays
	if historyDays != nil {
		days = *historyDays
	}
	if days == 0 {
		return ans, nil
	}
	q := PresenceQuery{RealmID: realm}
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
	ids := make([]UserID, len(rows))
	for i, r := range rows {
		ids[i] = r.UserID
		ans.LastUpdateID = max(ans.LastUpdateID, r.LastUpdateID)
	}
	users, err := tx.Users(ctx, UserFilter{RealmID: realm, IDs: ids})
	if err != nil {
		return ans, err
	}
	byID := make(map[UserID]*User, len(users))
	for i := range users {
		byID[users[i].ID] = &users[i]
	}
	for _, r := range rows {
		u := byID[r.UserID]
		if u == nil {
			continue
		}
		active, connected := presenceTimes(r, u)
		if slim {
			ans.Presences[strconv.FormatInt(int64(u.ID), 10)] = PresenceTimes{active.Unix(), connected.Unix()}
			continue
		}
		p := legacyPresence(active, connected)
		ans.Presences[s.APIEmail(u)] = map[string]any{
			"aggregated": LegacyPresence{Client: p.Client, Status: p.Status, Timestamp: p.Timestamp},
			"website":    p,
		}
	}
	return ans, nil
}

// presenceTimes returns a row's times, a missing one being the user's
// joining time (as Zulip answers for a user never active).
func presenceTimes(p Presence, u *User) (active, connected time.Time) {
	active, connected = p.LastActive, p.LastConnected
	if active.IsZero() {
		active = u.DateJoined
	}
	if connected.IsZero() {
		connected = u.DateJoined
	}
	return active, connected
}

// legacyPresence is Zulip's format_legacy_presence_dict: active with the time
// of the last activity when that is at most presenceActiveOffset older than
// the last report, else idle with the time of the last report.
func legacyPresence(active, connected time.Time) LegacyPresence {
	p := LegacyPresence{Client: "website", Status: "idle", Timestamp: connected.Unix(), Pushable: new(false)}
	if !active.Add(presenceActiveOffset).Before(connected) {
		p.Status, p.Timestamp = "active", active.Unix()
	}
	return p
}

// RegisterPresence fills the presence section of /register when wanted: the
// realm's presence as [Service.UpdatePresence] answers it without a
// last_update_id.
func (s *Service) RegisterPresence(ctx context.Context, tx Tx, u *User, req RegisterRequest, want func(string) bool, st *RegisterState) error {
	if !want("presence") {
		return nil
	}
	ans, err := s.presenceAnswer(ctx, tx, u.RealmID, s.clock.Now(), req.SlimPresence, nil, req.PresenceHistoryLimitDays)
	st.Presence = &ans
	return err
}
