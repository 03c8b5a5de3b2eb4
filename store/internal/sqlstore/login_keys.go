package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// AddLoginKey implements [store.LoginKeyStore].
func (x *Tx) AddLoginKey(ctx context.Context, k *store.LoginKey) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	_, err := x.q.Exec(ctx, "INSERT INTO login_keys (hash, user_id, created) VALUES ($1, $2, $3)",
		k.Hash, int64(k.UserID), x.d.Time(k.Created))
	return x.classify(err, "add login key")
}

// LoginKeyUser implements [store.LoginKeyStore] with one primary-key read.
func (x *Tx) LoginKeyUser(ctx context.Context, hash string) (store.UserID, error) {
	var id store.UserID
	err := x.q.QueryRow(ctx, "SELECT user_id FROM login_keys WHERE hash = $1", hash).Scan(Num(&id))
	if err != nil {
		return 0, x.classify(err, "login key")
	}
	return id, nil
}

// TrimLoginKeys implements [store.LoginKeyStore] with one statement over the
// user's index entries.
func (x *Tx) TrimLoginKeys(ctx context.Context, user store.UserID, keep int) (int, error) {
	if err := x.q.Writable(); err != nil {
		return 0, err
	}
	n, err := x.q.Exec(ctx, `DELETE FROM login_keys WHERE user_id = $1 AND hash NOT IN (
		SELECT hash FROM login_keys WHERE user_id = $1 ORDER BY id DESC LIMIT $2)`, user, keep)
	if err != nil {
		return 0, x.classify(err, "trim login keys")
	}
	return int(n), nil
}
