package store

import "context"

// DirectConversation is one of a user's direct conversations (1:1, group or
// with themselves) and the id of its newest message.
type DirectConversation struct {
	RecipientID RecipientID
	// Members are the participants, sorted, the user included.
	Members      []UserID
	MaxMessageID MessageID
}

// ConversationStore answers questions about a user's conversations as a
// whole.
type ConversationStore interface {
	// RecentDirectConversations returns up to limit (> 0) of the user's
	// direct conversations that hold a message, the one whose newest message
	// is newest first. It reads one index entry per conversation of the
	// user (the newest message of each), never their history.
	RecentDirectConversations(ctx context.Context, user UserID, limit int) ([]DirectConversation, error)
}
