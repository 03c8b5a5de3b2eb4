package chatcore

import (
	"context"
	"time"
)

// DeleteMessagesBatchedForTest exposes deleteMessagesBatched (the batch loop
// shared by topic deletion and user deactivation) to the external tests.
func (s *Service) DeleteMessagesBatchedForTest(ctx context.Context, actor *User, f MessageFilter, deadline time.Time) (bool, error) {
	return s.deleteMessagesBatched(ctx, actor, f, deadline)
}
