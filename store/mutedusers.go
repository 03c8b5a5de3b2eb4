package store

import (
	"context"
	"time"
)

// MutedUser is a user muted by another, as Zulip's MutedUser row.
type MutedUser struct {
	UserID      UserID // who muted
	MutedUserID UserID
	DateMuted   time.Time
}

// MutedUserStore persists the users each user muted.
type MutedUserStore interface {
	// MutedUsers returns the users the user muted, ordered by MutedUserID.
	MutedUsers(ctx context.Context, user UserID) ([]MutedUser, error)
	// MutersOf returns the ids of the users who muted the user, ascending
	// (one indexed read: a send asks it of its sender).
	MutersOf(ctx context.Context, muted UserID) ([]UserID, error)
	// AddMutedUser inserts m. A pair already stored gives ErrConflict; an
	// unknown user gives ErrNotFound.
	AddMutedUser(ctx context.Context, m MutedUser) error
	// RemoveMutedUser deletes the pair, or returns ErrNotFound.
	RemoveMutedUser(ctx context.Context, user, muted UserID) error
}
