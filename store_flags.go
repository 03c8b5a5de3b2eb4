package chatcore

import "context"

// UserMessage is one user's view of one message: whether they received it
// and their flags on it, with the message fields unread counts need.
type UserMessage struct {
	ID       MessageID
	RealmID  RealmID
	Type     MessageType
	StreamID StreamID
	// Topic is the topic as stored; "" for direct messages.
	Topic    string
	SenderID UserID
	// DirectMembers are the participants of a direct message, sorted.
	DirectMembers []UserID
	// Received reports whether the user received the message: a participant
	// of a direct message, subscribed to the channel when it was sent (an
	// active subscription whose SinceMessageID is not above the message id),
	// or holding a flag row for it.
	Received bool
	// Flags are the user's flags: the flag row when there is one, otherwise
	// the message's DefaultFlags when Received, otherwise zero.
	Flags MessageFlags
}

// UserMessageFlags is an explicit flag row: the user's complete flags on
// one message. A row makes the message received by the user.
type UserMessageFlags struct {
	UserID    UserID
	MessageID MessageID
	Flags     MessageFlags
}

// FlagStore persists per-user message flags.
//
// Flags are stored only where they differ from what can be derived: a user
// who received a message (see [UserMessage.Received]) and has no row for it
// has the message's DefaultFlags. Sending a message to a channel therefore
// writes no row per subscriber, and every method here is one set-based query.
// Rows go with their message when it is deleted (DeleteMessages).
type FlagStore interface {
	// UserMessages returns the user's view of each existing message among ids,
	// ordered by id; unknown ids are left out.
	UserMessages(ctx context.Context, user UserID, ids []MessageID) ([]UserMessage, error)
	// PutUserMessageFlags inserts or replaces the rows.
	PutUserMessageFlags(ctx context.Context, rows []UserMessageFlags) error
	// UpdateUserMessageFlags sets (add) or clears the flag bits of flag on the
	// messages among ids that the user received, in one statement, and returns
	// the ids whose flags changed, ascending. Messages the user did not
	// receive are left alone.
	UpdateUserMessageFlags(ctx context.Context, user UserID, ids []MessageID, flag MessageFlags, add bool) ([]MessageID, error)
	// UnreadMessages returns the messages the user received and has not read
	// (no FlagRead), newest first, at most limit of them (limit > 0).
	UnreadMessages(ctx context.Context, user UserID, limit int) ([]UserMessage, error)
	// MessageFlagRows returns the flag rows of the message, ordered by user
	// (users who received it without a row are not listed).
	MessageFlagRows(ctx context.Context, msg MessageID) ([]UserMessageFlags, error)
	// FlaggedMessageIDs returns the ids of the messages on which the user has
	// every bit of flag, ascending.
	FlaggedMessageIDs(ctx context.Context, user UserID, flag MessageFlags) ([]MessageID, error)
}
