package postgres

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// effFlagsSQL is sqlstore.EffFlagsSQL: the flags of the user $1 on the
// message m.
var effFlagsSQL = sqlstore.EffFlagsSQL

func scanUserMessageRow(r pgx.Rows, um *store.UserMessage) error {
	return dialect.ScanUserMessage(r, um)
}

// userMessagesSQL reads the user $1's view of the messages $2.
var userMessagesSQL = "SELECT " + sqlstore.UserMessageCols + " FROM (SELECT m.*, " + effFlagsSQL + ` AS uf FROM messages m
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
	t.tx.wantPlan = planGeneric
	t.tx.enqueuePrefetch(userMessagesSQL, []any{r.User, r.IDs}, func(br pgx.BatchResults) (err error) {
		f.answer, err = readRows(br, "user messages", scanUserMessageRow)
		f.done = err == nil
		return err
	})
	t.tx.wantPlan = planDefault
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

// UpdateUserMessageFlags implements [store.FlagStore] as sqlstore.Tx
// does, on its generic plan (see onGenericPlan).
func (t *tx) UpdateUserMessageFlags(ctx context.Context, user store.UserID, ids []store.MessageID, flag store.MessageFlags, add bool) ([]store.MessageID, error) {
	return onGenericPlan(t, func() ([]store.MessageID, error) {
		return t.Tx.UpdateUserMessageFlags(ctx, user, ids, flag, add)
	})
}
