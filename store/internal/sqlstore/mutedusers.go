package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// MutedUsers implements [store.MutedUserStore] through the primary key.
func (x *Tx) MutedUsers(ctx context.Context, user store.UserID) ([]store.MutedUser, error) {
	return scanAll(ctx, x, "muted users", func(r Row, m *store.MutedUser) error {
		return r.Scan(Num(&m.UserID), Num(&m.MutedUserID), Time(&m.DateMuted))
	}, "SELECT user_id, muted_user_id, date_muted FROM muted_users WHERE user_id = $1 ORDER BY muted_user_id", user)
}

// MutersSQL reads who muted the user $1 (see MutersOf).
const MutersSQL = "SELECT user_id FROM muted_users WHERE muted_user_id = $1 ORDER BY user_id"

// MutersOf implements [store.MutedUserStore] through the index on the
// muted user.
func (x *Tx) MutersOf(ctx context.Context, muted store.UserID) ([]store.UserID, error) {
	return scanIDs[store.UserID](ctx, x, "muters", MutersSQL, muted)
}

// AddMutedUser implements [store.MutedUserStore].
func (x *Tx) AddMutedUser(ctx context.Context, m store.MutedUser) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	_, err := x.q.Exec(ctx, "INSERT INTO muted_users (user_id, muted_user_id, date_muted) VALUES ($1, $2, $3)",
		m.UserID, m.MutedUserID, x.d.Time(m.DateMuted))
	return x.classify(err, "mute user")
}

// RemoveMutedUser implements [store.MutedUserStore].
func (x *Tx) RemoveMutedUser(ctx context.Context, user, muted store.UserID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "DELETE FROM muted_users WHERE user_id = $1 AND muted_user_id = $2", user, muted)
	return x.mustAffect(n, err, "unmute user")
}
