package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

const emailChangeCols = "key, user_id, realm_id, old_email, new_email, created_at"

// CreateEmailChange implements [store.EmailChangeStore].
func (x *Tx) CreateEmailChange(ctx context.Context, c *store.EmailChange) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	_, err := x.q.Exec(ctx, "INSERT INTO email_changes ("+emailChangeCols+") VALUES ($1, $2, $3, $4, $5, $6)",
		c.Key, int64(c.UserID), int64(c.RealmID), c.OldEmail, c.NewEmail, x.d.Time(c.CreatedAt))
	return x.classify(err, "create email change")
}

// EmailChange implements [store.EmailChangeStore].
func (x *Tx) EmailChange(ctx context.Context, key string) (*store.EmailChange, error) {
	var c store.EmailChange
	err := x.q.QueryRow(ctx, "SELECT "+emailChangeCols+" FROM email_changes WHERE key = $1", key).
		Scan(&c.Key, Num(&c.UserID), Num(&c.RealmID), &c.OldEmail, &c.NewEmail, Time(&c.CreatedAt))
	if err != nil {
		return nil, x.classify(err, "email change")
	}
	return &c, nil
}

// DeleteEmailChanges implements [store.EmailChangeStore].
func (x *Tx) DeleteEmailChanges(ctx context.Context, user store.UserID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	_, err := x.q.Exec(ctx, "DELETE FROM email_changes WHERE user_id = $1", user)
	return x.classify(err, "delete email changes")
}
