package sqlstore

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// ServerSecret implements [store.ServerSecretStore]: an insert that keeps a
// stored value, then a primary-key read.
func (x *Tx) ServerSecret(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	if err := x.q.Writable(); err != nil {
		return nil, err
	}
	if len(fresh) == 0 || len(fresh) > store.MaxServerSecretLen {
		return nil, fmt.Errorf("sqlstore: server secret %q: a fresh value of %d bytes", name, len(fresh))
	}
	if _, err := x.q.Exec(ctx, "INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", name, fresh); err != nil {
		return nil, x.classify(err, "store server secret")
	}
	var v []byte
	if err := x.q.QueryRow(ctx, "SELECT value FROM server_secrets WHERE name = $1", name).Scan(&v); err != nil {
		return nil, x.classify(err, "server secret")
	}
	return v, nil
}
