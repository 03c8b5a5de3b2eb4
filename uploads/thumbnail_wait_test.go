package uploads

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestWaitThumbnailsFollowsPendingJobs(t *testing.T) {
	WaitThumbnailsIdle(t) // other tests' jobs
	thumbnailsPending.Add(1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := WaitThumbnails(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitThumbnails with a job pending = %v, want the context's deadline", err)
	}
	done := make(chan error, 1)
	go func() { done <- WaitThumbnails(context.Background()) }()
	thumbnailsPending.Add(-1) // the job finishes
	if err := <-done; err != nil {
		t.Errorf("WaitThumbnails once the job finished = %v", err)
	}
}
