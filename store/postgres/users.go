package postgres

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// User implements [store.UserStore]; a write transaction notes the user
// read (see tx.users), as UserByEmail and UserByAPIKeyHash do.
func (t *tx) User(ctx context.Context, id store.UserID) (*store.User, error) {
	return t.noteUser(t.Tx.User(ctx, id))
}

// UserByEmail implements [store.UserStore].
func (t *tx) UserByEmail(ctx context.Context, realm store.RealmID, email string) (*store.User, error) {
	return t.noteUser(t.Tx.UserByEmail(ctx, realm, email))
}

// UserByAPIKeyHash implements [store.UserStore].
func (t *tx) UserByAPIKeyHash(ctx context.Context, hash string) (*store.User, error) {
	return t.noteUser(t.Tx.UserByAPIKeyHash(ctx, hash))
}

// KeyHolder implements [store.UserStore].
func (t *tx) KeyHolder(ctx context.Context, hash string) (store.KeyHolder, error) {
	k, err := t.Tx.KeyHolder(ctx, hash)
	if err == nil {
		noteRead(t, &t.users, k.User.ID)
	}
	return k, err
}

// noteUser notes u, a user read, in tx.users and returns u and err.
func (t *tx) noteUser(u *store.User, err error) (*store.User, error) {
	if err == nil {
		noteRead(t, &t.users, u.ID)
	}
	return u, err
}
