package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// prependHistorySQL inserts one edit-history entry for each message id of
// $9 as its most recent one: a seq below every seq of the message (history
// is read by ascending seq, most recent first).
const prependHistorySQL = `INSERT INTO edit_history (message_id, seq, user_id, timestamp, prev_content,
	prev_rendered_content, prev_stream_id, stream_id, prev_topic, topic)
	SELECT j.id, coalesce((SELECT min(h.seq) FROM edit_history h WHERE h.message_id = j.id), 0) - 1,
		$1, $2, $3, $4, $5, $6, $7, $8 FROM unnest($9::bigint[]) AS j(id)`

func historyArgs(e store.EditHistoryEntry, ids []store.MessageID) []any {
	return []any{e.UserID, timeArg(e.Timestamp), e.PrevContent, e.PrevRenderedContent, idArg(e.PrevStreamID),
		idArg(e.StreamID), e.PrevTopic, e.Topic, ids}
}

// EditMessage implements [store.MessageStore] with one UPDATE and one
// INSERT. For a message the transaction has read (see tx.messages), which
// exists until the transaction ends unless a conflict fails it, both are
// held back to go with the transaction's next statement or its COMMIT (see
// holdBack); for any other they run at once, so that a missing message is
// ErrNotFound at once. Nothing an announced read answers comes from
// messages (see writableKeepingAnswers).
func (t *tx) EditMessage(ctx context.Context, m *store.Message, entry store.EditHistoryEntry) error {
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	what := fmt.Sprintf("edit message %d", m.ID)
	m.TopicKey = store.TopicKey(m.Topic)
	update := []any{m.Content, m.RenderedContent, m.IsMeMessage, m.DefaultFlags, m.Topic, m.TopicKey,
		int64(m.StreamID), m.RecipientID, timeArg(m.LastEditedAt), timeArg(m.LastMovedAt), m.ID}
	history := historyArgs(entry, []store.MessageID{m.ID})
	if slices.Contains(t.messages, m.ID) {
		err := t.holdBack(what, editMessageSQL, update, func(tag pgconn.CommandTag) error { return mustAffect(tag, nil, what) })
		if err != nil {
			return err
		}
		return t.holdBack(what, prependHistorySQL, history, nil)
	}
	tag, err := t.exec(ctx, editMessageSQL, update...)
	if err := mustAffect(tag, err, what); err != nil {
		return err
	}
	_, err = t.exec(ctx, prependHistorySQL, history...)
	return classify(err, what)
}

// editMessageSQL writes the fields an edit changes of message $11.
const editMessageSQL = `UPDATE messages SET content = $1, rendered_content = $2, is_me_message = $3,
	default_flags = $4, topic = $5, topic_key = $6, stream_id = $7, recipient_id = $8, last_edited_at = $9,
	last_moved_at = $10 WHERE id = $11`

// MoveMessages implements [store.MessageStore]: one query picks the
// messages (the channel+topic index, in id order), then a fixed number of
// set-based statements move them, whatever their number.
func (t *tx) MoveMessages(ctx context.Context, mv store.MessageMove, limit int) ([]store.MessageID, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, fmt.Errorf("postgres: move messages: limit %d is not positive", limit)
	}
	ids, err := scanIDs[store.MessageID](ctx, t, "move messages", `SELECT id FROM messages
		WHERE stream_id = $1 AND topic_key = $2 AND type = 'stream' AND realm_id = $3 AND id >= $4
		AND ($5 = 0 OR id < $5) ORDER BY id LIMIT $6`, mv.StreamID, mv.TopicKey, mv.RealmID, mv.MinID,
		mv.BeforeID, limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	if mv.ToStream != mv.StreamID {
		// Every active subscriber of the new channel keeps (or gets) a row:
		// their row, or the message's default flags when their subscription
		// to the old channel covered it, or read.
		_, err := t.exec(ctx, `INSERT INTO user_message_flags (user_id, message_id, flags)
			SELECT s.user_id, m.id, CASE WHEN EXISTS (SELECT 1 FROM subscriptions o
				WHERE o.stream_id = m.stream_id AND o.user_id = s.user_id AND o.active
				AND o.since_message_id <= m.id) THEN m.default_flags ELSE $1 END
			FROM messages m JOIN subscriptions s ON s.stream_id = $2 AND s.active
			WHERE m.id = ANY($3)
			ON CONFLICT (user_id, message_id) DO NOTHING`, int32(store.FlagRead), mv.ToStream, ids)
		if err != nil {
			return nil, classify(err, "move messages: flags")
		}
		_, err = t.exec(ctx, `DELETE FROM user_message_flags WHERE message_id = ANY($1)
			AND user_id NOT IN (SELECT user_id FROM subscriptions WHERE stream_id = $2 AND active)`, ids, mv.ToStream)
		if err != nil {
			return nil, classify(err, "move messages: flags")
		}
	}
	_, err = t.exec(ctx, `UPDATE messages SET stream_id = $1, recipient_id = $2, topic = $3, topic_key = $4,
		last_moved_at = $5 WHERE id = ANY($6)`,
		mv.ToStream, mv.ToRecipient, mv.ToTopic, store.TopicKey(mv.ToTopic), timeArg(mv.MovedAt), ids)
	if err != nil {
		return nil, classify(err, "move messages")
	}
	if _, err := t.exec(ctx, prependHistorySQL, historyArgs(mv.Entry, ids)...); err != nil {
		return nil, classify(err, "move messages: edit history")
	}
	return ids, nil
}

// MessageFlagRows implements [store.FlagStore].
func (t *tx) MessageFlagRows(ctx context.Context, msg store.MessageID) ([]store.UserMessageFlags, error) {
	return scanAll(ctx, t, "message flag rows", func(r pgx.Rows, f *store.UserMessageFlags) error {
		return r.Scan(&f.UserID, &f.MessageID, &f.Flags)
	}, "SELECT user_id, message_id, flags FROM user_message_flags WHERE message_id = $1 ORDER BY user_id", msg)
}
