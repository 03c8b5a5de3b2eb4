package chatcore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
)

// HashAPIKey returns the form in which an API key is stored: the hex SHA-256 of
// the key. API keys are 32 random characters, so a fast hash is enough.
// [Service.Authenticate] looks users up by this hash and compares it in
// constant time.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// authenticatedKey is the context key of WithAuthenticatedUser.
type authenticatedKey struct{}

// WithAuthenticatedUser returns a copy of ctx carrying u, the user
// [Service.Authenticate] returned for the request ctx belongs to. A Service
// method acting for u.ID may then, without a store read, find from u that a
// request changes nothing (as Zulip compares a request with the user it
// authenticated) and answer it without a write transaction, the answer a
// transaction at the moment of authentication would have given, or take u's
// realm for work done before its write transaction (rendering). Every change
// is still decided and made on the user read inside the write transaction.
// u must not be modified afterwards.
func WithAuthenticatedUser(ctx context.Context, u *User) context.Context {
	return context.WithValue(ctx, authenticatedKey{}, u)
}

// authenticatedUser returns the user WithAuthenticatedUser put in ctx when it
// is user id, or nil.
func authenticatedUser(ctx context.Context, id UserID) *User {
	if u, ok := ctx.Value(authenticatedKey{}).(*User); ok && u != nil && u.ID == id {
		return u
	}
	return nil
}
