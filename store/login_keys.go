package store

import (
	"context"
	"time"
)

// LoginKey is an API key a password login issued (POST /fetch_api_key), a
// key of the user besides their own (User.APIKeyHash): each login gets
// one, so logging in on a new device leaves the others signed in. Only
// its hash is stored.
type LoginKey struct {
	// Hash is the key's hash (chatcore.HashAPIKey), unique among login keys.
	Hash    string
	UserID  UserID
	Created time.Time
}

// LoginKeyStore persists login keys.
type LoginKeyStore interface {
	// AddLoginKey stores k; a hash already stored gives ErrConflict.
	AddLoginKey(ctx context.Context, k *LoginKey) error
	// LoginKeyUser returns the user of the login key with the hash, or
	// ErrNotFound.
	LoginKeyUser(ctx context.Context, hash string) (UserID, error)
	// TrimLoginKeys deletes the user's login keys except the keep (>= 0)
	// added last and returns how many it deleted.
	TrimLoginKeys(ctx context.Context, user UserID, keep int) (int, error)
}
