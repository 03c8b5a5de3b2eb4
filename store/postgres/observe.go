package postgres

// WithGroupCommitObserver makes the store call fn with the number of
// Updates each committed write group held (see [WithWriteGroups]; without
// write groups fn is never called), e.g. a metrics histogram
// (metrics.Metrics.WriteGroupCommitted). fn runs on the commit path: it
// must not block.
func WithGroupCommitObserver(fn func(updates int)) Option {
	return func(c *config) { c.groupObserver = fn }
}
