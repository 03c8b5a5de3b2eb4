package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// OldestMessageID implements [store.MessageStore].
func (x *Tx) OldestMessageID(ctx context.Context, stream store.StreamID) (store.MessageID, error) {
	var id store.MessageID
	err := x.q.QueryRow(ctx, "SELECT coalesce(min(id), 0) FROM messages WHERE stream_id = $1", stream).Scan(Num(&id))
	return id, x.classify(err, "oldest message")
}

// DirectRecipientsSQL reads the direct conversations of user $1, as
// DirectRecipients orders them.
const DirectRecipientsSQL = "SELECT recipient_id FROM recipient_members WHERE user_id = $1 ORDER BY recipient_id"

// DirectRecipients implements [store.MessageStore].
func (x *Tx) DirectRecipients(ctx context.Context, user store.UserID) ([]store.RecipientID, error) {
	return scanAll(ctx, x, "direct recipients", func(r Row, id *store.RecipientID) error { return r.Scan(Num(id)) },
		DirectRecipientsSQL, user)
}
