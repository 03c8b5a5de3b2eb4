package sqlstore

import (
	"context"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// anyOf returns the condition that expr is an element of the id list
// parameter param (see List): json_each with JSONLists, else = ANY.
func (d *Dialect) anyOf(expr, param string) string {
	if d.JSONLists {
		return expr + " IN (SELECT value FROM json_each(" + param + "))"
	}
	return expr + " = ANY(" + param + ")"
}

// PlainMessagesSQL builds the query of Messages that is not read through
// ReceivedSubquery (see MessagesSQL); ok is false when q selects nothing.
//
// A channel's topic with its StreamID is an equality on the channel+topic
// index, which gives the id order without a sort and reads only the topic's
// messages, not the channel's; a recipient named beside it is only checked.
// With PlannerHints, "+realm_id" keeps the planner from driving the query
// by realm, one recipient is an equality on the recipient index, and one
// channel's topic without its StreamID is looked up through the channel
// read from its recipient. (PostgreSQL does
// not see through that subquery: it guesses the topic's size blind and may
// sort a whole big topic, so there one recipient stays an equality on the
// recipient index.) With SearchDrives, a query with a search term reads the
// term's index matches in id order (see drivenSearchSQL).
func (d *Dialect) PlainMessagesSQL(q store.MessageQuery) (query string, args []any, ok bool) {
	return d.plainMessagesSQL(q, false)
}

// PlainMessagesByMatchesSQL is PlainMessagesSQL for a query whose search
// words are rarer than the planner's statistics can tell (see
// Tx.MessagesSQLFor): its messages are ordered by an expression no index
// gives, so that the planner reads the search index's matches and sorts
// them rather than walk the newest messages until the limit.
func (d *Dialect) PlainMessagesByMatchesSQL(q store.MessageQuery) (query string, args []any, ok bool) {
	return d.plainMessagesSQL(q, true)
}

func (d *Dialect) plainMessagesSQL(q store.MessageQuery, byMatches bool) (query string, args []any, ok bool) {
	var p Params
	if q.FlagUser != 0 {
		p.Add(q.FlagUser) // $1 of EffFlagsSQL
	}
	where := []string{d.realmHint() + "m.realm_id = " + p.Add(q.RealmID)}
	switch {
	case q.Recipients == nil:
	case len(q.Recipients) == 0:
		return "", nil, false
	case len(q.Recipients) == 1 && q.TopicKey != nil && q.StreamID != 0:
		// The channel+topic index drives (MessageConds). A channel's
		// messages all have its recipient, so the recipient is checked
		// once, on the channel: as a condition on m, a planner would
		// intersect its index with the topic's or estimate the topic at a
		// handful of rows, and either way read and sort the whole topic.
		where = append(where, "EXISTS (SELECT 1 FROM streams s WHERE s.id = "+p.Add(q.StreamID)+" AND s.recipient_id = "+p.Add(q.Recipients[0])+")")
	case len(q.Recipients) == 1 && q.TopicKey != nil && d.PlannerHints:
		rid := p.Add(q.Recipients[0])
		where = append(where, "m.stream_id = (SELECT s.id FROM streams s WHERE s.recipient_id = "+rid+") AND m.recipient_id = "+rid)
	case len(q.Recipients) == 1:
		where = append(where, "m.recipient_id = "+p.Add(q.Recipients[0]))
	default:
		where = append(where, d.anyOf("m.recipient_id", p.Add(List(d, q.Recipients))))
	}
	if q.TopicKey != nil {
		where = append(where, "m.type = 'stream' AND m.topic_key = "+p.Add(*q.TopicKey))
	}
	switch {
	case q.IDs == nil:
	case len(q.IDs) == 0:
		return "", nil, false
	default:
		where = append(where, d.anyOf("m.id", p.Add(List(d, q.IDs))))
	}
	if q.AfterID != 0 {
		where = append(where, "m.id > "+p.Add(q.AfterID))
	}
	if q.BeforeID != 0 {
		where = append(where, "m.id < "+p.Add(q.BeforeID))
	}
	where = MessageConds(where, p.Add, q)
	driving := -1
	if d.SearchDrives {
		driving = DrivingSearch(q)
	}
	where = d.NarrowCondsDriven(where, p.Add, q, driving)
	if driving >= 0 {
		return drivenSearchSQL(q, &p, where, driving), p.Args, true
	}
	from := "messages m"
	if q.FlagUser != 0 {
		from = "(SELECT m.*, " + EffFlagsSQL + " AS uf FROM messages m WHERE " + strings.Join(where, " AND ") + ")"
		if !d.PlannerHints {
			from += " m"
		}
		where = []string{FlagCondition(q)}
	}
	order := OrderByID(q.Newest, q.Limit)
	if byMatches {
		order = " ORDER BY id + 0" + orderDir(q.Newest) + limitClause(q.Limit)
	}
	query = "SELECT " + MessageCols + " FROM " + from + " WHERE " + strings.Join(where, " AND ") + order
	return query, p.Args, true
}

// realmHint is what precedes the realm column of a message query's first
// condition: "+" with PlannerHints (no index drives by realm).
func (d *Dialect) realmHint() string {
	if d.PlannerHints {
		return "+"
	}
	return ""
}

// drivenSearchSQL is the statement of Messages for a query with a search
// term driving on SQLite (the index is first in the join, read in id order
// as far as the limit needs): the matches of term driving in messages_fts
// among the messages it holds the current document of (SQLiteIndexed),
// joined to their messages, which must meet where (every other condition
// of q). The index's tail is the SQLite store's to add (it reads the tail's
// matches with SearchDrives off).
func drivenSearchSQL(q store.MessageQuery, p *Params, where []string, driving int) string {
	conds := append([]string{"messages_fts MATCH " + p.Add(FTS5Query(q.Search[driving].Lexemes)), SQLiteIndexed("messages_fts.rowid")}, where...)
	if q.AfterID != 0 {
		conds = append(conds, "messages_fts.rowid > "+p.Add(q.AfterID))
	}
	if q.BeforeID != 0 {
		conds = append(conds, "messages_fts.rowid < "+p.Add(q.BeforeID))
	}
	cols := "m.*, messages_fts.rowid AS fts_rowid"
	outer := "1 = 1"
	if q.FlagUser != 0 {
		cols += ", " + EffFlagsSQL + " AS uf"
		outer = FlagCondition(q)
	}
	order := " ORDER BY fts_rowid"
	if q.Newest {
		order += " DESC"
	}
	if q.Limit > 0 {
		order += " LIMIT " + strconv.Itoa(q.Limit)
	}
	return "SELECT " + MessageCols + " FROM (SELECT " + cols + " FROM messages_fts CROSS JOIN messages m ON m.id = messages_fts.rowid WHERE " +
		strings.Join(conds, " AND ") + ") WHERE " + outer + order
}

// DeleteSQL builds the one statement that deletes a batch of messages, the
// newest limit ids that match f; reactions, edit history, submessages and
// flag rows go by ON DELETE CASCADE. Its rows are DeletedReturning's.
//
// With PlannerHints (SQLite, which has no DELETE ... LIMIT here), the
// inner SELECT picks the ids, its realm condition kept off the realm index.
// With GenericPlans (PostgreSQL), the ids are collected into an array
// first and limit is written into the text, so the plan is the same for
// every execution of the prepared statement, whatever share of the table
// the filter matches: an index scan for the newest limit ids, then one
// primary-key lookup each (with the limit a parameter, the generic plan
// PostgreSQL switches to after a few executions may instead hash-join a
// full scan of messages). A channel topic is then matched as the range
// from its key to its key (the same rows as equality: the column's
// collation is deterministic) and ordered by key, then id: an order only
// the index messages_stream_topic provides. With an equality instead, the
// planner, which takes a topic's rows to be spread evenly over the ids,
// often walks the primary key down from the newest message of the whole
// table, filtering, which for an old topic under many newer messages reads
// all of those on every batch.
func (d *Dialect) DeleteSQL(f store.MessageFilter, limit int) (string, []any) {
	var p Params
	where := []string{d.realmHint() + "m.realm_id = " + p.Add(f.RealmID)}
	order := "m.id DESC"
	if f.StreamID != 0 {
		where = append(where, "m.stream_id = "+p.Add(f.StreamID))
	}
	switch {
	case f.TopicKey != nil && f.StreamID != 0 && d.GenericPlans:
		key := p.Add(*f.TopicKey)
		where = append(where, "m.type = 'stream' AND m.topic_key >= "+key+" AND m.topic_key <= "+key)
		order = "m.topic_key DESC, m.id DESC"
	case f.TopicKey != nil:
		where = append(where, "m.type = 'stream' AND m.topic_key = "+p.Add(*f.TopicKey))
	}
	where = d.FilterConds(where, &p, f, "NOT s.invite_only", "s.invite_only")
	sel := "SELECT m.id FROM messages m WHERE " + strings.Join(where, " AND ") + " ORDER BY " + order + " LIMIT "
	if d.GenericPlans {
		return `DELETE FROM messages WHERE id = ANY(ARRAY(
		` + sel + strconv.Itoa(limit) + `))
		` + DeletedReturning(f), p.Args
	}
	return `DELETE FROM messages WHERE id IN (
		` + sel + p.Add(limit) + `)
		` + DeletedReturning(f), p.Args
}

// DirectRecipient implements [store.MessageStore]. In a View it can only
// find an existing conversation; a missing one gives an error wrapping
// both store.ErrNotFound and the View's error. A new conversation is one
// statement where the dialect takes arrays (a data-modifying WITH), else
// two. Two transactions creating one conversation at once cannot both
// commit: the unique key makes one of them fail.
func (x *Tx) DirectRecipient(ctx context.Context, realm store.RealmID, members []store.UserID) (store.RecipientID, error) {
	ids, key := DirectKey(members)
	rid, ok, err := x.ExistingDirectRecipient(ctx, realm, key)
	if ok || err != nil {
		return rid, err
	}
	if !x.d.JSONLists {
		err = x.q.QueryRow(ctx, `WITH r AS (
			INSERT INTO recipients (realm_id, direct_key) VALUES ($1, $2) RETURNING id
		), m AS (
			INSERT INTO recipient_members (recipient_id, user_id) SELECT r.id, unnest($3::bigint[]) FROM r
		)
		SELECT id FROM r`, realm, key, ids).Scan(&rid)
		return rid, x.classify(err, "create direct recipient")
	}
	if err := x.q.QueryRow(ctx, "INSERT INTO recipients (realm_id, direct_key) VALUES ($1, $2) RETURNING id", realm, key).Scan(&rid); err != nil {
		return 0, x.classify(err, "create direct recipient")
	}
	_, err = x.q.Exec(ctx, "INSERT INTO recipient_members (recipient_id, user_id) SELECT $1, value FROM json_each($2)", rid, IDsJSON(ids))
	return rid, x.classify(err, "create direct recipient")
}

// ReactionColList are the columns of a reaction row, in the order the
// stores write them: message id, seq, user id, emoji name, code and type.
var ReactionColList = []string{"message_id", "seq", "user_id", "emoji_name", "emoji_code", "reaction_type"}

// EditHistoryColList are the columns of an edit history row, in the order
// of EditHistoryArgs.
var EditHistoryColList = []string{"message_id", "seq", "user_id", "timestamp", "prev_content",
	"prev_rendered_content", "prev_stream_id", "stream_id", "prev_topic", "topic"}

// insertEditSQL inserts one edit history row.
var insertEditSQL = "INSERT INTO edit_history (" + strings.Join(EditHistoryColList, ", ") +
	") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"

// EditHistoryArgs returns the values of the row of e, the entry seq of
// the edit history of the message id, in EditHistoryColList order.
func (d *Dialect) EditHistoryArgs(id store.MessageID, seq int, e *store.EditHistoryEntry) []any {
	return []any{int64(id), int32(seq), int64(e.UserID), d.Time(e.Timestamp), e.PrevContent, e.PrevRenderedContent,
		IDArg(e.PrevStreamID), IDArg(e.StreamID), OptStrArg(e.PrevTopic), OptStrArg(e.Topic)}
}

// CreateEditHistory writes the edit history of the new message id, one
// statement per entry.
func (x *Tx) CreateEditHistory(ctx context.Context, id store.MessageID, edits []store.EditHistoryEntry) error {
	for i := range edits {
		if _, err := x.q.Exec(ctx, insertEditSQL, x.d.EditHistoryArgs(id, i, &edits[i])...); err != nil {
			return x.classify(err, "create edit history")
		}
	}
	return nil
}

// CreateSubmessages writes the submessages of the message m, whose id is
// set, one statement each (they need their ids back), and sets their ids
// and MessageID.
func (x *Tx) CreateSubmessages(ctx context.Context, m *store.Message) error {
	for i := range m.Submessages {
		s := &m.Submessages[i]
		s.MessageID = m.ID
		sid, err := x.InsertWithID(ctx, "submessages", "create submessage",
			"INSERT INTO submessages (id, message_id, sender_id, msg_type, content) VALUES ("+x.d.IDValue("submessages")+
				", $2, $3, $4, $5) RETURNING id", s.ID, int64(m.ID), s.SenderID, s.MsgType, s.Content)
		if err != nil {
			return err
		}
		s.ID = sid
	}
	return nil
}

// OptStrArg is the argument of a nullable text column: nil is NULL.
func OptStrArg(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// MessageIDs implements [store.MessageStore]: the statement Messages runs
// for q, reading only the ids.
func (x *Tx) MessageIDs(ctx context.Context, q store.MessageQuery) ([]store.MessageID, error) {
	query, args, ok, err := x.MessagesSQL(ctx, q, x.d.PlainMessagesSQL)
	if err != nil || !ok {
		return nil, err
	}
	return scanAll(ctx, x, "message ids", func(r Row, id *store.MessageID) error { return r.Scan(Num(id)) },
		"SELECT id FROM ("+query+") q"+OrderByID(q.Newest, 0), args...)
}
