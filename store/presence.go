package store

import (
	"context"
	"time"
)

// Presence is a user's presence row, as Zulip's UserPresence: when one of
// the user's clients last reported in, and when it last reported the user
// active.
type Presence struct {
	UserID  UserID
	RealmID RealmID
	// LastActive is when the user was last active; zero when never.
	LastActive time.Time
	// LastConnected is when a client of the user last reported in.
	LastConnected time.Time
	// LastUpdateID is the number the realm's presence sequence gave the
	// row's last change (see [PresenceStore.PutPresences]).
	LastUpdateID int64
}

// PresenceQuery selects presence rows of one realm (see
// [PresenceStore.Presences]).
type PresenceQuery struct {
	RealmID RealmID
	// AfterUpdateID keeps rows whose LastUpdateID is above it (0: all rows).
	AfterUpdateID int64
	// ConnectedSince, when non-zero, keeps rows whose LastConnected is not
	// before it.
	ConnectedSince time.Time
}

// PresenceStore persists presence rows, one per user, and each realm's
// presence sequence (Zulip's PresenceSequence): a counter, 0 for a realm
// that never had a presence change, that numbers every change so clients
// can ask for what changed since the number they last saw. Every method is
// one set-based statement (no statement per row).
type PresenceStore interface {
	// Presences returns the rows matching q of the realm's active human
	// users (rows of deactivated users and bots are left out), ordered by
	// user id.
	Presences(ctx context.Context, q PresenceQuery) ([]Presence, error)
	// UserPresences returns the rows of the users among ids that have one,
	// whatever the users' state, ordered by user id.
	UserPresences(ctx context.Context, ids []UserID) ([]Presence, error)
	// PutPresences writes rows, all of realm and at most one per user: it
	// takes len(rows) numbers from the realm's presence sequence, sets
	// rows[i].LastUpdateID to the i-th of them (ascending), and inserts each
	// user's row or replaces it. Times never go backwards: a stored
	// LastActive or LastConnected later than the row's is kept (so two
	// servers writing one user at once keep the later report). A user that
	// does not exist gives ErrNotFound; no rows is a no-op.
	PutPresences(ctx context.Context, realm RealmID, rows []Presence) error
}

// Times returns the row's last active and last connected times, a missing one
// being u's joining time (as Zulip answers for a user never active).
func (p Presence) Times(u *User) (active, connected time.Time) {
	active, connected = p.LastActive, p.LastConnected
	if active.IsZero() {
		active = u.DateJoined
	}
	if connected.IsZero() {
		connected = u.DateJoined
	}
	return active, connected
}
