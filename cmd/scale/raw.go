package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// The raw siblings: for each read, one hand-written statement over the
// store's tables that returns the ids the request answers with, on the same
// database, through the indexes a read of one user's messages needs. They
// are given what the user is in (their channels' and conversations'
// recipients, with their read marks, read once before the timing) and rely
// on facts of the generated organisation: every subscription is active from
// the first message on (SinceMessageID 0), every channel's history is
// public, every flag row is a receiver's, and no message has default flags
// (no wildcard mentions). So what a user received is the messages to those
// recipients, and a message's flags are its row's, or read when the user
// sent it or their read mark of its recipient covers it.
//
// Statements over a user's messages are a UNION ALL of one range per
// recipient, each newest (or oldest) first with its own LIMIT, merged and
// cut again: each range is a walk of messages_recipient (or
// messages_recipient_sender) that stops after LIMIT rows.
//
// Placeholders are written "?"; on PostgreSQL they become $1, $2, ...

// rawQuery is a raw sibling: the statement and its arguments.
type rawQuery struct {
	sql  string
	args []any
}

// forPostgres returns q with numbered placeholders.
func (q rawQuery) forPostgres() string {
	var b strings.Builder
	n := 0
	for _, c := range q.sql {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// recipientMark is one channel or conversation a user is in, with the
// user's read mark of it (0: none).
type recipientMark struct {
	recipient store.RecipientID
	through   store.MessageID
}

// userRecipients reads the recipients user is in, with their read marks.
func (r *rawDB) userRecipients(ctx context.Context, user store.UserID) ([]recipientMark, error) {
	const q = `SELECT x.recipient_id, coalesce(rm.through, 0) FROM (
	SELECT st.recipient_id FROM subscriptions s JOIN streams st ON st.id = s.stream_id WHERE s.user_id = ? AND s.active
	UNION ALL SELECT rm.recipient_id FROM recipient_members rm WHERE rm.user_id = ?) x
	LEFT JOIN read_marks rm ON rm.user_id = ? AND rm.recipient_id = x.recipient_id ORDER BY 1`
	rows, err := r.pairs(ctx, rawQuery{sql: q, args: []any{int64(user), int64(user), int64(user)}})
	if err != nil {
		return nil, err
	}
	out := make([]recipientMark, len(rows))
	for i, p := range rows {
		out[i] = recipientMark{store.RecipientID(p[0]), store.MessageID(p[1])}
	}
	return out, nil
}

// rawReceived returns the statement selecting the ids of the received
// messages matching cond (a condition on m, with one set of condArgs per
// recipient; mark gives it the recipient's read mark), newest first when
// desc, at most limit.
func rawReceived(rs []recipientMark, cond func(rm recipientMark) (string, []any), desc bool, limit int) rawQuery {
	order := "ASC"
	if desc {
		order = "DESC"
	}
	var parts []string
	var args []any
	for _, rm := range rs {
		where := "m.recipient_id = ?"
		args = append(args, int64(rm.recipient))
		if cond != nil {
			c, a := cond(rm)
			where += " AND " + c
			args = append(args, a...)
		}
		parts = append(parts, fmt.Sprintf("SELECT id FROM (SELECT m.id FROM messages m WHERE %s ORDER BY m.id %s LIMIT %d) r%d",
			where, order, limit, len(parts)))
	}
	if len(parts) == 0 {
		return rawQuery{sql: "SELECT 0 WHERE 1 = 0"}
	}
	return rawQuery{sql: fmt.Sprintf("SELECT id FROM (%s) u ORDER BY id %s LIMIT %d", strings.Join(parts, " UNION ALL "), order, limit), args: args}
}

// rawUnread is the oldest limit unread messages of the user: per
// recipient, the messages of others above the read mark without a flag row
// (a row decides a message's flags), and the user's unread rows
// (user_message_flags_unread) among those recipients.
func rawUnread(user store.UserID, rs []recipientMark, limit int) rawQuery {
	above := rawReceived(rs, func(rm recipientMark) (string, []any) {
		return "m.id > ? AND m.sender_id <> ? AND NOT EXISTS (SELECT 1 FROM user_message_flags f WHERE f.user_id = ? AND f.message_id = m.id)",
			[]any{int64(rm.through), int64(user), int64(user)}
	}, false, limit)
	in := make([]string, len(rs))
	args := append([]any{}, above.args...)
	args = append(args, int64(user))
	for i, rm := range rs {
		in[i] = "?"
		args = append(args, int64(rm.recipient))
	}
	return rawQuery{
		sql: fmt.Sprintf(`SELECT id FROM (SELECT id FROM (%s) a UNION SELECT id FROM (SELECT f.message_id AS id FROM user_message_flags f JOIN messages m ON m.id = f.message_id
	WHERE f.user_id = ? AND (f.flags & 1) = 0 AND m.recipient_id IN (%s) ORDER BY f.message_id LIMIT %d) rows_) x ORDER BY id LIMIT %d`,
			above.sql, strings.Join(in, ", "), limit, limit),
		args: args,
	}
}

// rawUnreadCount counts the user's unread messages, as rawUnread selects them.
func rawUnreadCount(user store.UserID, rs []recipientMark) rawQuery {
	q := rawUnread(user, rs, 1<<30)
	return rawQuery{sql: "SELECT count(*) FROM (" + q.sql + ") c", args: q.args}
}

// hasCond is a has: condition on the stored Has bits.
func hasCond(h store.MessageHas) func(recipientMark) (string, []any) {
	return func(recipientMark) (string, []any) { return fmt.Sprintf("(m.has & %d) <> 0", h), nil }
}

// senderCond is a sender: condition.
func senderCond(sender store.UserID) func(recipientMark) (string, []any) {
	return func(recipientMark) (string, []any) { return "m.sender_id = ?", []any{int64(sender)} }
}

// rawFlagged returns the newest limit ids of the user's flag rows with any
// bit of f (the partial indexes on user_message_flags).
func rawFlagged(user store.UserID, f store.MessageFlags, limit int) rawQuery {
	cond := fmt.Sprintf("(f.flags & %d) <> 0", f)
	if f == store.FlagStarred {
		cond = "(f.flags & 2) = 2" // as the partial index states it
	}
	return rawQuery{
		sql:  fmt.Sprintf(`SELECT f.message_id FROM user_message_flags f WHERE f.user_id = ? AND %s ORDER BY f.message_id DESC LIMIT %d`, cond, limit),
		args: []any{int64(user)},
	}
}

// rawMaxReceived is the newest message the user received (register's
// max_message_id).
func rawMaxReceived(rs []recipientMark) rawQuery {
	q := rawReceived(rs, nil, true, 1)
	return rawQuery{sql: "SELECT coalesce(max(id), 0) FROM (" + q.sql + ") x", args: q.args}
}

// rawTopics is each topic's newest message id of the channel, newest first.
func rawTopics(stream store.StreamID) rawQuery {
	return rawQuery{
		sql:  "SELECT max(m.id) FROM messages m WHERE m.stream_id = ? GROUP BY m.topic_key ORDER BY 1 DESC",
		args: []any{int64(stream)},
	}
}

// rawTopic is the newest limit messages of a channel topic.
func rawTopic(stream store.StreamID, topic string, limit int) rawQuery {
	return rawQuery{
		sql:  fmt.Sprintf("SELECT m.id FROM messages m WHERE m.stream_id = ? AND m.topic_key = ? ORDER BY m.id DESC LIMIT %d", limit),
		args: []any{int64(stream), store.TopicKey(topic)},
	}
}

// rawConversation is the newest limit messages to one recipient.
func rawConversation(recipient store.RecipientID, limit int) rawQuery {
	return rawQuery{
		sql:  fmt.Sprintf("SELECT m.id FROM messages m WHERE m.recipient_id = ? ORDER BY m.id DESC LIMIT %d", limit),
		args: []any{int64(recipient)},
	}
}
