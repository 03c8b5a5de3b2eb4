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
	return s.update(ctx, func(tx Tx, fx *effects) error {
		ids := make([]UserID, len(batch))
		for i, p := range batch {
			ids[i] = UserID(p.User)
		}
		users, err := tx.Users(ctx, UserFilter{IDs: ids})
		if err != nil {
			return err
		}
		byID := make(map[UserID]*User, len(users))
		for i := range users {
			byID[users[i].ID] = &users[i]
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
			u := byID[UserID(p.User)]
			if u == nil || u.RealmID != RealmID(p.Realm) {
				continue // deleted, or moved since it reported: nothing to write
			}
			row, write, newlyOnline := applyPresenceReport(old[u.ID], u, p)
			if write {
				rows[u.RealmID] = append(rows[u.RealmID], row)
			}
			if newlyOnline {
				online[u.RealmID] = append(online[u.RealmID], row)
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
			for _, row := range online[realm] {
				u := byID[row.UserID]
				active, connected := presenceTimes(row, u)
				p := legacyPresence(active, connected)
				fx.event(realm, everyone, map[string]any{
					"type": "presence", "email": s.apiEmail(u), "user_id": u.ID,
					"server_timestamp": float64(now.UnixMicro()) / 1e6,
					"presence":         map[string]any{p.Client: p},
				})
			}
		}
		return nil
	})
}

// applyPresenceReport applies the pending reports p of user u to the user's
// stored row (nil when none), as Zulip's do_update_user_presence: a new row
// takes the report; a stored time moves forward only when the report is
// more than presenceMinUpdate later (connected time raised to an active one
// after it). It returns the row to write, whether anything changed, and
// whether the user is newly online: a first report, or an active report
// after more than presenceOnlineAfter without activity.
func applyPresenceReport(old *Presence, u *User, p presence.Pending) (row Presence, write, newlyOnline bool) {
	if old == nil {
		return Presence{UserID: u.ID, RealmID: u.RealmID, LastActive: p.Active, LastConnected: p.Connected}, true, true
	}
	row = *old
	row.RealmID = u.RealmID
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
