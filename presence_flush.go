package chatcore

import (
	"context"
	"maps"
	"slices"

	"github.com/chatcore/chatcore/internal/presence"
)

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
			everyone, err := activeUserIDs(ctx, tx, realm)
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
				active, connected := presenceTimes(row, u)
				p := legacyPresence(active, connected)
				fx.Event(realm, everyone, map[string]any{
					"type": "presence", "email": s.APIEmail(u), "user_id": u.ID,
					"server_timestamp": float64(now.UnixMicro()) / 1e6,
					"presence":         map[string]any{p.Client: p},
				})
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
