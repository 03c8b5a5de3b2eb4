package store

import "errors"

// Store-level sentinel errors. A [Store] wraps them with context
// (fmt.Errorf("user %d: %w", id, ErrNotFound)); chatcore's Service turns them
// into errors with Zulip's exact messages. Test with errors.Is.
var (
	// ErrNotFound reports that the requested object does not exist.
	ErrNotFound = errors.New("chatcore: not found")
	// ErrConflict reports that a write would violate a uniqueness rule (a second
	// user with the same e-mail in a realm, a duplicate id, a duplicate
	// linkifier pattern, ...).
	ErrConflict = errors.New("chatcore: conflict")
)
