package chatcore

import (
	"context"
	"errors"
)

// actor loads the acting user of a request. A missing or deactivated actor is
// an authentication failure: the adapter authenticates before calling the
// Service, so this only happens when the user was deactivated in between or an
// embedder passes a bad id.
func actor(ctx context.Context, tx Tx, id UserID) (*User, error) {
	u, err := tx.User(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, Unauthorized("Invalid API key")
	}
	if err != nil {
		return nil, err
	}
	if !u.IsActive {
		return nil, Unauthorized("Account is deactivated")
	}
	return u, nil
}

// userInRealm returns the user or bot id of the realm. A user of another realm
// is reported exactly like a missing one: ErrNotFound.
func userInRealm(ctx context.Context, tx Tx, realm RealmID, id UserID) (*User, error) {
	u, err := tx.User(ctx, id)
	if err != nil {
		return nil, err
	}
	if u.RealmID != realm {
		return nil, ErrNotFound
	}
	return u, nil
}

// streamInRealm returns the channel id of the realm, or ErrNotFound.
func streamInRealm(ctx context.Context, tx Tx, realm RealmID, id StreamID) (*Stream, error) {
	st, err := tx.Stream(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.RealmID != realm {
		return nil, ErrNotFound
	}
	return st, nil
}

// requireAdmin returns Zulip's "Must be an organization administrator" unless u
// is an administrator or owner.
func requireAdmin(u *User) error {
	if !u.Role.IsAdmin() {
		return errMustBeAdmin()
	}
	return nil
}
