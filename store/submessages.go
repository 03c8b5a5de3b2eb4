package store

import "context"

// SubmessageStore persists the submessages of messages (widget state:
// polls, to-do lists) added after the message was sent; those a message
// is sent with go in with [MessageStore.CreateMessage].
type SubmessageStore interface {
	// CreateSubmessage inserts s after the message's other submessages and
	// fills in s.ID when zero (an id above every submessage id ever used).
	// An unknown s.MessageID gives ErrNotFound; an id in use, ErrConflict.
	CreateSubmessage(ctx context.Context, s *Submessage) error
	// Submessages returns the submessages of the message ordered by id;
	// none for an unknown message.
	Submessages(ctx context.Context, msg MessageID) ([]Submessage, error)
}
