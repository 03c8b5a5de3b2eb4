package uploads

import (
	"context"
	"time"
)

// ThumbnailBacklogLen is how many uploads wait for a thumbnail worker.
func ThumbnailBacklogLen() int { return len(thumbnailQueue) }

// WaitThumbnailsIdle waits, up to ten seconds, until no thumbnail job is
// queued or running: a test's files are then no longer written to.
func WaitThumbnailsIdle(tb interface{ Fatalf(string, ...any) }) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := WaitThumbnails(ctx); err != nil {
		tb.Fatalf("%v", err)
	}
}

// JPEGOrientation is the EXIF orientation of the JPEG starting with head.
var JPEGOrientation = jpegOrientation
