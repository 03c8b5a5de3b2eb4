package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// AddLoginKey implements store.LoginKeyStore.
func (t *tx) AddLoginKey(_ context.Context, k *store.LoginKey) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.loginKeys[k.Hash]; ok {
		return fmt.Errorf("login key: %w", store.ErrConflict)
	}
	c := *k
	put(t, t.d.loginKeys, k.Hash, &c)
	useID(t, &t.d.loginKeySeq, t.d.loginKeySeq+1)
	put(t, t.d.loginKeyOrder, k.Hash, t.d.loginKeySeq)
	return nil
}

// LoginKeyUser implements store.LoginKeyStore.
func (t *tx) LoginKeyUser(_ context.Context, hash string) (store.UserID, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	k, ok := t.d.loginKeys[hash]
	if !ok {
		return 0, fmt.Errorf("login key: %w", store.ErrNotFound)
	}
	return k.UserID, nil
}

// TrimLoginKeys implements store.LoginKeyStore.
func (t *tx) TrimLoginKeys(_ context.Context, user store.UserID, keep int) (int, error) {
	if err := t.write(); err != nil {
		return 0, err
	}
	var mine []*store.LoginKey
	for _, k := range t.d.loginKeys {
		if k.UserID == user {
			mine = append(mine, k)
		}
	}
	slices.SortFunc(mine, func(a, b *store.LoginKey) int {
		return cmp.Compare(t.d.loginKeyOrder[b.Hash], t.d.loginKeyOrder[a.Hash])
	})
	n := 0
	for _, k := range mine[min(keep, len(mine)):] {
		del(t, t.d.loginKeys, k.Hash)
		del(t, t.d.loginKeyOrder, k.Hash)
		n++
	}
	return n, nil
}
