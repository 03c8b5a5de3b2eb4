package uploads

import "time"

// ThumbnailBacklogLen is how many uploads wait for a thumbnail worker.
func ThumbnailBacklogLen() int { return len(thumbnailQueue) }

// WaitThumbnailsIdle waits, up to ten seconds, until no thumbnail job is
// queued or running: a test's files are then no longer written to.
func WaitThumbnailsIdle(tb interface{ Fatalf(string, ...any) }) {
	deadline := time.Now().Add(10 * time.Second)
	for thumbnailsPending.Load() > 0 {
		if time.Now().After(deadline) {
			tb.Fatalf("%d thumbnail jobs still pending", thumbnailsPending.Load())
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// JPEGOrientation is the EXIF orientation of the JPEG starting with head.
var JPEGOrientation = jpegOrientation
