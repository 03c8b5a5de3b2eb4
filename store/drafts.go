package store

import "context"

// DraftEditStore reads and changes single drafts, for the drafts routes
// (DraftStore holds the per-user bulk operations).
type DraftEditStore interface {
	// Draft returns the draft with the id, or ErrNotFound.
	Draft(ctx context.Context, id DraftID) (*Draft, error)
	// UpdateDraft overwrites every field of the stored draft d.ID but its
	// user, or returns ErrNotFound.
	UpdateDraft(ctx context.Context, d *Draft) error
	// DeleteDraft deletes the draft with the id, or returns ErrNotFound.
	DeleteDraft(ctx context.Context, id DraftID) error
	// RecentDrafts returns at most limit (> 0) of the user's drafts, the most
	// recently edited first (by LastEdit, then by id, both descending; a
	// zero LastEdit sorts last).
	RecentDrafts(ctx context.Context, user UserID, limit int) ([]Draft, error)
}
