package store

import (
	"context"
)

// ReactionStore adds and removes the emoji reactions of existing messages.
// A message's reactions keep the order in which they were added.
type ReactionStore interface {
	// AddReaction appends r to the reactions of message id. A reaction of
	// r.UserID with the same ReactionType and EmojiCode already on the
	// message gives ErrConflict (whatever its EmojiName); an unknown message
	// gives ErrNotFound.
	AddReaction(ctx context.Context, id MessageID, r Reaction) error
	// RemoveReaction deletes the user's reaction of reactionType and
	// emojiCode from message id, or returns ErrNotFound when there is none.
	RemoveReaction(ctx context.Context, id MessageID, user UserID, reactionType, emojiCode string) error
}
