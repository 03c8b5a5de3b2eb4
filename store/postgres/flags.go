package postgres

import (
	"context"
	"slices"
	"strconv"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
)

// effFlagsSQL is the flags of the user $1 on the message m, NULL when the
// user did not receive it: the flag row when there is one, otherwise
// m.default_flags for a participant of a direct message or a user whose
// active subscription covers m.
const effFlagsSQL = `coalesce(
	(SELECT f.flags FROM user_message_flags f WHERE f.user_id = $1 AND f.message_id = m.id),
	CASE WHEN m.type = 'private' THEN
		CASE WHEN EXISTS (SELECT 1 FROM recipient_members rm WHERE rm.recipient_id = m.recipient_id AND rm.user_id = $1)
		THEN m.default_flags END
	ELSE
		CASE WHEN EXISTS (SELECT 1 FROM subscriptions s WHERE s.stream_id = m.stream_id AND s.user_id = $1
			AND s.active AND s.since_message_id <= m.id)
		THEN m.default_flags END
	END)`

// flagConditionSQL is the condition on uf of a query with FlagUser. The flag
// values are small integers, written into the statement.
func flagConditionSQL(q store.MessageQuery) string {
	all, anyOf, none := strconv.Itoa(int(q.AllFlags)), strconv.Itoa(int(q.AnyFlags)), strconv.Itoa(int(q.NoFlags))
	cond := "uf IS NOT NULL AND uf & " + all + " = " + all + " AND uf & " + none + " = 0"
	if q.AnyFlags != 0 {
		cond += " AND uf & " + anyOf + " <> 0"
	}
	return cond
}

const userMessageCols = "id, realm_id, type, stream_id, topic, sender_id, direct_members, uf"

func scanUserMessage(r interface{ Scan(...any) error }, um *store.UserMessage) error {
	var uf *int32
	err := r.Scan(&um.ID, &um.RealmID, &um.Type, &um.StreamID, &um.Topic, &um.SenderID, &um.DirectMembers, &uf)
	um.Received, um.Flags = uf != nil, 0
	if uf != nil {
		um.Flags = store.MessageFlags(*uf)
	}
	if um.Type != store.MessageTypePrivate {
		um.DirectMembers = nil
	}
	return err
}

func scanUserMessageRow(r pgx.Rows, um *store.UserMessage) error { return scanUserMessage(r, um) }

// userMessagesSQL reads the user $1's view of the messages $2.
const userMessagesSQL = "SELECT " + userMessageCols + " FROM (SELECT m.*, " + effFlagsSQL + ` AS uf FROM messages m
	WHERE m.id = ANY($2)) m ORDER BY id`

// UserMessages implements [store.FlagStore] with one query, on its
// generic plan (see onGenericPlan), or from the answer of the same read
// announced (see Prefetch).
func (t *tx) UserMessages(ctx context.Context, user store.UserID, ids []store.MessageID) ([]store.UserMessage, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	if f := t.userMessages; f != nil && f.done && t.failed == nil && f.read.User == user && slices.Equal(f.read.IDs, ids) {
		t.userMessages = nil
		return f.answer, nil
	}
	return onGenericPlan(t, func() ([]store.UserMessage, error) {
		return scanAll(ctx, t, "user messages", scanUserMessageRow, userMessagesSQL, user, ids)
	})
}

// fetchedUserMessages is an announced UserMessages read and, once done,
// its answer.
type fetchedUserMessages struct {
	read   store.UserMessagesRead
	done   bool
	answer []store.UserMessage
}

// prefetchUserMessages queues the announced read r (see Prefetch) on its
// generic plan, as UserMessages runs it.
func (t *tx) prefetchUserMessages(r store.UserMessagesRead) {
	r.IDs = slices.Clone(r.IDs)
	f := &fetchedUserMessages{read: r}
	t.userMessages = f // a write may forget it before the answer arrives
	t.tx.wantGeneric = true
	t.tx.enqueuePrefetch(userMessagesSQL, []any{r.User, r.IDs}, func(br pgx.BatchResults) (err error) {
		f.answer, err = readRows(br, "user messages", scanUserMessageRow)
		f.done = err == nil
		return err
	})
	t.tx.wantGeneric = false
}

// PutUserMessageFlags implements [store.FlagStore] with one statement,
// held back to go with the transaction's next statement or its COMMIT (see
// holdBack): nothing waits for its answer. Its rows hang off a message and
// a user, and every caller writes them for messages and users it has read
// or created in the transaction; neither is deleted while the transaction
// runs without a conflict, so only a conflict fails the statement, and it
// then fails the Update as at once. When rows name one (user, message)
// twice, the last one wins.
func (t *tx) PutUserMessageFlags(ctx context.Context, rows []store.UserMessageFlags) error {
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	users, msgs, flags := make([]int64, len(rows)), make([]int64, len(rows)), make([]int32, len(rows))
	for i, r := range rows {
		users[i], msgs[i], flags[i] = int64(r.UserID), int64(r.MessageID), int32(r.Flags)
	}
	return t.holdBack("put message flags", `INSERT INTO user_message_flags (user_id, message_id, flags)
		SELECT DISTINCT ON (u, m) u, m, f
		FROM unnest($1::bigint[], $2::bigint[], $3::integer[]) WITH ORDINALITY AS r(u, m, f, ord)
		ORDER BY u, m, ord DESC
		ON CONFLICT (user_id, message_id) DO UPDATE SET flags = excluded.flags`, []any{users, msgs, flags}, nil)
}

// UpdateUserMessageFlags implements [store.FlagStore] with one upsert
// that returns the changed ids, on its generic plan (see onGenericPlan).
func (t *tx) UpdateUserMessageFlags(ctx context.Context, user store.UserID, ids []store.MessageID, flag store.MessageFlags, add bool) ([]store.MessageID, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	f := strconv.Itoa(int(flag))
	next, changed := "uf & ~"+f, "uf & "+f+" <> 0"
	if add {
		next, changed = "uf | "+f, "uf & "+f+" <> "+f
	}
	out, err := onGenericPlan(t, func() ([]store.MessageID, error) {
		return scanIDs[store.MessageID](ctx, t, "update message flags",
			`INSERT INTO user_message_flags (user_id, message_id, flags)
			SELECT $1, id, `+next+` FROM (SELECT m.id, `+effFlagsSQL+` AS uf FROM messages m
				WHERE m.id = ANY($2)) m
			WHERE uf IS NOT NULL AND `+changed+`
			ON CONFLICT (user_id, message_id) DO UPDATE SET flags = excluded.flags
			RETURNING message_id`, user, ids)
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// UnreadMessages implements [store.FlagStore]: the candidates are the
// user's direct conversations, the messages their active subscriptions cover
// and their flag rows, each found through an index.
func (t *tx) UnreadMessages(ctx context.Context, user store.UserID, limit int) ([]store.UserMessage, error) {
	return scanAll(ctx, t, "unread messages", func(r pgx.Rows, um *store.UserMessage) error { return scanUserMessage(r, um) },
		"SELECT "+userMessageCols+" FROM (SELECT m.*, "+effFlagsSQL+` AS uf FROM messages m WHERE m.id IN (
			SELECT m2.id FROM recipient_members rm JOIN messages m2 ON m2.recipient_id = rm.recipient_id
				WHERE rm.user_id = $1
			UNION ALL
			SELECT m3.id FROM subscriptions s
				JOIN messages m3 ON m3.stream_id = s.stream_id AND m3.id >= s.since_message_id
				WHERE s.user_id = $1 AND s.active
			UNION ALL
			SELECT message_id FROM user_message_flags WHERE user_id = $1)) m
		WHERE uf IS NOT NULL AND uf & 1 = 0 ORDER BY id DESC LIMIT $2`, user, limit)
}

// FlaggedMessageIDs implements [store.FlagStore]. Flags other than
// stream_wildcard_mentioned exist only in rows, so only rows are searched
// for them.
func (t *tx) FlaggedMessageIDs(ctx context.Context, user store.UserID, flag store.MessageFlags) ([]store.MessageID, error) {
	f := strconv.Itoa(int(flag))
	query := "SELECT message_id FROM user_message_flags WHERE user_id = $1 AND flags & " + f + " = " + f
	if flag&^store.FlagStreamWildcardMentioned == 0 {
		query = "SELECT id FROM (SELECT m.id, " + effFlagsSQL + " AS uf FROM messages m WHERE m.default_flags & " + f + " = " + f +
			") m WHERE uf & " + f + " = " + f + " UNION " + query
	}
	out, err := scanIDs[store.MessageID](ctx, t, "flagged messages", query, user)
	slices.Sort(out)
	return out, err
}
