package main

import (
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// The raw siblings: for each read, one hand-written statement over the
// store's tables that returns the ids the request answers with, on the same
// database. They rely on facts of the generated organisation: every
// subscription is active from the first message on (SinceMessageID 0), every
// channel's history is public, every flag row is a receiver's, and no
// message has default flags (no wildcard mentions), so what a user received
// is the messages to the channels they are subscribed to and the
// conversations they take part in, and a message's flags are its row's.
//
// Placeholders are written "?"; on PostgreSQL they become $1, $2, ...

// receivedRecipients is the recipients whose messages user ? (given twice)
// received.
const receivedRecipients = `SELECT st.recipient_id FROM subscriptions s JOIN streams st ON st.id = s.stream_id
	WHERE s.user_id = ? AND s.active
	UNION ALL SELECT rm.recipient_id FROM recipient_members rm WHERE rm.user_id = ?`

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

// rawReceived returns the statement selecting the ids of user's received
// messages matching cond (with its args), ordered by id (desc: newest
// first), at most limit.
func rawReceived(user store.UserID, cond string, condArgs []any, desc bool, limit int) rawQuery {
	order := "ASC"
	if desc {
		order = "DESC"
	}
	where := ""
	if cond != "" {
		where = " AND " + cond
	}
	return rawQuery{
		sql:  fmt.Sprintf("SELECT m.id FROM messages m WHERE m.recipient_id IN (%s)%s ORDER BY m.id %s LIMIT %d", receivedRecipients, where, order, limit),
		args: append([]any{int64(user), int64(user)}, condArgs...),
	}
}

// unreadCond is the condition that m is unread for user ? (one argument).
//
// TO WIRE: once the store keeps a per-recipient read mark
// (FlagStore.MarkReadThrough), a message at or below the user's mark of its
// recipient is read too; add that condition here.
const unreadCond = `(coalesce((SELECT f.flags FROM user_message_flags f WHERE f.user_id = ? AND f.message_id = m.id), m.default_flags) & 1) = 0`

// linkCond is has:link as chatcore computes it from the Markdown.
//
// TO WIRE: once messages store their Has bits, test store.HasLink instead.
const linkCond = `(m.content LIKE '%http://%' OR m.content LIKE '%https://%' OR m.content LIKE '%/user\_uploads%' ESCAPE '\')`

// rawFlagged returns the newest limit ids of user's flag rows with any bit
// of f.
func rawFlagged(user store.UserID, f store.MessageFlags, limit int) rawQuery {
	return rawQuery{
		sql: fmt.Sprintf(`SELECT f.message_id FROM user_message_flags f WHERE f.user_id = ? AND (f.flags & %d) <> 0
	ORDER BY f.message_id DESC LIMIT %d`, f, limit),
		args: []any{int64(user)},
	}
}

// rawMaxReceived is the newest message user received (register's
// max_message_id).
func rawMaxReceived(user store.UserID) rawQuery {
	return rawQuery{
		sql:  "SELECT coalesce(max(m.id), 0) FROM messages m WHERE m.recipient_id IN (" + receivedRecipients + ")",
		args: []any{int64(user), int64(user)},
	}
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

// rawUnreadCount counts the messages user received and has not read.
func rawUnreadCount(user store.UserID) rawQuery {
	return rawQuery{
		sql:  "SELECT count(*) FROM messages m WHERE m.recipient_id IN (" + receivedRecipients + ") AND " + unreadCond,
		args: []any{int64(user), int64(user), int64(user)},
	}
}
