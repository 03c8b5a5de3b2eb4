package store

import "context"

// MaxServerSecretLen bounds a server secret's value.
const MaxServerSecretLen = 1024

// ServerSecretStore persists the server's own secrets (such as the key
// signing temporary upload URLs), so that every instance on one database
// uses the same ones without configuration.
type ServerSecretStore interface {
	// ServerSecret returns the value of the secret with the name, storing
	// fresh as its value first when it has none (the first writer's value
	// wins; later callers get it whatever fresh they pass). fresh must be
	// non-empty and at most MaxServerSecretLen bytes. The result is the
	// caller's to keep.
	ServerSecret(ctx context.Context, name string, fresh []byte) ([]byte, error)
}
