package sqlite

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// User implements [store.UserStore], from the row cache when it holds
// the row.
func (t *tx) User(ctx context.Context, id store.UserID) (*store.User, error) {
	if u, ok := t.cachedUser(id); ok {
		return u, nil
	}
	u, err := t.Tx.User(ctx, id)
	if err == nil {
		t.cacheUser(u)
	}
	return u, err
}

// UserByAPIKeyHash implements [store.UserStore], from the row cache
// when it holds the row.
func (t *tx) UserByAPIKeyHash(ctx context.Context, hash string) (*store.User, error) {
	if hash == "" {
		return nil, notFound("user by api key")
	}
	if u, ok := t.cachedUserByKey(hash); ok {
		return u, nil
	}
	u, err := t.Tx.UserByAPIKeyHash(ctx, hash)
	if err == nil {
		t.cacheUser(u)
	}
	return u, err
}

// UpdateUser implements [store.UserStore]: its statement writes u's row
// alone, so the row cache forgets only u's entries (see execUserRow). It
// sets u.FullNameKey.
func (t *tx) UpdateUser(ctx context.Context, u *store.User) error {
	if err := t.writable(); err != nil {
		return err
	}
	query, args := t.UserUpdate(u)
	what := fmt.Sprintf("update user %d", u.ID)
	res, err := t.execUserRow(ctx, u.ID, true, query, args...)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}
