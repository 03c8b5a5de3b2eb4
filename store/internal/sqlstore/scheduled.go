package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

const scheduledCols = `id, realm_id, sender_id, kind, type, stream_id, topic, direct_members, content,
	rendered_content, deliver_at, delivered, failed, failure_message, delivered_message_id,
	reminder_target_message_id, reminder_note`

func (x *Tx) scanScheduled(r Row, m *store.ScheduledMessage) error {
	return r.Scan(Num(&m.ID), Num(&m.RealmID), Num(&m.SenderID), Num(&m.Kind), &m.Type, ID(&m.StreamID), &m.Topic,
		x.d.UserListDest(&m.DirectMembers), &m.Content, &m.RenderedContent, Time(&m.DeliverAt),
		&m.Delivered, &m.Failed, &m.FailureMessage, ID(&m.DeliveredMessageID),
		ID(&m.ReminderTargetMessageID), &m.ReminderNote)
}

// scheduledArgs returns the values of every column but id, in scheduledCols order.
func (x *Tx) scheduledArgs(m *store.ScheduledMessage) []any {
	return []any{m.RealmID, m.SenderID, int64(m.Kind), string(m.Type), IDArg(m.StreamID), m.Topic,
		x.d.UserList(m.DirectMembers), m.Content, m.RenderedContent, x.d.Time(m.DeliverAt), m.Delivered, m.Failed,
		m.FailureMessage, IDArg(m.DeliveredMessageID), IDArg(m.ReminderTargetMessageID), m.ReminderNote}
}

// ScheduledMessage implements [store.ScheduledMessageStore] with one
// statement.
func (x *Tx) ScheduledMessage(ctx context.Context, id store.ScheduledMessageID) (*store.ScheduledMessage, error) {
	return x.ScheduledMessageLocked(ctx, id, false)
}

// ScheduledMessageLocked is ScheduledMessage; with forUpdate the row stays
// locked until the transaction ends (FOR UPDATE), for a database whose
// concurrent writers would otherwise both read it.
func (x *Tx) ScheduledMessageLocked(ctx context.Context, id store.ScheduledMessageID, forUpdate bool) (*store.ScheduledMessage, error) {
	q := "SELECT " + scheduledCols + " FROM scheduled_messages WHERE id = $1"
	if forUpdate {
		q += " FOR UPDATE"
	}
	var m store.ScheduledMessage
	if err := x.scanScheduled(x.q.QueryRow(ctx, q, id), &m); err != nil {
		return nil, x.classify(err, fmt.Sprintf("scheduled message %d", id))
	}
	return &m, nil
}

// ScheduledSQL builds the query of ScheduledMessages in dialect d. The sender's listing
// (sender, kind, delivered, ordered by deliver_at) and the due-message scan
// (the rows neither delivered nor failed) each have an index that also
// gives the order. The flags are literals, not parameters, so that
// PostgreSQL can match the due scan to its partial index.
func ScheduledSQL(d *Dialect, f store.ScheduledFilter) (string, []any) {
	var where []string
	var args []any
	param := func(cond string, v any) {
		args = append(args, v)
		where = append(where, cond+" $"+strconv.Itoa(len(args)))
	}
	if f.RealmID != 0 {
		param("realm_id =", f.RealmID)
	}
	if f.SenderID != 0 {
		param("sender_id =", f.SenderID)
	}
	if f.Kind != 0 {
		param("kind =", int64(f.Kind))
	}
	if f.Delivered != nil {
		where = append(where, "delivered = "+strconv.FormatBool(*f.Delivered))
	}
	if f.Failed != nil {
		where = append(where, "failed = "+strconv.FormatBool(*f.Failed))
	}
	if !f.DueBy.IsZero() {
		param("deliver_at <=", d.Time(f.DueBy))
	}
	q := "SELECT " + scheduledCols + " FROM scheduled_messages"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY deliver_at, id"
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	return q, args
}

// ScheduledMessages implements [store.ScheduledMessageStore].
func (x *Tx) ScheduledMessages(ctx context.Context, f store.ScheduledFilter) ([]store.ScheduledMessage, error) {
	q, args := ScheduledSQL(x.d, f)
	return scanAll(ctx, x, "scheduled messages", x.scanScheduled, q, args...)
}

// CreateScheduledMessage implements [store.ScheduledMessageStore]. Both
// kinds share one id space, so no id is ever reused.
func (x *Tx) CreateScheduledMessage(ctx context.Context, m *store.ScheduledMessage) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "scheduled_messages", "create scheduled message",
		"INSERT INTO scheduled_messages ("+scheduledCols+") VALUES ("+x.d.IDValue("scheduled_messages")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id",
		int64(m.ID), x.scheduledArgs(m)...)
	if err != nil {
		return err
	}
	m.ID = store.ScheduledMessageID(id)
	return nil
}

// UpdateScheduledMessage implements [store.ScheduledMessageStore].
func (x *Tx) UpdateScheduledMessage(ctx context.Context, m *store.ScheduledMessage) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, `UPDATE scheduled_messages SET realm_id = $1, sender_id = $2, kind = $3, type = $4,
		stream_id = $5, topic = $6, direct_members = $7, content = $8, rendered_content = $9, deliver_at = $10,
		delivered = $11, failed = $12, failure_message = $13, delivered_message_id = $14,
		reminder_target_message_id = $15, reminder_note = $16 WHERE id = $17`, append(x.scheduledArgs(m), m.ID)...)
	return x.mustAffect(n, err, fmt.Sprintf("update scheduled message %d", m.ID))
}

// DeleteScheduledMessage implements [store.ScheduledMessageStore].
func (x *Tx) DeleteScheduledMessage(ctx context.Context, id store.ScheduledMessageID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "DELETE FROM scheduled_messages WHERE id = $1", id)
	return x.mustAffect(n, err, fmt.Sprintf("delete scheduled message %d", id))
}
