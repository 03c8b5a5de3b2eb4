package uploads

// ThumbnailBacklogLen is how many uploads wait for a thumbnail worker.
func ThumbnailBacklogLen() int { return len(thumbnailQueue) }
