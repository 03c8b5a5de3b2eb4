package postgres

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// ScheduledMessage implements [store.ScheduledMessageStore]. In an
// Update it locks the row (FOR UPDATE): of two instances delivering one due
// message at once, the second waits for the first to commit, then fails
// with a serialization failure and runs again, finding the row delivered,
// instead of doing the whole delivery twice and failing only at commit.
func (t *tx) ScheduledMessage(ctx context.Context, id store.ScheduledMessageID) (*store.ScheduledMessage, error) {
	return t.ScheduledMessageLocked(ctx, id, !t.readOnly)
}
