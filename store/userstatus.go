package store

import (
	"context"
	"time"
)

// UserStatus is a user's status, as Zulip's UserStatus row: a text and an
// emoji, each "" when unset (ReactionType is then unicode_emoji, as Zulip
// stores it).
type UserStatus struct {
	UserID       UserID
	RealmID      RealmID
	StatusText   string
	EmojiName    string
	EmojiCode    string
	ReactionType string
	// Updated is when the status was last set.
	Updated time.Time
}

// UserStatusStore persists user statuses, one per user.
type UserStatusStore interface {
	// UserStatus returns the user's status, or ErrNotFound when they never
	// set one.
	UserStatus(ctx context.Context, user UserID) (*UserStatus, error)
	// UserStatuses returns the statuses of the realm's users, ordered by
	// user id.
	UserStatuses(ctx context.Context, realm RealmID) ([]UserStatus, error)
	// PutUserStatus inserts or replaces the status of s.UserID; an unknown
	// user gives ErrNotFound.
	PutUserStatus(ctx context.Context, s UserStatus) error
}
