package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

func (t faultyTx) RecentDirectConversations(ctx context.Context, user store.UserID, limit int) ([]store.DirectConversation, error) {
	return faultStep(t.f, func() ([]store.DirectConversation, error) { return t.tx.RecentDirectConversations(ctx, user, limit) })
}

func (t faultyTx) AddLoginKey(ctx context.Context, k *store.LoginKey) error {
	_, err := faultStep(t.f, func() (struct{}, error) { return struct{}{}, t.tx.AddLoginKey(ctx, k) })
	return err
}

func (t faultyTx) LoginKeyUser(ctx context.Context, hash string) (store.UserID, error) {
	return faultStep(t.f, func() (store.UserID, error) { return t.tx.LoginKeyUser(ctx, hash) })
}

func (t faultyTx) TrimLoginKeys(ctx context.Context, user store.UserID, keep int) (int, error) {
	return faultStep(t.f, func() (int, error) { return t.tx.TrimLoginKeys(ctx, user, keep) })
}

func (t faultyTx) ServerSecret(ctx context.Context, name string, fresh []byte) ([]byte, error) {
	return faultStep(t.f, func() ([]byte, error) { return t.tx.ServerSecret(ctx, name, fresh) })
}
