package chatcore

// Presence reports: the buffer behind package presence's POST
// /users/me/presence, GET /realm/presence, GET
// /users/{user_id_or_email}/presence and the presence section of /register.
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
	"maps"
	"slices"
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

// ReportPresence buffers a presence report of u at the time given, written
// with the next batch ([WithPresenceFlush]); active says the user is active,
// not idle. It never waits for the store's writer. It applies no rule: the
// caller checks that u is an active human whose presence_enabled setting is
// on (package presence's Update does).
func (s *Service) ReportPresence(u *User, at time.Time, active bool) {
	s.presence.Add(presence.Report{User: int64(u.ID), Realm: int64(u.RealmID), At: at, Active: active})
}

// FlushPresence writes the buffered presence reports to the store now,
// instead of at the next interval ([WithPresenceFlush]); reports of a failed
// write stay buffered. [Service.Shutdown] flushes too.
func (s *Service) FlushPresence(ctx context.Context) error { return s.presence.Flush(ctx) }

// LegacyPresence is one client entry of the legacy format ("website" and,
// without client and pushable, "aggregated").
type LegacyPresence struct {
	Client    string `json:"client,omitempty"`
	Status    string `json:"status"`
	Timestamp int64  `json:"timestamp"`
	Pushable  *bool  `json:"pushable,omitempty"`
}

// LegacyPresenceOf is Zulip's format_legacy_presence_dict: active with the time
// of the last activity when that is at most presenceActiveOffset older than
// the last report, else idle with the time of the last report.
func LegacyPresenceOf(active, connected time.Time) LegacyPresence {
	p := LegacyPresence{Client: "website", Status: "idle", Timestamp: connected.Unix(), Pushable: new(false)}
	if !active.Add(presenceActiveOffset).Before(connected) {
		p.Status, p.Timestamp = "active", active.Unix()
	}
	return p
}

// flushPresence writes a batch of buffered reports in one write transaction,
// applying each as Zulip's do_update_user_presence does to the user's stored
// row, and records a presence event for each user newly online.
func (s *Service) flushPresence(ctx context.Context, batch []presence.Pending) error {
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		ids := make([]UserID, len(batch))
		for i, p := range batch {
			ids[i] = UserID(p.User)
		}
		stored, err := tx.UserPresences(ctx, ids)
		if err != nil {
			return err
		}
		old := make(map[UserID]*Presence, len(stored))
		for i := range stored {
			old[stored[i].UserID] = &stored[i]
		}
		rows := map[RealmID][]Presence{}
		online := map[RealmID][]Presence{}
		for _, p := range batch {
			// Users never leave their realm and are never deleted, so the
			// report's realm is the user's.
			row, write, newlyOnline := applyPresenceReport(old[UserID(p.User)], p)
			if write {
				rows[row.RealmID] = append(rows[row.RealmID], row)
			}
			if newlyOnline {
				online[row.RealmID] = append(online[row.RealmID], row)
			}
		}
		for _, realm := range slices.Sorted(maps.Keys(rows)) {
			if err := tx.PutPresences(ctx, realm, rows[realm]); err != nil {
				return err
			}
		}
		now := s.clock.Now()
		for _, realm := range slices.Sorted(maps.Keys(online)) {
			everyone, err := ActiveUserIDs(ctx, tx, realm)
			if err != nil {
				return err
			}
			if len(everyone) > presenceEventUserLimit {
				continue
			}
			ids := make([]UserID, len(online[realm]))
			for i, row := range online[realm] {
				ids[i] = row.UserID
			}
			users, err := tx.Users(ctx, UserFilter{RealmID: realm, IDs: ids})
			if err != nil {
				return err
			}
			byID := make(map[UserID]*User, len(users))
			for i := range users {
				byID[users[i].ID] = &users[i]
			}
			for _, row := range online[realm] {
				u := byID[row.UserID]
				if u == nil {
					continue
				}
				active, connected := row.Times(u)
				p := LegacyPresenceOf(active, connected)
				fx.Event(realm, everyone, map[string]any{
					"type": "presence", "email": s.APIEmail(u), "user_id": u.ID,
					"server_timestamp": float64(now.UnixMicro()) / 1e6,
					"presence":         map[string]any{p.Client: p},
				})
				fx.events[len(fx.events)-1].modernPresence = map[string]any{strconv.FormatInt(int64(u.ID), 10): map[string]int64{
					"active_timestamp": active.Unix(), "idle_timestamp": connected.Unix()}}
			}
		}
		return nil
	})
}

// applyPresenceReport applies a user's pending reports p to their stored
// row (nil when none), as Zulip's do_update_user_presence: a new row
// takes the report; a stored time moves forward only when the report is
// more than presenceMinUpdate later (connected time raised to an active one
// after it). It returns the row to write, whether anything changed, and
// whether the user is newly online: a first report, or an active report
// after more than presenceOnlineAfter without activity.
func applyPresenceReport(old *Presence, p presence.Pending) (row Presence, write, newlyOnline bool) {
	if old == nil {
		return Presence{UserID: UserID(p.User), RealmID: RealmID(p.Realm), LastActive: p.Active, LastConnected: p.Connected}, true, true
	}
	row = *old
	row.RealmID = RealmID(p.Realm)
	if p.Connected.Sub(old.LastConnected) > presenceMinUpdate {
		row.LastConnected, write = p.Connected, true
	}
	if !p.Active.IsZero() {
		newlyOnline = old.LastActive.IsZero() || p.Active.Sub(old.LastActive) > presenceOnlineAfter
		if old.LastActive.IsZero() || p.Active.Sub(old.LastActive) > presenceMinUpdate {
			row.LastActive, write = p.Active, true
			if p.Active.After(row.LastConnected) {
				row.LastConnected = p.Active
			}
		}
	}
	return row, write, newlyOnline
}
