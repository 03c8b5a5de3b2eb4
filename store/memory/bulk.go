package memory

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// CreateMessages implements [store.MessageStore]: in memory one insert costs
// what a batch costs per message, so it is CreateMessage for each.
func (t *tx) CreateMessages(ctx context.Context, ms []*store.Message) error {
	if err := t.write(); err != nil {
		return err
	}
	for _, m := range ms {
		if err := t.CreateMessage(ctx, m); err != nil {
			return err
		}
	}
	return nil
}
