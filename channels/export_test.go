package channels

// DeleteMessagesBatchedForTest exposes deleteMessagesBatched (the batch loop
// of topic deletion) to the external tests.
var DeleteMessagesBatchedForTest = deleteMessagesBatched
