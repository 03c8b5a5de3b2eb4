package chatcore

import (
	"context"
	"errors"
)

// Actor loads the acting user of a request. A missing or deactivated actor is
// an authentication failure: the adapter authenticates before calling the
// Service, so this only happens when the user was deactivated in between or an
// embedder passes a bad id.
func Actor(ctx context.Context, tx Tx, id UserID) (*User, error) {
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

// UserInRealm returns the user or bot id of the realm. A user of another realm
// is reported exactly like a missing one: ErrNotFound.
func UserInRealm(ctx context.Context, tx Tx, realm RealmID, id UserID) (*User, error) {
	u, err := tx.User(ctx, id)
	if err != nil {
		return nil, err
	}
	if u.RealmID != realm {
		return nil, ErrNotFound
	}
	return u, nil
}

// StreamInRealm returns the channel id of the realm, or ErrNotFound.
func StreamInRealm(ctx context.Context, tx Tx, realm RealmID, id StreamID) (*Stream, error) {
	st, err := tx.Stream(ctx, id)
	if err != nil {
		return nil, err
	}
	if st.RealmID != realm {
		return nil, ErrNotFound
	}
	return st, nil
}

// AccessibleMessage returns message id when u can read it, or nil (and no
// error) when it does not exist, is of another realm or is hidden from u;
// errors come from the store.
func AccessibleMessage(ctx context.Context, tx Tx, u *User, id MessageID) (*Message, error) {
	m, err := tx.Message(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	ok, err := CanSee(ctx, tx, u, m)
	if err != nil || !ok {
		return nil, err
	}
	return m, nil
}

// ReadableMessage returns message id when u can read it, else Zulip's
// BAD_REQUEST "Invalid message(s)" (a message that does not exist, is of
// another realm or is hidden from u); other errors come from the store.
func ReadableMessage(ctx context.Context, tx Tx, u *User, id MessageID) (*Message, error) {
	m, err := AccessibleMessage(ctx, tx, u, id)
	if err == nil && m == nil {
		err = InvalidMessageError()
	}
	return m, err
}

// requireAdmin returns Zulip's "Must be an organization administrator" unless u
// is an administrator or owner.
func requireAdmin(u *User) error {
	if !u.Role.IsAdmin() {
		return errMustBeAdmin()
	}
	return nil
}

// Access is who may call an operation. Zulip checks it on the endpoint, before
// the operation's parameters are read, so a transport calls [Authorize] before
// decoding; the operations check it again themselves.
type Access int

const (
	// AccessAny admits every active user and bot.
	AccessAny Access = iota
	// AccessHuman refuses bots (Zulip's @human_users_only).
	AccessHuman
	// AccessAdmin admits administrators and owners only (Zulip's
	// @require_realm_admin).
	AccessAdmin
)

// Authorize returns the refusal of access a for u, an active user the Service
// authenticated, or nil when u may proceed. Errors: BAD_REQUEST "This endpoint
// does not accept bot requests." for a bot under AccessHuman;
// UNAUTHORIZED_PRINCIPAL "Must be an organization administrator" (HTTP 400)
// for a non-administrator under AccessAdmin.
func Authorize(u *User, a Access) error {
	switch a {
	case AccessHuman:
		if u.IsBot {
			return errNotForBots()
		}
	case AccessAdmin:
		return requireAdmin(u)
	}
	return nil
}

// errNotForBots is Zulip's refusal of bots on endpoints for humans only.
func errNotForBots() *Error {
	return BadRequest("This endpoint does not accept bot requests.")
}
