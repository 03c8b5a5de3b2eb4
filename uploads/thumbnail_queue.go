package uploads

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

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
	// thumbnailsPending counts the jobs queued or running: raised before a
	// job is queued (and lowered again when it is not), lowered when a
	// worker has finished it.
	thumbnailsPending atomic.Int64
)

// thumbnailLater queues a's thumbnail to be made in the background, after
// the upload answered; it never blocks. A full backlog skips the thumbnail
// and returns false.
func thumbnailLater(ctx context.Context, svc *chatcore.Service, a chatcore.Attachment) bool {
	startThumbnailWorkers()
	thumbnailsPending.Add(1)
	select {
	case thumbnailQueue <- thumbnailJob{ctx: ctx, svc: svc, a: a}:
		return true
	default:
		thumbnailsPending.Add(-1)
		svc.Logger().WarnContext(ctx, "uploads: thumbnail backlog full; no thumbnail made",
			"path_id", a.PathID, "backlog", ThumbnailBacklog)
		return false
	}
}

// WaitThumbnails waits until no thumbnail job of the process is queued or
// running (every Service's), so that no worker writes to the file storage
// any more, or until ctx is done, returning its error. A test that removes
// its storage's directory, or a program closing its storage, calls it
// first; a job queued meanwhile is waited for too.
func WaitThumbnails(ctx context.Context) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for thumbnailsPending.Load() > 0 {
		select {
		case <-ctx.Done():
			return fmt.Errorf("uploads: %d thumbnail jobs pending: %w", thumbnailsPending.Load(), ctx.Err())
		case <-t.C:
		}
	}
	return nil
}

// resumeBatch is how many uploads awaiting a thumbnail ResumeThumbnails
// reads in one transaction.
const resumeBatch = ThumbnailBacklog

// ResumeThumbnails queues the thumbnails of the image uploads created
// before it was called whose thumbnail is neither made nor found
// impossible: the jobs a previous process lost when it stopped, whose
// messages would otherwise show their loading placeholder forever (Zulip
// re-queues such uploads when it renders them). Call it once the Service
// is made, in the background: it reads resumeBatch uploads per
// transaction, by id from an index of those uploads alone, and waits for
// room in the backlog rather than skipping any, until every one is queued
// or ctx ends; it returns how many it queued. Several instances on one
// store may each queue the same upload: making a thumbnail twice stores
// the same files and rewrites no message twice.
func ResumeThumbnails(ctx context.Context, svc *chatcore.Service) (int, error) {
	if svc.FileStorage() == nil {
		return 0, nil
	}
	start := svc.Now()
	queued := 0
	var after chatcore.AttachmentID
	for {
		var as []chatcore.Attachment
		err := svc.View(ctx, func(tx chatcore.Tx) (err error) {
			as, err = tx.Attachments(ctx, chatcore.AttachmentFilter{AwaitingThumbnail: true, CreatedBefore: start, AfterID: after, Limit: resumeBatch})
			return err
		})
		if err != nil {
			return queued, err
		}
		for _, a := range as {
			after = a.ID
			if _, ok := thumbnailFormatFor(a.ContentType); !ok {
				continue
			}
			startThumbnailWorkers()
			thumbnailsPending.Add(1)
			select {
			case thumbnailQueue <- thumbnailJob{ctx: context.WithoutCancel(ctx), svc: svc, a: a}:
				queued++
			case <-ctx.Done():
				thumbnailsPending.Add(-1)
				return queued, ctx.Err()
			}
		}
		if len(as) < resumeBatch {
			return queued, nil
		}
	}
}

// startThumbnailWorkers starts the ThumbnailWorkers workers, on first use.
func startThumbnailWorkers() {
	startWorkers.Do(func() {
		for range ThumbnailWorkers {
			go thumbnailWorker()
		}
	})
}

// thumbnailWorker makes the queued thumbnails, one at a time.
func thumbnailWorker() {
	for j := range thumbnailQueue {
		if err := Thumbnail(j.ctx, j.svc, j.a); err != nil && !errors.Is(err, ErrNotThumbnailed) {
			j.svc.Logger().WarnContext(j.ctx, "uploads: thumbnail failed", "path_id", j.a.PathID, "err", err)
		}
		thumbnailsPending.Add(-1)
	}
}
