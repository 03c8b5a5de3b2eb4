package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// prependHistorySQL inserts one edit-history entry for each message id of a
// JSON list as its most recent one: a seq below every seq of the message
// (history is read by ascending seq, most recent first).
const prependHistorySQL = `INSERT INTO edit_history (message_id, seq, user_id, timestamp, prev_content,
	prev_rendered_content, prev_stream_id, stream_id, prev_topic, topic)
	SELECT j.value, coalesce((SELECT min(h.seq) FROM edit_history h WHERE h.message_id = j.value), 0) - 1,
		?, ?, ?, ?, ?, ?, ?, ? FROM json_each(?) j`

func historyArgs(e store.EditHistoryEntry, ids string) []any {
	return []any{e.UserID, timeArg(e.Timestamp), e.PrevContent, e.PrevRenderedContent, idArg(e.PrevStreamID),
		idArg(e.StreamID), optStrArg(e.PrevTopic), optStrArg(e.Topic), ids}
}

// EditMessage implements [store.MessageStore] with one UPDATE and one
// INSERT.
func (t *tx) EditMessage(ctx context.Context, m *store.Message, entry store.EditHistoryEntry) error {
	if err := t.writable(); err != nil {
		return err
	}
	what := fmt.Sprintf("edit message %d", m.ID)
	m.TopicKey = store.TopicKey(m.Topic)
	res, err := t.exec(ctx, `UPDATE messages SET content = ?, rendered_content = ?, is_me_message = ?,
		default_flags = ?, topic = ?, topic_key = ?, stream_id = ?, recipient_id = ?, last_edited_at = ?,
		last_moved_at = ? WHERE id = ?`,
		m.Content, m.RenderedContent, m.IsMeMessage, int64(m.DefaultFlags), m.Topic, m.TopicKey,
		int64(m.StreamID), m.RecipientID, timeArg(m.LastEditedAt), timeArg(m.LastMovedAt), m.ID)
	if err != nil {
		return classify(err, what)
	}
	if err := mustAffect(res, what); err != nil {
		return err
	}
	_, err = t.exec(ctx, prependHistorySQL, historyArgs(entry, idsJSON([]store.MessageID{m.ID}))...)
	return classify(err, what)
}

// MoveMessages implements [store.MessageStore]: one query picks the
// messages (the channel+topic index, in id order), then a fixed number of
// set-based statements move them, whatever their number.
func (t *tx) MoveMessages(ctx context.Context, mv store.MessageMove, limit int) ([]store.MessageID, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, fmt.Errorf("sqlite: move messages: limit %d is not positive", limit)
	}
	ids, err := scanIDs[store.MessageID](ctx, t, "move messages", `SELECT id FROM messages
		WHERE stream_id = ? AND topic_key = ? AND type = 'stream' AND +realm_id = ? AND id >= ?
		AND (? = 0 OR id < ?) ORDER BY id LIMIT ?`, mv.StreamID, mv.TopicKey, mv.RealmID, mv.MinID,
		mv.BeforeID, mv.BeforeID, limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	list := idsJSON(ids)
	if mv.ToStream != mv.StreamID {
		// Every active subscriber of the new channel keeps (or gets) a row:
		// their row, or the message's default flags when their subscription
		// to the old channel covered it, or read.
		_, err := t.exec(ctx, `INSERT INTO user_message_flags (user_id, message_id, flags)
			SELECT s.user_id, m.id, CASE WHEN EXISTS (SELECT 1 FROM subscriptions o
				WHERE o.stream_id = m.stream_id AND o.user_id = s.user_id AND o.active = 1
				AND o.since_message_id <= m.id) THEN m.default_flags ELSE ? END
			FROM messages m JOIN subscriptions s ON s.stream_id = ? AND s.active = 1
			WHERE m.id IN (SELECT value FROM json_each(?))
			ON CONFLICT (user_id, message_id) DO NOTHING`, int64(store.FlagRead), mv.ToStream, list)
		if err != nil {
			return nil, classify(err, "move messages: flags")
		}
		_, err = t.exec(ctx, `DELETE FROM user_message_flags WHERE message_id IN (SELECT value FROM json_each(?))
			AND user_id NOT IN (SELECT user_id FROM subscriptions WHERE stream_id = ? AND active = 1)`, list, mv.ToStream)
		if err != nil {
			return nil, classify(err, "move messages: flags")
		}
	}
	_, err = t.exec(ctx, `UPDATE messages SET stream_id = ?, recipient_id = ?, topic = ?, topic_key = ?,
		last_moved_at = ? WHERE id IN (SELECT value FROM json_each(?))`,
		mv.ToStream, mv.ToRecipient, mv.ToTopic, store.TopicKey(mv.ToTopic), timeArg(mv.MovedAt), list)
	if err != nil {
		return nil, classify(err, "move messages")
	}
	if _, err := t.exec(ctx, prependHistorySQL, historyArgs(mv.Entry, list)...); err != nil {
		return nil, classify(err, "move messages: edit history")
	}
	return ids, nil
}

// MessageFlagRows implements [store.FlagStore].
func (t *tx) MessageFlagRows(ctx context.Context, msg store.MessageID) ([]store.UserMessageFlags, error) {
	return scanAll(ctx, t, "message flag rows", func(r *sql.Rows, f *store.UserMessageFlags) error {
		return r.Scan(&f.UserID, &f.MessageID, &f.Flags)
	}, "SELECT user_id, message_id, flags FROM user_message_flags WHERE message_id = ? ORDER BY user_id", msg)
}
