package uploads

// ThumbnailBacklogLen is how many uploads wait for a thumbnail worker.
func ThumbnailBacklogLen() int { return len(thumbnailQueue) }

// JPEGOrientation is the EXIF orientation of the JPEG starting with head.
var JPEGOrientation = jpegOrientation
