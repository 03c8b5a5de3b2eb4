package store

import "context"

// DefaultStreamStore persists a realm's default channels: those new users
// are subscribed to.
type DefaultStreamStore interface {
	// DefaultStreams returns the realm's default channels, ascending.
	DefaultStreams(ctx context.Context, realm RealmID) ([]StreamID, error)
	// SetDefaultStream makes the channel a default channel of the realm
	// (on) or not; setting what already holds is a no-op.
	SetDefaultStream(ctx context.Context, realm RealmID, stream StreamID, on bool) error
}
