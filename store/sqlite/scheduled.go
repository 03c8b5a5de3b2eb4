package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

const scheduledCols = `id, realm_id, sender_id, kind, type, stream_id, topic, direct_members, content,
	rendered_content, deliver_at, delivered, failed, failure_message, delivered_message_id,
	reminder_target_message_id, reminder_note`

func scanScheduled(r interface{ Scan(...any) error }, m *store.ScheduledMessage) error {
	return r.Scan(&m.ID, &m.RealmID, &m.SenderID, &m.Kind, &m.Type, sqlstore.ID(&m.StreamID), &m.Topic,
		listCol[store.UserID]{&m.DirectMembers}, &m.Content, &m.RenderedContent, timeCol{&m.DeliverAt},
		&m.Delivered, &m.Failed, &m.FailureMessage, sqlstore.ID(&m.DeliveredMessageID),
		sqlstore.ID(&m.ReminderTargetMessageID), &m.ReminderNote)
}

// scheduledArgs returns the values of every column but id, in scheduledCols order.
func scheduledArgs(m *store.ScheduledMessage) []any {
	return []any{m.RealmID, m.SenderID, int64(m.Kind), string(m.Type), idArg(m.StreamID), m.Topic,
		listArg(m.DirectMembers), m.Content, m.RenderedContent, timeArg(m.DeliverAt), m.Delivered, m.Failed,
		m.FailureMessage, idArg(m.DeliveredMessageID), idArg(m.ReminderTargetMessageID), m.ReminderNote}
}

// ScheduledMessage implements [store.ScheduledMessageStore].
func (t *tx) ScheduledMessage(ctx context.Context, id store.ScheduledMessageID) (*store.ScheduledMessage, error) {
	var m store.ScheduledMessage
	err := scanScheduled(t.queryRow(ctx, "SELECT "+scheduledCols+" FROM scheduled_messages WHERE id = ?", id), &m)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("scheduled message %d", id))
	}
	return &m, nil
}

// scheduledSQL builds the query of ScheduledMessages. The sender's listing
// (sender, kind, delivered, ordered by deliver_at) and the due-message scan
// (delivered, failed, deliver_at) each have an index that also gives the order.
func scheduledSQL(f store.ScheduledFilter) (string, []any) {
	var where []string
	var args []any
	if f.RealmID != 0 {
		where, args = append(where, "realm_id = ?"), append(args, f.RealmID)
	}
	if f.SenderID != 0 {
		where, args = append(where, "sender_id = ?"), append(args, f.SenderID)
	}
	if f.Kind != 0 {
		where, args = append(where, "kind = ?"), append(args, int64(f.Kind))
	}
	if f.Delivered != nil {
		where, args = append(where, "delivered = ?"), append(args, *f.Delivered)
	}
	if f.Failed != nil {
		where, args = append(where, "failed = ?"), append(args, *f.Failed)
	}
	if !f.DueBy.IsZero() {
		where, args = append(where, "deliver_at <= ?"), append(args, f.DueBy.Unix())
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
func (t *tx) ScheduledMessages(ctx context.Context, f store.ScheduledFilter) ([]store.ScheduledMessage, error) {
	q, args := scheduledSQL(f)
	return scanAll(ctx, t, "scheduled messages", func(r *sql.Rows, m *store.ScheduledMessage) error {
		return scanScheduled(r, m)
	}, q, args...)
}

// CreateScheduledMessage implements [store.ScheduledMessageStore]. Both
// kinds share one AUTOINCREMENT id space, so no id is ever reused.
func (t *tx) CreateScheduledMessage(ctx context.Context, m *store.ScheduledMessage) error {
	if err := t.writable(); err != nil {
		return err
	}
	args := append([]any{idArg(m.ID)}, scheduledArgs(m)...)
	err := t.queryRow(ctx, "INSERT INTO scheduled_messages ("+scheduledCols+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, args...).Scan(&m.ID)
	return classify(err, "create scheduled message")
}

// UpdateScheduledMessage implements [store.ScheduledMessageStore].
func (t *tx) UpdateScheduledMessage(ctx context.Context, m *store.ScheduledMessage) error {
	if err := t.writable(); err != nil {
		return err
	}
	what := fmt.Sprintf("update scheduled message %d", m.ID)
	res, err := t.exec(ctx, `UPDATE scheduled_messages SET realm_id = ?, sender_id = ?, kind = ?, type = ?,
		stream_id = ?, topic = ?, direct_members = ?, content = ?, rendered_content = ?, deliver_at = ?,
		delivered = ?, failed = ?, failure_message = ?, delivered_message_id = ?,
		reminder_target_message_id = ?, reminder_note = ? WHERE id = ?`, append(scheduledArgs(m), m.ID)...)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

// DeleteScheduledMessage implements [store.ScheduledMessageStore].
func (t *tx) DeleteScheduledMessage(ctx context.Context, id store.ScheduledMessageID) error {
	if err := t.writable(); err != nil {
		return err
	}
	what := fmt.Sprintf("delete scheduled message %d", id)
	res, err := t.exec(ctx, "DELETE FROM scheduled_messages WHERE id = ?", id)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}
