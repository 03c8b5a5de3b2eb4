package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

func scanMessage(r interface{ Scan(...any) error }, m *store.Message) error {
	return r.Scan(&m.ID, &m.RealmID, &m.SenderID, &m.Type, &m.RecipientID, &m.StreamID, &m.Topic, &m.TopicKey,
		&m.DirectMembers, &m.Content, &m.RenderedContent, &m.Client,
		sqlstore.Time(&m.SentAt), sqlstore.Time(&m.LastEditedAt), sqlstore.Time(&m.LastMovedAt), &m.IsMeMessage, &m.DefaultFlags, sqlstore.Num(&m.Has))
}

// Message implements [store.MessageStore] in one round trip: the reads
// of the message's reactions, edit history and submessages go ahead of its
// own, in its batch (see queueChildren).
func (t *tx) Message(ctx context.Context, id store.MessageID) (*store.Message, error) {
	if err := t.usable(); err != nil {
		return nil, err
	}
	var ch sqlstore.MessageChildren
	t.queueChildren([]store.MessageID{id}, &ch)
	var m store.Message
	if err := scanMessage(t.queryRow(ctx, "SELECT "+sqlstore.MessageCols+" FROM messages WHERE id = $1", id), &m); err != nil {
		return nil, classify(err, fmt.Sprintf("message %d", id))
	}
	ch.Attach([]*store.Message{&m})
	noteRead(t, &t.messages, m.ID)
	return &m, nil
}

// Messages implements [store.MessageStore] in two round trips: the
// messages, then one read each of their reactions, edit history and
// submessages, in one batch. A search of a user's messages runs on a
// custom plan.
func (t *tx) Messages(ctx context.Context, q store.MessageQuery) ([]store.Message, error) {
	plain, rare := dialect.PlainMessagesSQL, false
	switch {
	case sqlstore.SearchSubqueryFits(q):
		t.queueRareWords(q, &rare) // answered with the read of the user's memberships
	case sqlstore.DrivingSearch(q) >= 0 && t.queueRareWords(q, &rare):
		// The plain statement is built before any other statement runs.
		if err := t.flush(ctx); err != nil {
			return nil, err
		}
		if rare {
			plain = dialect.PlainMessagesByMatchesSQL
		}
	}
	query, args, ok, err := t.MessagesSQLFor(ctx, q, plain, func() bool { return rare })
	if err != nil || !ok {
		return nil, err
	}
	read := func() ([]store.Message, error) {
		return scanAll(ctx, t, "messages", func(r pgx.Rows, m *store.Message) error { return scanMessage(r, m) },
			query, args...)
	}
	var msgs []store.Message
	if sqlstore.SearchSubqueryFits(q) || largeReceivedRead(q) {
		// Planned for its words, or its recipients, every time (see
		// onCustomPlan, largeReceivedRead).
		msgs, err = onCustomPlan(t, read)
	} else {
		msgs, err = read()
	}
	if err != nil || len(msgs) == 0 {
		return msgs, err
	}
	ptrs := make([]*store.Message, len(msgs))
	ids := make([]store.MessageID, len(msgs))
	for i := range msgs {
		ptrs[i], ids[i] = &msgs[i], msgs[i].ID
	}
	var ch sqlstore.MessageChildren
	t.queueChildren(ids, &ch)
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	ch.Attach(ptrs)
	return msgs, nil
}

// rareWordsSQL reports whether a lexeme of the text $1, as the english
// configuration parses it (as plainto_tsquery does), is missing from the
// most common elements PostgreSQL's statistics keep of the messages'
// search documents: a word the planner can only guess at (see
// sqlstore.Tx.MessagesSQLFor). Without statistics every word is.
const rareWordsSQL = `SELECT EXISTS (SELECT 1 FROM unnest(tsvector_to_array(to_tsvector('english'::regconfig, $1::text))) AS l(lexeme)
	WHERE NOT EXISTS (SELECT 1 FROM pg_stats s WHERE s.schemaname = current_schema() AND s.tablename = 'messages'
		AND s.attname = 'search_tsv' AND l.lexeme = ANY (s.most_common_elems::text::text[])))`

// queueRareWords queues the read of whether the words of q's search terms
// are rare (see rareWordsSQL) to go with the transaction's next statement
// and reports whether it did (not in a ViewSingle, which runs one
// statement); rare is set once it is back.
func (t *tx) queueRareWords(q store.MessageQuery, rare *bool) bool {
	if t.tx.single || t.failed != nil {
		return false
	}
	var texts []string
	for _, term := range q.Search {
		if !term.Negated && len(term.Lexemes) > 0 {
			texts = append(texts, term.Text)
		}
	}
	t.tx.enqueuePrefetch(rareWordsSQL, []any{strings.Join(texts, " ")}, func(br pgx.BatchResults) error {
		return classify(br.QueryRow().Scan(rare), "search words")
	})
	return true
}

// MessageIDs implements [store.MessageStore] as sqlstore.Tx does, on a
// custom plan for a large read (see largeReceivedRead).
func (t *tx) MessageIDs(ctx context.Context, q store.MessageQuery) ([]store.MessageID, error) {
	if !largeReceivedRead(q) {
		return t.Tx.MessageIDs(ctx, q)
	}
	return onCustomPlan(t, func() ([]store.MessageID, error) { return t.Tx.MessageIDs(ctx, q) })
}

// UnreadMessages implements [store.FlagStore] as sqlstore.Tx does, on a
// custom plan when limit makes it a large read (see largeReceivedRead):
// POST /register reads up to 50,000.
func (t *tx) UnreadMessages(ctx context.Context, user store.UserID, limit int) ([]store.UserMessage, error) {
	if !largeReceivedRead(store.MessageQuery{FlagUser: user, Limit: limit}) {
		return t.Tx.UnreadMessages(ctx, user, limit)
	}
	return onCustomPlan(t, func() ([]store.UserMessage, error) { return t.Tx.UnreadMessages(ctx, user, limit) })
}

// largeReceivedLimit is the limit above which a read of a user's messages
// is a large read (see largeReceivedRead).
const largeReceivedLimit = 1000

// largeReceivedRead reports whether q is a read of a user's messages
// (through their channels' and conversations' ranges, see
// sqlstore.ReceivedSubquery) whose limit is above largeReceivedLimit. Each
// range is the newest (or oldest) limit messages of one recipient, which
// an index scan of messages_recipient reads in order and stops at the
// limit. A generic plan assumes every recipient holds the table's average
// number of messages, a thousand or so; above that, it sorts each
// recipient's messages instead, the whole history of a big channel for
// every execution (measured at a million messages: 750-870 ms for a
// user's 50,000 unread messages on the generic plan against 135-220 ms on
// a custom plan, whose planning takes about 2 ms).
func largeReceivedRead(q store.MessageQuery) bool {
	return q.FlagUser != 0 && q.IDs == nil && q.Limit > largeReceivedLimit
}

// queueChildren queues the reads of the children of the messages ids, one
// statement each, to go to the server ahead of the transaction's next
// statement (or flush); ch holds their rows once that batch has been read.
func (t *tx) queueChildren(ids []store.MessageID, ch *sqlstore.MessageChildren) {
	const cond = "message_id = ANY($1)"
	queueRows(t, &ch.Reactions, "reactions", func(r pgx.Rows, v *sqlstore.ChildReaction) error {
		return sqlstore.ScanReaction(r, v)
	}, sqlstore.ReactionsSQL(cond), ids)
	queueRows(t, &ch.Edits, "edit history", func(r pgx.Rows, v *sqlstore.ChildEdit) error {
		return r.Scan(&v.ID, &v.E.UserID, sqlstore.Time(&v.E.Timestamp), &v.E.PrevContent, &v.E.PrevRenderedContent,
			sqlstore.ID(&v.E.PrevStreamID), sqlstore.ID(&v.E.StreamID),
			&v.E.PrevTopic, &v.E.Topic)
	}, sqlstore.EditHistorySQL(cond), ids)
	queueRows(t, &ch.Subs, "submessages", func(r pgx.Rows, s *store.Submessage) error {
		return sqlstore.ScanSubmessage(r, s)
	}, sqlstore.SubmessagesSQL(cond), ids)
}

// CreateMessage implements [store.MessageStore]. A zero m.ID becomes an id
// above every id ever used; an explicit one is kept, and later ids go above
// it. The message and its reactions and edit history are one statement.
//
// A plain message (no reactions, edit history or submessages) with a zero
// id whose id was reserved by an announcement (see Prefetch) is not sent
// at once: its insert is held back to go with the transaction's next
// statement or its COMMIT (see holdBack).
func (t *tx) CreateMessage(ctx context.Context, m *store.Message) error {
	// No announced read answers from messages (see writableKeepingAnswers).
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	m.TopicKey = store.TopicKey(m.Topic)
	if m.ID == 0 && len(m.Reactions)+len(m.EditHistory)+len(m.Submessages) == 0 {
		if id, ok := t.reservedMessageID(); ok {
			if err := t.holdBack("create message",
				"INSERT INTO messages ("+sqlstore.MessageCols+") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
				append([]any{int64(id)}, messageArgs(m)...), nil); err != nil {
				return err
			}
			m.ID = id
			return nil
		}
	}
	id, err := t.InsertWithID(ctx, "messages", "create message",
		"INSERT INTO messages ("+sqlstore.MessageCols+") VALUES ("+idValue("messages")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) RETURNING id",
		int64(m.ID), messageArgs(m)...)
	if err != nil {
		return err
	}
	m.ID = store.MessageID(id)
	if len(m.Reactions) > 0 {
		n := len(m.Reactions)
		users, names, codes, types := make([]int64, n), make([]string, n), make([]string, n), make([]string, n)
		for i, r := range m.Reactions {
			users[i], names[i], codes[i], types[i] = int64(r.UserID), r.EmojiName, r.EmojiCode, r.ReactionType
		}
		_, err := t.exec(ctx, `INSERT INTO reactions (message_id, seq, user_id, emoji_name, emoji_code, reaction_type)
			SELECT $1, r.ord - 1, r.u, r.n, r.c, r.t
			FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS r(u, n, c, t, ord)`,
			id, users, names, codes, types)
		if err != nil {
			return classify(err, "create reactions")
		}
	}
	if err := t.CreateEditHistory(ctx, m.ID, m.EditHistory); err != nil {
		return err
	}
	return t.CreateSubmessages(ctx, m)
}

// DeleteMessages implements [store.MessageStore] with one DELETE ...
// RETURNING statement.
func (t *tx) DeleteMessages(ctx context.Context, f store.MessageFilter, limit int) ([]store.DeletedMessage, error) {
	if err := t.writableKeepingAnswers(); err != nil {
		return nil, err
	}
	t.messages = nil // one of them may be among the deleted
	if err := dialect.CheckDeleteLimit(limit); err != nil {
		return nil, err
	}
	query, args := dialect.DeleteSQL(f, limit)
	out, err := onGenericPlan(t, func() ([]store.DeletedMessage, error) {
		return scanAll(ctx, t, "delete messages", scanDeleted(f), query, args...)
	})
	if err != nil {
		return nil, err
	}
	sqlstore.SortDeleted(out)
	return out, nil
}

// messageArgs returns the values of m's columns after its id, in the order
// of sqlstore.MessageCols.
func messageArgs(m *store.Message) []any {
	return []any{m.RealmID, m.SenderID, string(m.Type), m.RecipientID, int64(m.StreamID), m.Topic, m.TopicKey,
		m.DirectMembers, m.Content, m.RenderedContent, m.Client, timeArg(m.SentAt),
		timeArg(m.LastEditedAt), timeArg(m.LastMovedAt), m.IsMeMessage, m.DefaultFlags, int16(m.Has)}
}

// scanDeleted returns the scan of the rows DeleteSQL returns for f.
func scanDeleted(f store.MessageFilter) func(r pgx.Rows, d *store.DeletedMessage) error {
	// One set of destinations for every row, of types pgx scans without
	// reflection: no allocation per row but the members of a direct message.
	var (
		topic   string // the previous row's: a batch's rows mostly share one topic
		row     struct{ id, stream, sender int64 }
		private bool
		key     *string
		members []int64
	)
	dest := []any{&row.id, &private, &row.stream, nil, &key, &row.sender, &members}
	return func(r pgx.Rows, d *store.DeletedMessage) error {
		key, members = nil, nil
		if err := r.Scan(dest...); err != nil {
			return err
		}
		// The topic column is text, whose value is its UTF-8 bytes in
		// either format: one string per distinct topic, not per row.
		if raw := r.RawValues()[3]; string(raw) != topic {
			topic = string(raw)
		}
		d.ID, d.StreamID, d.SenderID = store.MessageID(row.id), store.StreamID(row.stream), store.UserID(row.sender)
		d.Type, d.Topic = store.MessageTypeStream, topic
		switch {
		case private:
			d.Type = store.MessageTypePrivate
			d.Recipients = make([]store.UserID, len(members))
			for i, m := range members {
				d.Recipients[i] = store.UserID(m)
			}
		case key != nil:
			d.TopicKey = *key
		default:
			d.TopicKey = *f.TopicKey
		}
		return nil
	}
}

// DirectRecipients implements [store.MessageStore], or answers from the
// same read announced (see Prefetch).
func (t *tx) DirectRecipients(ctx context.Context, user store.UserID) ([]store.RecipientID, error) {
	if out, ok := take(t.answers().directRecipients, user); ok {
		return out, nil
	}
	return t.Tx.DirectRecipients(ctx, user)
}
