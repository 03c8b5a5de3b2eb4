package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

const scheduledCols = `id, realm_id, sender_id, kind, type, stream_id, topic, direct_members, content,
	rendered_content, deliver_at, delivered, failed, failure_message, delivered_message_id,
	reminder_target_message_id, reminder_note`

func scanScheduled(r interface{ Scan(...any) error }, m *store.ScheduledMessage) error {
	return r.Scan(&m.ID, &m.RealmID, &m.SenderID, &m.Kind, &m.Type, sqlstore.ID(&m.StreamID), &m.Topic,
		&m.DirectMembers, &m.Content, &m.RenderedContent, timeCol{&m.DeliverAt},
		&m.Delivered, &m.Failed, &m.FailureMessage, sqlstore.ID(&m.DeliveredMessageID),
		sqlstore.ID(&m.ReminderTargetMessageID), &m.ReminderNote)
}

// scheduledArgs returns the values of every column but id, in scheduledCols order.
func scheduledArgs(m *store.ScheduledMessage) []any {
	return []any{m.RealmID, m.SenderID, m.Kind, string(m.Type), idArg(m.StreamID), m.Topic,
		m.DirectMembers, m.Content, m.RenderedContent, timeArg(m.DeliverAt), m.Delivered, m.Failed,
		m.FailureMessage, idArg(m.DeliveredMessageID), idArg(m.ReminderTargetMessageID), m.ReminderNote}
}

// ScheduledMessage implements [store.ScheduledMessageStore]. In an
// Update it locks the row (FOR UPDATE): of two instances delivering one due
// message at once, the second waits for the first to commit, then fails
// with a serialization failure and runs again, finding the row delivered,
// instead of doing the whole delivery twice and failing only at commit.
func (t *tx) ScheduledMessage(ctx context.Context, id store.ScheduledMessageID) (*store.ScheduledMessage, error) {
	var m store.ScheduledMessage
	q := "SELECT " + scheduledCols + " FROM scheduled_messages WHERE id = $1"
	if !t.readOnly {
		q += " FOR UPDATE"
	}
	err := scanScheduled(t.queryRow(ctx, q, id), &m)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("scheduled message %d", id))
	}
	return &m, nil
}

// scheduledSQL builds the query of ScheduledMessages. The sender's listing
// (sender, kind, delivered, ordered by deliver_at) and the due-message scan
// (a partial index of the rows neither delivered nor failed) each have an
// index that also gives the order.
func scheduledSQL(f store.ScheduledFilter) (string, []any) {
	var p params
	var where []string
	if f.RealmID != 0 {
		where = append(where, "realm_id = "+p.add(f.RealmID))
	}
	if f.SenderID != 0 {
		where = append(where, "sender_id = "+p.add(f.SenderID))
	}
	if f.Kind != 0 {
		where = append(where, "kind = "+p.add(f.Kind))
	}
	if f.Delivered != nil {
		where = append(where, map[bool]string{true: "delivered", false: "NOT delivered"}[*f.Delivered])
	}
	if f.Failed != nil {
		where = append(where, map[bool]string{true: "failed", false: "NOT failed"}[*f.Failed])
	}
	if !f.DueBy.IsZero() {
		where = append(where, "deliver_at <= "+p.add(f.DueBy))
	}
	q := "SELECT " + scheduledCols + " FROM scheduled_messages"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY deliver_at, id"
	if f.Limit > 0 {
		q += " LIMIT " + strconv.Itoa(f.Limit)
	}
	return q, p.args
}

// ScheduledMessages implements [store.ScheduledMessageStore].
func (t *tx) ScheduledMessages(ctx context.Context, f store.ScheduledFilter) ([]store.ScheduledMessage, error) {
	q, args := scheduledSQL(f)
	return scanAll(ctx, t, "scheduled messages", func(r pgx.Rows, m *store.ScheduledMessage) error {
		return scanScheduled(r, m)
	}, q, args...)
}

// CreateScheduledMessage implements [store.ScheduledMessageStore]. Both
// kinds share one id sequence, so no id is ever reused.
func (t *tx) CreateScheduledMessage(ctx context.Context, m *store.ScheduledMessage) error {
	if err := t.writable(); err != nil {
		return err
	}
	id, err := t.InsertWithID(ctx, "scheduled_messages", "create scheduled message",
		"INSERT INTO scheduled_messages ("+scheduledCols+") VALUES ("+idValue("scheduled_messages")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING id",
		int64(m.ID), scheduledArgs(m)...)
	if err != nil {
		return err
	}
	m.ID = store.ScheduledMessageID(id)
	return nil
}

// UpdateScheduledMessage implements [store.ScheduledMessageStore].
func (t *tx) UpdateScheduledMessage(ctx context.Context, m *store.ScheduledMessage) error {
	if err := t.writable(); err != nil {
		return err
	}
	tag, err := t.exec(ctx, `UPDATE scheduled_messages SET realm_id = $1, sender_id = $2, kind = $3, type = $4,
		stream_id = $5, topic = $6, direct_members = $7, content = $8, rendered_content = $9, deliver_at = $10,
		delivered = $11, failed = $12, failure_message = $13, delivered_message_id = $14,
		reminder_target_message_id = $15, reminder_note = $16 WHERE id = $17`, append(scheduledArgs(m), m.ID)...)
	return mustAffect(tag, err, fmt.Sprintf("update scheduled message %d", m.ID))
}

// DeleteScheduledMessage implements [store.ScheduledMessageStore].
func (t *tx) DeleteScheduledMessage(ctx context.Context, id store.ScheduledMessageID) error {
	if err := t.writable(); err != nil {
		return err
	}
	tag, err := t.exec(ctx, "DELETE FROM scheduled_messages WHERE id = $1", id)
	return mustAffect(tag, err, fmt.Sprintf("delete scheduled message %d", id))
}
