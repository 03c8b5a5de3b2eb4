package store

import (
	"context"
	"time"
)

// RealmEmojiID identifies a custom emoji.
type RealmEmojiID int64

// RealmEmoji is a custom emoji of a realm (Zulip's RealmEmoji). A
// deactivated emoji keeps its row (old reactions still show it).
type RealmEmoji struct {
	// ID is filled in by CreateRealmEmoji when zero (above every id used).
	ID      RealmEmojiID
	RealmID RealmID
	Name    string
	// AuthorID is who uploaded it (0 for none).
	AuthorID UserID
	// FileName is the image's name in the emoji directory ("{id}.png"),
	// ContentType its media type.
	FileName    string
	ContentType string
	Deactivated bool
	Created     time.Time
}

// RealmEmojiStore persists custom emoji.
type RealmEmojiStore interface {
	// CreateRealmEmoji inserts e and fills in e.ID when zero. A duplicate
	// id, or a name an active emoji of the realm has, gives ErrConflict.
	CreateRealmEmoji(ctx context.Context, e *RealmEmoji) error
	// UpdateRealmEmoji overwrites the stored emoji e.ID (its FileName,
	// ContentType and Deactivated), or returns ErrNotFound.
	UpdateRealmEmoji(ctx context.Context, e *RealmEmoji) error
	// RealmEmojis returns the realm's emoji, deactivated ones included,
	// ordered by id.
	RealmEmojis(ctx context.Context, realm RealmID) ([]RealmEmoji, error)
}
