package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

func scanMessage(r interface{ Scan(...any) error }, m *store.Message) error {
	return r.Scan(num(&m.ID), num(&m.RealmID), num(&m.SenderID), typeCol{&m.Type}, num(&m.RecipientID), num(&m.StreamID),
		&m.Topic, &m.TopicKey, listCol[store.UserID]{&m.DirectMembers}, &m.Content, &m.RenderedContent, &m.Client,
		sqlstore.Time(&m.SentAt), sqlstore.Time(&m.LastEditedAt), sqlstore.Time(&m.LastMovedAt), &m.IsMeMessage, num(&m.DefaultFlags), num(&m.Has))
}

// Message implements [store.MessageStore].
func (t *tx) Message(ctx context.Context, id store.MessageID) (*store.Message, error) {
	var m store.Message
	if err := scanMessage(t.queryRow(ctx, "SELECT "+sqlstore.MessageCols+" FROM messages WHERE id = ?", id), &m); err != nil {
		return nil, classify(err, fmt.Sprintf("message %d", id))
	}
	if err := t.attachChildren(ctx, []*store.Message{&m}); err != nil {
		return nil, err
	}
	return &m, nil
}

// Messages implements [store.MessageStore]. Reactions, edit history and
// submessages are loaded with one query each for the whole result. A
// search whose term drives the read through the full-text index reads the
// index's tail's matches with a second statement (see searchTail).
func (t *tx) Messages(ctx context.Context, q store.MessageQuery) ([]store.Message, error) {
	tail, err := t.searchTail(ctx, q)
	if err != nil {
		return nil, err
	}
	msgs, err := t.messageRows(ctx, q, dialect.PlainMessagesSQL)
	if err != nil {
		return nil, err
	}
	if tq, ok := tailQuery(q, tail); ok {
		more, err := t.messageRows(ctx, tq, undriven.PlainMessagesSQL)
		if err != nil {
			return nil, err
		}
		msgs = mergeByID(q, msgs, more, func(m *store.Message) store.MessageID { return m.ID })
	}
	if len(msgs) == 0 {
		return msgs, nil
	}
	ptrs := make([]*store.Message, len(msgs))
	for i := range msgs {
		ptrs[i] = &msgs[i]
	}
	return msgs, t.attachChildren(ctx, ptrs)
}

// messageRows reads the rows of the messages q selects, with plain as
// MessagesSQL's plain statement.
func (t *tx) messageRows(ctx context.Context, q store.MessageQuery, plain func(store.MessageQuery) (string, []any, bool)) ([]store.Message, error) {
	query, args, ok, err := t.MessagesSQL(ctx, q, plain)
	if err != nil || !ok {
		return nil, err
	}
	return scanAll(ctx, t, "messages", func(r *sql.Rows, m *store.Message) error { return scanMessage(r, m) },
		query, args...)
}

// MessageIDs implements [store.MessageStore]; a search reads the index's
// tail as Messages does.
func (t *tx) MessageIDs(ctx context.Context, q store.MessageQuery) ([]store.MessageID, error) {
	tail, err := t.searchTail(ctx, q)
	if err != nil {
		return nil, err
	}
	ids, err := t.Tx.MessageIDs(ctx, q)
	if err != nil {
		return nil, err
	}
	tq, ok := tailQuery(q, tail)
	if !ok {
		return ids, nil
	}
	query, args, ok, err := t.MessagesSQL(ctx, tq, undriven.PlainMessagesSQL)
	if err != nil || !ok {
		return ids, err
	}
	more, err := scanAll(ctx, t, "message ids", func(r *sql.Rows, id *store.MessageID) error { return r.Scan(num(id)) },
		"SELECT id FROM ("+query+") q"+sqlstore.OrderByID(q.Newest, 0), args...)
	if err != nil {
		return nil, err
	}
	return mergeByID(q, ids, more, func(id *store.MessageID) store.MessageID { return *id }), nil
}

// attachChildren loads the reactions, edit history and submessages of msgs.
func (t *tx) attachChildren(ctx context.Context, msgs []*store.Message) error {
	ids := make([]store.MessageID, len(msgs))
	for i, m := range msgs {
		ids[i] = m.ID
	}
	list, cond := idsJSON(ids), "message_id IN (SELECT value FROM json_each(?))"
	var ch sqlstore.MessageChildren
	var err error
	if ch.Reactions, err = scanAll(ctx, t, "reactions", func(r *sql.Rows, v *sqlstore.ChildReaction) error {
		return sqlstore.ScanReaction(r, v)
	}, sqlstore.ReactionsSQL(cond), list); err != nil {
		return err
	}
	if ch.Edits, err = scanAll(ctx, t, "edit history", func(r *sql.Rows, v *sqlstore.ChildEdit) error {
		return r.Scan(&v.ID, &v.E.UserID, sqlstore.Time(&v.E.Timestamp), &v.E.PrevContent, &v.E.PrevRenderedContent,
			sqlstore.ID(&v.E.PrevStreamID), sqlstore.ID(&v.E.StreamID),
			optStrCol{&v.E.PrevTopic}, optStrCol{&v.E.Topic})
	}, sqlstore.EditHistorySQL(cond), list); err != nil {
		return err
	}
	if ch.Subs, err = scanAll(ctx, t, "submessages", func(r *sql.Rows, s *store.Submessage) error {
		return sqlstore.ScanSubmessage(r, s)
	}, sqlstore.SubmessagesSQL(cond), list); err != nil {
		return err
	}
	ch.Attach(msgs)
	return nil
}

// CreateMessage implements [store.MessageStore]. A zero m.ID becomes an id
// above every id ever used (AUTOINCREMENT); an explicit one is kept, and later
// ids go above it.
func (t *tx) CreateMessage(ctx context.Context, m *store.Message) error {
	if err := t.writable(); err != nil {
		return err
	}
	m.TopicKey = store.TopicKey(m.Topic)
	// The id is the row id (id is INTEGER PRIMARY KEY), taken from the
	// statement's result: a plain INSERT skips the query machinery of a
	// RETURNING row.
	args := messageRowArgs(m)
	args[0] = idArg(m.ID)
	res, err := t.exec(ctx, "INSERT INTO messages ("+sqlstore.MessageCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
		args...)
	var rowID int64
	if err == nil {
		rowID, err = res.LastInsertId()
	}
	if err != nil {
		return classify(err, "create message")
	}
	if m.ID != 0 {
		if err := t.markExplicitIDs(ctx, []int64{rowID}); err != nil {
			return err
		}
	}
	id := store.MessageID(rowID)
	m.ID = id
	for i, r := range m.Reactions {
		_, err := t.exec(ctx, `INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
			VALUES (?, ?, ?, ?, ?, ?)`, id, i, r.UserID, r.EmojiName, r.EmojiCode, r.ReactionType)
		if err != nil {
			return classify(err, "create reaction")
		}
	}
	if err := t.CreateEditHistory(ctx, id, m.EditHistory); err != nil {
		return err
	}
	return t.CreateSubmessages(ctx, m)
}

// topicDeleteSQL builds, for a filter that selects one channel topic (and
// at most MinID and BeforeID besides the realm), a cheaper statement than
// DeleteSQL's: it takes the newest limit ids of the topic from the covering
// index messages_stream_topic alone and checks the realm and the type only on
// the rows it deletes, which the DELETE reads anyway. ok is false for any
// other filter.
//
// It deletes exactly the newest matching rows among the newest limit rows
// of the topic. When that is fewer than limit, every further matching row is
// older than all of them, so a DeleteSQL statement for the rest completes
// the batch (see DeleteMessages).
func topicDeleteSQL(f store.MessageFilter, limit int) (query string, args []any, ok bool) {
	if f.StreamID == 0 || f.TopicKey == nil || f.SenderID != 0 || f.IDs != nil || sqlstore.FiltersKinds(f.Kinds) {
		return "", nil, false
	}
	where := "stream_id = ? AND topic_key = ?"
	args = []any{f.StreamID, *f.TopicKey}
	if f.MinID != 0 {
		where, args = where+" AND id >= ?", append(args, f.MinID)
	}
	if f.BeforeID != 0 {
		where, args = where+" AND id < ?", append(args, f.BeforeID)
	}
	args = append(args, limit, f.RealmID)
	return `DELETE FROM messages WHERE id IN (
		SELECT id FROM messages WHERE ` + where + ` ORDER BY id DESC LIMIT ?)
		AND +realm_id = ? AND type = 'stream'
		RETURNING id, 0, stream_id, topic, NULL, sender_id, NULL`, args, true
}

// DeleteMessages implements [store.MessageStore] with one DELETE ...
// RETURNING statement; for a channel topic, with topicDeleteSQL's statement
// and, when that deletes fewer than limit rows, DeleteSQL's for the rest.
func (t *tx) DeleteMessages(ctx context.Context, f store.MessageFilter, limit int) ([]store.DeletedMessage, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	if err := dialect.CheckDeleteLimit(limit); err != nil {
		return nil, err
	}
	var out []store.DeletedMessage
	if query, args, ok := topicDeleteSQL(f, limit); ok {
		var err error
		if out, err = t.deleteRows(ctx, f, query, args); err != nil {
			return nil, err
		}
		limit -= len(out)
	}
	if limit > 0 {
		query, args := dialect.DeleteSQL(f, limit)
		rest, err := t.deleteRows(ctx, f, query, args)
		if err != nil {
			return nil, err
		}
		out = append(out, rest...)
	}
	sqlstore.SortDeleted(out)
	return out, nil
}

// deleteRows runs a statement of DeleteSQL's shape for f and returns what it
// deleted.
func (t *tx) deleteRows(ctx context.Context, f store.MessageFilter, query string, args []any) ([]store.DeletedMessage, error) {
	return scanAll(ctx, t, "delete messages", func(r *sql.Rows, d *store.DeletedMessage) error {
		var private bool
		var key sql.NullString
		if err := r.Scan(num(&d.ID), &private, num(&d.StreamID), &d.Topic, &key, num(&d.SenderID), listCol[store.UserID]{&d.Recipients}); err != nil {
			return err
		}
		d.Type, d.TopicKey = store.MessageTypeStream, key.String
		if private {
			d.Type = store.MessageTypePrivate
		} else {
			d.Recipients = nil
			if f.TopicKey != nil {
				d.TopicKey = *f.TopicKey
			}
		}
		return nil
	}, query, args...)
}
