package store

import "context"

// AlertWord is one alert word of a user.
type AlertWord struct {
	UserID UserID
	Word   string
}

// AlertWordStore persists users' alert words. Words are unique per user
// compared in lower case (strings.ToLower), and keep the case they were
// added with.
type AlertWordStore interface {
	// AlertWords returns the user's words in the order they were added.
	AlertWords(ctx context.Context, user UserID) ([]string, error)
	// RealmAlertWords returns the words of every user of the realm, ordered
	// by user, then as added (one indexed read: a send asks it).
	RealmAlertWords(ctx context.Context, realm RealmID) ([]AlertWord, error)
	// AddAlertWords adds the words, in order, to the user of the realm,
	// skipping those the user has (in lower case) and repeats. An unknown
	// user gives ErrNotFound.
	AddAlertWords(ctx context.Context, realm RealmID, user UserID, words []string) error
	// RemoveAlertWords removes the user's words equal to any of words in
	// lower case; words the user does not have are ignored.
	RemoveAlertWords(ctx context.Context, user UserID, words []string) error
}
