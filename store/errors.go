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
	// ErrUnavailable reports passing trouble of the database, not a bug and
	// not bad input: a PostgreSQL connection that died and stayed unusable
	// through the store's retries, a SQLite database another process held
	// locked past the busy timeout. Nothing was committed unless the error
	// says the commit's outcome is unknown; the same request may succeed when
	// made again a moment later. The Service answers it with an error of kind
	// KindUnavailable (HTTP 503 with Retry-After).
	ErrUnavailable = errors.New("chatcore: database unavailable")
)
