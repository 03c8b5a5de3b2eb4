package sqlite

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

const emailChangeCols = "key, user_id, realm_id, old_email, new_email, created_at"

// CreateEmailChange implements [store.EmailChangeStore].
func (t *tx) CreateEmailChange(ctx context.Context, c *store.EmailChange) error {
	if err := t.writable(); err != nil {
		return err
	}
	_, err := t.exec(ctx, "INSERT INTO email_changes ("+emailChangeCols+") VALUES (?, ?, ?, ?, ?, ?)",
		c.Key, c.UserID, c.RealmID, c.OldEmail, c.NewEmail, timeArg(c.CreatedAt))
	return classify(err, "create email change")
}

// EmailChange implements [store.EmailChangeStore].
func (t *tx) EmailChange(ctx context.Context, key string) (*store.EmailChange, error) {
	var c store.EmailChange
	err := t.queryRow(ctx, "SELECT "+emailChangeCols+" FROM email_changes WHERE key = ?", key).
		Scan(&c.Key, &c.UserID, &c.RealmID, &c.OldEmail, &c.NewEmail, timeCol{&c.CreatedAt})
	if err != nil {
		return nil, classify(err, "email change")
	}
	return &c, nil
}

// DeleteEmailChanges implements [store.EmailChangeStore].
func (t *tx) DeleteEmailChanges(ctx context.Context, user store.UserID) error {
	if err := t.writable(); err != nil {
		return err
	}
	_, err := t.exec(ctx, "DELETE FROM email_changes WHERE user_id = ?", user)
	return classify(err, "delete email changes")
}
