package uploads

import (
	"context"
	"errors"
	"sync"

	"github.com/chatcore/chatcore"
)

// ThumbnailWorkers is how many thumbnails are made at once (each holds its
// decoded image, up to MaxThumbnailDecodedBytes).
const ThumbnailWorkers = 2

// ThumbnailBacklog is how many uploads may wait for a thumbnail worker. An
// upload that finds the backlog full gets no thumbnail (a warning is
// logged); it still succeeds, and its original is served.
const ThumbnailBacklog = 64

// thumbnailJob is one upload waiting for its thumbnail.
type thumbnailJob struct {
	ctx context.Context
	svc *chatcore.Service
	a   chatcore.Attachment
}

var (
	// thumbnailQueue is the backlog the workers take jobs from.
	thumbnailQueue = make(chan thumbnailJob, ThumbnailBacklog)
	// startWorkers starts the ThumbnailWorkers workers, on first use.
	startWorkers sync.Once
)

// thumbnailLater queues a's thumbnail to be made in the background, after
// the upload answered; it never blocks. A full backlog skips the thumbnail
// and returns false.
func thumbnailLater(ctx context.Context, svc *chatcore.Service, a chatcore.Attachment) bool {
	startWorkers.Do(func() {
		for range ThumbnailWorkers {
			go thumbnailWorker()
		}
	})
	select {
	case thumbnailQueue <- thumbnailJob{ctx: ctx, svc: svc, a: a}:
		return true
	default:
		svc.Logger().WarnContext(ctx, "uploads: thumbnail backlog full; no thumbnail made",
			"path_id", a.PathID, "backlog", ThumbnailBacklog)
		return false
	}
}

// thumbnailWorker makes the queued thumbnails, one at a time.
func thumbnailWorker() {
	for j := range thumbnailQueue {
		if err := Thumbnail(j.ctx, j.svc, j.a); err != nil && !errors.Is(err, ErrNotThumbnailed) {
			j.svc.Logger().WarnContext(j.ctx, "uploads: thumbnail failed", "path_id", j.a.PathID, "err", err)
		}
	}
}
