package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

const userStatusCols = "user_id, realm_id, status_text, emoji_name, emoji_code, reaction_type, updated"

func scanUserStatus(r Row, s *store.UserStatus) error {
	return r.Scan(Num(&s.UserID), Num(&s.RealmID), &s.StatusText, &s.EmojiName, &s.EmojiCode, &s.ReactionType, Time(&s.Updated))
}

// UserStatus implements [store.UserStatusStore].
func (x *Tx) UserStatus(ctx context.Context, user store.UserID) (*store.UserStatus, error) {
	var s store.UserStatus
	err := scanUserStatus(x.q.QueryRow(ctx, "SELECT "+userStatusCols+" FROM user_statuses WHERE user_id = $1", user), &s)
	if err != nil {
		return nil, x.classify(err, "user status")
	}
	return &s, nil
}

// UserStatuses implements [store.UserStatusStore] through the realm index.
func (x *Tx) UserStatuses(ctx context.Context, realm store.RealmID) ([]store.UserStatus, error) {
	return scanAll(ctx, x, "user statuses", scanUserStatus,
		"SELECT "+userStatusCols+" FROM user_statuses WHERE realm_id = $1 ORDER BY user_id", realm)
}

// PutUserStatus implements [store.UserStatusStore] with one upsert.
func (x *Tx) PutUserStatus(ctx context.Context, s store.UserStatus) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	_, err := x.q.Exec(ctx, "INSERT INTO user_statuses ("+userStatusCols+`) VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (user_id) DO UPDATE SET realm_id = excluded.realm_id, status_text = excluded.status_text,
			emoji_name = excluded.emoji_name, emoji_code = excluded.emoji_code,
			reaction_type = excluded.reaction_type, updated = excluded.updated`,
		s.UserID, s.RealmID, s.StatusText, s.EmojiName, s.EmojiCode, s.ReactionType, x.d.Time(s.Updated))
	return x.classify(err, "put user status")
}
