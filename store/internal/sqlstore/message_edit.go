package sqlstore

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// EditMessageSQL writes the fields an edit changes of message $11, from
// the arguments [Tx.EditMessageArgs] returns.
const EditMessageSQL = `UPDATE messages SET content = $1, rendered_content = $2, is_me_message = $3,
	default_flags = $4, topic = $5, topic_key = $6, stream_id = $7, recipient_id = $8, last_edited_at = $9,
	last_moved_at = $10, has = $12 WHERE id = $11`

// EditMessageArgs returns the arguments of EditMessageSQL for m, whose
// TopicKey the caller has set.
func (x *Tx) EditMessageArgs(m *store.Message) []any {
	return []any{m.Content, m.RenderedContent, m.IsMeMessage, int64(m.DefaultFlags), m.Topic, m.TopicKey,
		int64(m.StreamID), m.RecipientID, x.d.Time(m.LastEditedAt), x.d.Time(m.LastMovedAt), m.ID, int64(m.Has)}
}

// PrependHistorySQL returns the statement that inserts one edit-history
// entry for each message id of the list $9 as its most recent one: a seq
// below every seq of the message (history is read by ascending seq, most
// recent first). Its arguments are those [Tx.HistoryArgs] returns.
func (x *Tx) PrependHistorySQL() string {
	return `INSERT INTO edit_history (message_id, seq, user_id, timestamp, prev_content,
	prev_rendered_content, prev_stream_id, stream_id, prev_topic, topic)
	SELECT j.id, coalesce((SELECT min(h.seq) FROM edit_history h WHERE h.message_id = j.id), 0) - 1,
		$1, $2, $3, $4, $5, $6, $7, $8 FROM (SELECT value AS id FROM ` + x.d.Each("$9", "bigint") + `) AS j`
}

// HistoryArgs returns the arguments of PrependHistorySQL: the entry e for
// each message of ids, a list argument of the dialect (see List).
func (x *Tx) HistoryArgs(e store.EditHistoryEntry, ids any) []any {
	opt := func(p *string) any {
		if p == nil {
			return nil
		}
		return *p
	}
	return []any{e.UserID, x.d.Time(e.Timestamp), e.PrevContent, e.PrevRenderedContent, IDArg(e.PrevStreamID),
		IDArg(e.StreamID), opt(e.PrevTopic), opt(e.Topic), ids}
}

// EditMessage implements [store.MessageStore] with one UPDATE and one
// INSERT.
func (x *Tx) EditMessage(ctx context.Context, m *store.Message, entry store.EditHistoryEntry) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	what := fmt.Sprintf("edit message %d", m.ID)
	m.TopicKey = store.TopicKey(m.Topic)
	n, err := x.q.Exec(ctx, EditMessageSQL, x.EditMessageArgs(m)...)
	if err := x.mustAffect(n, err, what); err != nil {
		return err
	}
	ids := List(x.d, []store.MessageID{m.ID})
	_, err = x.q.Exec(ctx, x.PrependHistorySQL(), x.HistoryArgs(entry, ids)...)
	return x.classify(err, what)
}

// SetRenderedContent implements [store.MessageStore] with one UPDATE.
func (x *Tx) SetRenderedContent(ctx context.Context, id store.MessageID, html string) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "UPDATE messages SET rendered_content = $2 WHERE id = $1", int64(id), html)
	return x.mustAffect(n, err, fmt.Sprintf("set rendered content of message %d", id))
}

// MoveMessages implements [store.MessageStore]: one query picks the
// messages (the channel+topic index, in id order), then a fixed number of
// set-based statements move them, whatever their number.
func (x *Tx) MoveMessages(ctx context.Context, mv store.MessageMove, limit int) ([]store.MessageID, error) {
	if err := x.q.Writable(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, fmt.Errorf("%s: move messages: limit %d is not positive", x.d.Name, limit)
	}
	ids, err := scanAll(ctx, x, "move messages", func(r Row, id *store.MessageID) error { return r.Scan(Num(id)) },
		`SELECT id FROM messages
		WHERE stream_id = $1 AND topic_key = $2 AND type = 'stream' AND realm_id = $3 AND id >= $4
		AND ($5 = 0 OR id < $5) ORDER BY id LIMIT $6`, mv.StreamID, mv.TopicKey, mv.RealmID, mv.MinID,
		mv.BeforeID, limit)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	list := List(x.d, ids)
	if mv.ToStream != mv.StreamID {
		// Every active subscriber of the new channel keeps (or gets) a row:
		// the flags they had on it (their row, or the derived ones when they
		// received it), or read.
		_, err := x.q.Exec(ctx, `INSERT INTO user_message_flags (user_id, message_id, flags)
			SELECT s.user_id, m.id, coalesce(`+EffFlags("s.user_id")+`, $1)
			FROM messages m JOIN subscriptions s ON s.stream_id = $2 AND s.active
			WHERE `+x.d.In("m.id", "$3", "bigint")+`
			ON CONFLICT (user_id, message_id) DO NOTHING`, int32(store.FlagRead), mv.ToStream, list)
		if err != nil {
			return nil, x.classify(err, "move messages: flags")
		}
		_, err = x.q.Exec(ctx, `DELETE FROM user_message_flags WHERE `+x.d.In("message_id", "$1", "bigint")+`
			AND user_id NOT IN (SELECT user_id FROM subscriptions WHERE stream_id = $2 AND active)`, list, mv.ToStream)
		if err != nil {
			return nil, x.classify(err, "move messages: flags")
		}
	}
	_, err = x.q.Exec(ctx, `UPDATE messages SET stream_id = $1, recipient_id = $2, topic = $3, topic_key = $4,
		last_moved_at = $5 WHERE `+x.d.In("id", "$6", "bigint"),
		mv.ToStream, mv.ToRecipient, mv.ToTopic, store.TopicKey(mv.ToTopic), x.d.Time(mv.MovedAt), list)
	if err != nil {
		return nil, x.classify(err, "move messages")
	}
	if _, err := x.q.Exec(ctx, x.PrependHistorySQL(), x.HistoryArgs(mv.Entry, list)...); err != nil {
		return nil, x.classify(err, "move messages: edit history")
	}
	return ids, nil
}
