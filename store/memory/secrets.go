package memory

import (
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// ServerSecret implements store.ServerSecretStore.
func (t *tx) ServerSecret(_ context.Context, name string, fresh []byte) ([]byte, error) {
	if err := t.write(); err != nil {
		return nil, err
	}
	if len(fresh) == 0 || len(fresh) > store.MaxServerSecretLen {
		return nil, fmt.Errorf("memory: server secret %q: a fresh value of %d bytes", name, len(fresh))
	}
	v, ok := t.d.secrets[name]
	if !ok {
		v = slices.Clone(fresh)
		put(t, t.d.secrets, name, v)
	}
	return slices.Clone(v), nil
}
