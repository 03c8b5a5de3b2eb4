package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

func (t faultyTx) RecentDirectConversations(ctx context.Context, user store.UserID, limit int) ([]store.DirectConversation, error) {
	return faultStep(t.f, func() ([]store.DirectConversation, error) { return t.tx.RecentDirectConversations(ctx, user, limit) })
}
