package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// CreateSubmessage implements [store.SubmessageStore] with one INSERT,
// refused by the message's foreign key when the message does not exist.
func (x *Tx) CreateSubmessage(ctx context.Context, s *store.Submessage) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "submessages", "create submessage",
		"INSERT INTO submessages (id, message_id, sender_id, msg_type, content) VALUES ("+x.d.IDValue("submessages")+
			", $2, $3, $4, $5) RETURNING id", s.ID, int64(s.MessageID), int64(s.SenderID), s.MsgType, s.Content)
	if err != nil {
		return err
	}
	s.ID = id
	return nil
}

// Submessages implements [store.SubmessageStore] with one statement
// (index submessages_message).
func (x *Tx) Submessages(ctx context.Context, msg store.MessageID) ([]store.Submessage, error) {
	out, err := scanAll(ctx, x, "submessages", func(r Row, s *store.Submessage) error { return ScanSubmessage(r, s) },
		SubmessagesSQL("message_id = $1"), msg)
	if out == nil && err == nil {
		out = []store.Submessage{}
	}
	return out, err
}
