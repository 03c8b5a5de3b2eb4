package sqlstore

// The messages a user received, read through indexes: one range of
// messages_recipient per channel or conversation they are in, from where
// their receipt starts, and their flag rows, merged by id.

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// EffFlags returns the flags of the user u (an SQL expression) on the
// message m, NULL when the user did not receive it: the flag row when there
// is one, otherwise, for a user who received m (ReceivedCond),
// m.default_flags with read (1) added when they sent m or their read mark
// of m's recipient covers it.
func EffFlags(u string) string {
	return `coalesce(
	(SELECT f.flags FROM user_message_flags f WHERE f.user_id = ` + u + ` AND f.message_id = m.id),
	CASE WHEN ` + ReceivedCond(u) + ` THEN m.default_flags | CASE WHEN m.sender_id = ` + u + ` OR EXISTS (SELECT 1 FROM read_marks k
		WHERE k.user_id = ` + u + ` AND k.recipient_id = m.recipient_id AND k.through >= m.id) THEN 1 ELSE 0 END END)`
}

// ReceivedCond is the condition that the user u (an SQL expression)
// received the message m without a flag row: a participant of a direct
// message, or an active subscriber of m's channel whose subscription
// covers m.
func ReceivedCond(u string) string {
	return `CASE WHEN m.type = 'private' THEN
		EXISTS (SELECT 1 FROM recipient_members rm WHERE rm.recipient_id = m.recipient_id AND rm.user_id = ` + u + `)
	ELSE
		EXISTS (SELECT 1 FROM subscriptions s WHERE s.stream_id = m.stream_id AND s.user_id = ` + u + `
			AND s.active AND s.since_message_id <= m.id)
	END`
}

// EffFlagsSQL is EffFlags of the user $1.
var EffFlagsSQL = EffFlags("$1")

// membership is a channel or direct conversation a user is in: the
// messages of recipient from since on are theirs, and those up to through
// are read unless a row says otherwise.
type membership struct {
	recipient store.RecipientID
	stream    store.StreamID // 0 for a direct conversation
	since     store.MessageID
	through   store.MessageID
}

// membershipsSQL reads the memberships of the user $1 in the realm $2 (any
// realm when 0): their active subscriptions and their direct
// conversations, with their read marks.
const membershipsSQL = `SELECT st.recipient_id, st.id, s.since_message_id, coalesce(k.through, 0)
	FROM subscriptions s JOIN streams st ON st.id = s.stream_id
	LEFT JOIN read_marks k ON k.user_id = s.user_id AND k.recipient_id = st.recipient_id
	WHERE s.user_id = $1 AND s.active AND ($2 = 0 OR st.realm_id = $2)
	UNION ALL
	SELECT rm.recipient_id, 0, 0, coalesce(k.through, 0) FROM recipient_members rm
	JOIN recipients r ON r.id = rm.recipient_id
	LEFT JOIN read_marks k ON k.user_id = rm.user_id AND k.recipient_id = rm.recipient_id
	WHERE rm.user_id = $1 AND ($2 = 0 OR r.realm_id = $2)`

func (x *Tx) memberships(ctx context.Context, user store.UserID, realm store.RealmID) ([]membership, error) {
	return scanAll(ctx, x, "memberships", func(r Row, m *membership) error {
		return r.Scan(Num(&m.recipient), Num(&m.stream), Num(&m.since), Num(&m.through))
	}, membershipsSQL, user, realm)
}

// fewRecipients is the most recipients a query may name for its flag rows
// to be read from their messages rather than from the user's rows.
const fewRecipients = 4

// maxArms bounds the ranges one statement merges (SQLite allows 500 terms
// in a compound SELECT); a user in more channels and conversations is read
// with one statement per group of ranges, merged here.
const maxArms = 400

// membershipsPerStatement is how many memberships one statement of q
// reads: maxArms, or half as many when each may give two ranges (see
// rangeArms).
func membershipsPerStatement(q store.MessageQuery) int {
	if q.AllFlags&store.FlagRead != 0 {
		return maxArms / 2
	}
	return maxArms
}

// ReceivedIDs returns the ids of the messages q selects, q.FlagUser being
// set and q.IDs nil, in q's order and within its limit. Every range it reads
// is an index range (the recipient's messages by id, or the user's flag rows
// by message id), merged by id and cut at the limit, so its cost follows the
// result and the user's memberships, not the history.
func (x *Tx) ReceivedIDs(ctx context.Context, q store.MessageQuery) ([]store.MessageID, error) {
	return received(ctx, x, q, false, func(r Row, id *store.MessageID) error { return r.Scan(Num(id)) },
		func(id store.MessageID) store.MessageID { return id })
}

// ReceivedUserMessages is ReceivedIDs giving the user's view of each
// message (UserMessageCols) from the same statement.
func (x *Tx) ReceivedUserMessages(ctx context.Context, q store.MessageQuery) ([]store.UserMessage, error) {
	return received(ctx, x, q, true, x.d.ScanUserMessage, func(um store.UserMessage) store.MessageID { return um.ID })
}

// received runs the statements of ReceivedIDs, each row scanned by scan
// (the user's view of the message when view is set, else its id).
func received[T any](ctx context.Context, x *Tx, q store.MessageQuery, view bool, scan func(Row, *T) error, id func(T) store.MessageID) ([]T, error) {
	if q.Recipients != nil && len(q.Recipients) == 0 {
		return nil, nil
	}
	ms, err := x.receivedMemberships(ctx, q)
	if err != nil {
		return nil, err
	}
	var out []T
	first := true
	for len(ms) > 0 || first {
		n := min(len(ms), membershipsPerStatement(q))
		query, args := x.receivedSQL(q, ms[:n], first, view)
		rows, err := scanAll(ctx, x, "received messages", scan, query, args...)
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
		ms, first = ms[n:], false
	}
	slices.SortFunc(out, func(a, b T) int {
		if q.Newest {
			return int(id(b) - id(a))
		}
		return int(id(a) - id(b))
	})
	if overlapsRows(q, view) {
		// A later statement's ranges may repeat the first one's rows.
		out = slices.CompactFunc(out, func(a, b T) bool { return id(a) == id(b) })
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// ReceivedSubquery returns a SELECT of the ids ReceivedIDs returns for q
// (in no particular order), to be used as "id IN (sub)", with its
// arguments; ok is false when q selects nothing. For a user in up to
// maxArms channels and conversations it is the merge itself, so that the
// messages are read in the same statement; beyond, the ids are read first.
func (x *Tx) ReceivedSubquery(ctx context.Context, q store.MessageQuery) (sub string, args []any, ok bool, err error) {
	if q.Recipients != nil && len(q.Recipients) == 0 {
		return "", nil, false, nil
	}
	ms, err := x.receivedMemberships(ctx, q)
	if err != nil {
		return "", nil, false, err
	}
	if len(ms) <= membershipsPerStatement(q) {
		query, args := x.receivedSQL(q, ms, true, false)
		return "SELECT id FROM (" + query + ") r", args, true, nil
	}
	ids, err := x.ReceivedIDs(ctx, q)
	if err != nil || len(ids) == 0 {
		return "", nil, false, err
	}
	return "SELECT value FROM " + x.d.Each("$1", "bigint"), []any{List(x.d, ids)}, true, nil
}

// MessagesSQL returns the statement of Messages for q and its arguments;
// ok is false when q selects nothing. A query with FlagUser and without IDs
// reads the messages ReceivedSubquery selects; any other is plain's (each
// store's own, spelled for its planner).
func (x *Tx) MessagesSQL(ctx context.Context, q store.MessageQuery, plain func(store.MessageQuery) (string, []any, bool)) (query string, args []any, ok bool, err error) {
	return x.MessagesSQLFor(ctx, q, plain, nil)
}

// MessagesSQLFor is MessagesSQL where rare, when not nil, reports whether
// the words of a search that SearchSubqueryFits are rarer than the
// planner's statistics can tell (see receivedSearchSubquery). It is asked
// once the user's memberships are read, so that its answer can travel in
// their round trip.
func (x *Tx) MessagesSQLFor(ctx context.Context, q store.MessageQuery, plain func(store.MessageQuery) (string, []any, bool), rare func() bool) (query string, args []any, ok bool, err error) {
	if q.FlagUser == 0 || q.IDs != nil || x.d.SearchDrives && DrivingSearch(q) >= 0 {
		// A search reads the matches of its index in id order, each
		// checked for the user's receipt: the plain statement.
		query, args, ok = plain(q)
		return query, args, ok, nil
	}
	var sub string
	if SearchSubqueryFits(q) {
		sub, args, ok, err = x.receivedSearchSubquery(ctx, q, rare)
	} else {
		sub, args, ok, err = x.ReceivedSubquery(ctx, q)
	}
	return "SELECT " + MessageCols + " FROM messages WHERE id IN (" + sub + ")" + OrderByID(q.Newest, 0), args, ok, err
}

// SearchSubqueryFits reports whether MessagesSQL reads q, a query of a
// user's messages, with receivedSearchSubquery: q has a search term whose
// index match can drive the read, no condition on the user's flags, and
// the dialect's index does not give its matches in id order (SearchDrives).
func SearchSubqueryFits(q store.MessageQuery) bool {
	return q.FlagUser != 0 && q.IDs == nil && q.AllFlags|q.AnyFlags|q.NoFlags == 0 && DrivingSearch(q) >= 0
}

// receivedSearchSubquery is ReceivedSubquery for a query SearchSubqueryFits:
// the messages of the user's memberships (each from the message it starts
// at) and those the user has a flag row for, each a single range of
// messages meeting every condition of q, the full-text match among them,
// so that the planner chooses once between the index's matches (a rare
// word: a bitmap of few rows, sorted) and the messages in id order, tested
// until the limit is reached (a common word), rather than in every range.
// Which suits depends on how common the search's words are: the statement
// needs a plan made for its parameters (PostgreSQL: a custom plan). A
// planner estimates a word its statistics do not list (a rare word: they
// list the most common) at a fixed share of the messages, half a percent
// on PostgreSQL, and at a million messages that makes walking the newest
// messages until the limit look cheaper than sorting the matches, though a
// word found once walks the whole history (400 ms). When rare (nil: never)
// reports so, the messages' range orders by an expression no index gives,
// so that the planner reads the index's matches and sorts them: as many as
// the rare word has.
func (x *Tx) receivedSearchSubquery(ctx context.Context, q store.MessageQuery, rare func() bool) (sub string, args []any, ok bool, err error) {
	if q.Recipients != nil && len(q.Recipients) == 0 {
		return "", nil, false, nil
	}
	ms, err := x.receivedMemberships(ctx, q)
	if err != nil {
		return "", nil, false, err
	}
	var p Params
	user := p.Add(q.FlagUser)
	common := x.commonConds(q, &p) // conditions on m of both ranges
	if q.TopicKey != nil {
		common = append(common, "m.type = 'stream' AND m.topic_key = "+p.Add(*q.TopicKey))
	}
	order := " ORDER BY id" + orderDir(q.Newest) + limitClause(q.Limit)
	rangeOrder := order
	if rare != nil && rare() {
		rangeOrder = " ORDER BY m.id + 0" + orderDir(q.Newest) + limitClause(q.Limit)
	}
	// The user's flag rows: messages received whatever their memberships
	// are now.
	where := []string{"f.user_id = " + user}
	if q.RealmID != 0 {
		where = append(where, "m.realm_id = "+p.Add(q.RealmID))
	}
	if q.Recipients != nil {
		where = append(where, x.d.In("m.recipient_id", p.Add(List(x.d, q.Recipients)), "bigint"))
	}
	rows := "SELECT f.message_id AS id FROM user_message_flags f JOIN messages m ON m.id = f.message_id WHERE " +
		strings.Join(append(where, common...), " AND ")
	var whole []store.RecipientID // memberships from their first message
	var from []string             // the others, each from its first message
	for _, m := range ms {
		if m.since <= 1 {
			whole = append(whole, m.recipient)
		} else {
			from = append(from, "(m.recipient_id = "+p.Add(m.recipient)+" AND m.id >= "+p.Add(m.since)+")")
		}
	}
	if len(whole) > 0 {
		from = append(from, x.d.In("m.recipient_id", p.Add(List(x.d, whole)), "bigint"))
	}
	sub = "(" + rows + order + ")"
	if len(from) > 0 {
		ranges := "SELECT m.id AS id FROM messages m WHERE (" + strings.Join(from, " OR ") + ")"
		if len(common) > 0 {
			ranges += " AND " + strings.Join(common, " AND ")
		}
		sub = "(" + ranges + rangeOrder + ") UNION " + sub
	}
	return "SELECT id FROM (" + sub + ") u" + order, p.Args, true, nil
}

// receivedMemberships returns the memberships of q.FlagUser whose
// messages q can select.
func (x *Tx) receivedMemberships(ctx context.Context, q store.MessageQuery) ([]membership, error) {
	ms, err := x.memberships(ctx, q.FlagUser, q.RealmID)
	if err != nil {
		return nil, err
	}
	if q.Recipients != nil {
		ms = slices.DeleteFunc(ms, func(m membership) bool { return !slices.Contains(q.Recipients, m.recipient) })
	}
	if q.TopicKey != nil || q.TopicPrefix != "" || onlyChannels(q) {
		ms = slices.DeleteFunc(ms, func(m membership) bool { return m.stream == 0 })
	}
	return ms, nil
}

// commonConds returns the conditions of q on the message m that do not
// depend on the user's memberships: the id bounds, MessageConds and
// NarrowConds.
func (x *Tx) commonConds(q store.MessageQuery, p *Params) []string {
	var common []string
	if q.AfterID != 0 {
		common = append(common, "m.id > "+p.Add(q.AfterID))
	}
	if q.BeforeID != 0 {
		common = append(common, "m.id < "+p.Add(q.BeforeID))
	}
	common = MessageConds(common, p.Add, q)
	return x.d.NarrowConds(common, p.Add, q)
}

// receivedSQL builds one statement of ReceivedIDs: a range per membership
// of ms, and the user's flag rows when rows is set, merged by id; each row
// is the message id, or with view the user's view of it (UserMessageCols).
func (x *Tx) receivedSQL(q store.MessageQuery, ms []membership, rows, view bool) (string, []any) {
	var p Params
	overlap := overlapsRows(q, view)
	rows = rows && !(overlap && wholeMembers(q.Recipients, ms))
	var user string
	if rows || !overlap {
		// Only the rows arm and the row tests name the user (PostgreSQL
		// refuses a parameter it cannot type from a use).
		user = p.Add(q.FlagUser)
	}
	common := x.commonConds(q, &p) // conditions on m every range has
	var arms []string
	for _, m := range ms {
		arms = append(arms, x.rangeArms(q, m, &p, user, common, view)...)
	}
	if rows {
		arms = append(arms, x.rowsArm(q, &p, user, common, view))
	}
	if len(arms) == 0 {
		return "SELECT 0 AS id WHERE 1 = 0", nil
	}
	order := " ORDER BY id" + orderDir(q.Newest) + limitClause(q.Limit)
	if !x.d.OrderedArms {
		// SQLite merges a compound SELECT's ordered members lazily when
		// the ORDER BY is the compound's own, UNION dropping repeats as
		// it goes.
		union := " UNION ALL "
		if overlap {
			union = " UNION "
		}
		return strings.Join(arms, union) + order, p.Args
	}
	for i, a := range arms {
		arms[i] = "(" + a + order + ")"
	}
	sel := "SELECT * FROM ("
	if overlap {
		// Unique over the merge of the ordered arms: still read lazily.
		sel = "SELECT DISTINCT id FROM ("
	}
	return sel + strings.Join(arms, " UNION ALL ") + ") u" + order, p.Args
}

// overlapsRows reports whether the ranges of a statement of q (see
// receivedSQL) keep the messages the user has a flag row for, which the
// rows arm also reads, so that the statement drops repeats: when it reads
// ids only (not view) and q has no condition on the user's flags, a
// message is selected whether its flags come from its row or derive, and
// a range need not test each message for a row. Testing it, a range walks
// every message the user has a row for down to the limit: 5,000 probes
// after marking 5,000 messages read in the feed's biggest channel.
func overlapsRows(q store.MessageQuery, view bool) bool {
	return !view && q.AllFlags|q.NoFlags|q.AnyFlags == 0
}

// wholeMembers reports whether recipients (nil: every recipient) are all
// recipients of memberships among ms that start at their first message (a
// direct conversation always does), so that when the ranges overlap the
// rows (overlapsRows) the rows arm has nothing to add: every message of
// theirs the user has a row for is in a range. A one-conversation read
// then reads no flag rows, where the planner would otherwise walk the
// user's rows, newest first, for the conversation's.
func wholeMembers(recipients []store.RecipientID, ms []membership) bool {
	if recipients == nil {
		return false
	}
	for _, r := range recipients {
		if !slices.ContainsFunc(ms, func(m membership) bool { return m.recipient == r && m.since <= 1 }) {
			return false
		}
	}
	return true
}

// rowsArm returns the SELECT of the messages q selects that the user has a
// flag row for. The user's rows drive it (they are few: what differs from
// their read marks), each probing its message by primary key, whatever
// the planner estimates for the message conditions; for a few named
// conversations or channels the planner may start from their messages
// instead. With ProbeFence the probe is a LATERAL subquery the fence keeps
// apart: PostgreSQL's generic plan of a plain join, expecting a few
// messages, may start from the messages of every channel named (a sender
// narrow at 1M messages read 220k of them, 11 s).
func (x *Tx) rowsArm(q store.MessageQuery, p *Params, user string, common []string, view bool) string {
	rowConds := append([]string{"f.user_id = " + user}, RowFlagConds("f.flags", q)...)
	var where []string
	if q.RealmID != 0 {
		where = append(where, "m.realm_id = "+p.Add(q.RealmID))
	}
	if q.TopicKey != nil {
		where = append(where, "m.type = 'stream' AND m.topic_key = "+p.Add(*q.TopicKey))
	}
	if q.Recipients != nil {
		where = append(where, x.d.In("m.recipient_id", p.Add(List(x.d, q.Recipients)), "bigint"))
	}
	where = append(where, common...)
	cols := "f.message_id AS id"
	if view {
		cols += viewCols + ", f.flags AS uf"
	}
	few := q.Recipients != nil && len(q.Recipients) <= fewRecipients
	if x.d.ProbeFence != "" && !few {
		probe := "SELECT m.id" + viewCols + " FROM messages m WHERE " +
			strings.Join(append([]string{"m.id = f.message_id"}, where...), " AND ") + x.d.ProbeFence
		return "SELECT " + cols + " FROM user_message_flags f CROSS JOIN LATERAL (" + probe + ") m WHERE " +
			strings.Join(rowConds, " AND ")
	}
	join := x.d.OrderedJoin
	if few {
		join = "JOIN"
	}
	return "SELECT " + cols + " FROM user_message_flags f " + join + " messages m ON m.id = f.message_id WHERE " +
		strings.Join(append(rowConds, where...), " AND ")
}

// viewCols are the columns of UserMessageCols after id and before uf, of
// the message m.
const viewCols = ", m.realm_id, m.type, m.stream_id, m.topic, m.sender_id, m.direct_members"

// readPart is which of membership's messages a range of read messages
// covers (see rangeArms).
type readPart int

const (
	readWhole     readPart = iota // every read message of the range
	readBelowMark                 // the messages up to the read mark
	readOwnAbove                  // the user's own messages above it
)

// rangeArms returns the SELECTs of rangeArm for membership m: one, or for
// read messages below a read mark two, each bounded by an index (the
// messages up to the mark through (recipient_id, id), the user's own above
// it through (recipient_id, sender_id, id)), rather than one range whose
// "id <= mark OR sender_id = user" would read every message above the
// mark.
func (x *Tx) rangeArms(q store.MessageQuery, m membership, p *Params, user string, common []string, view bool) []string {
	parts := []readPart{readWhole}
	if q.AllFlags&store.FlagRead != 0 && m.through >= max(m.since, 1) {
		parts = []readPart{readBelowMark, readOwnAbove}
	}
	var arms []string
	for _, part := range parts {
		if arm, ok := x.rangeArm(q, m, p, user, common, view, part); ok {
			arms = append(arms, arm)
		}
	}
	return arms
}

// rangeArm returns the SELECT of the messages of membership m the user has
// no row for (their flags derive from the message, the read mark and
// whether they sent it) that match q, limited to part of them when q asks
// for read messages; ok is false when none can.
func (x *Tx) rangeArm(q store.MessageQuery, m membership, p *Params, user string, common []string, view bool, part readPart) (string, bool) {
	read, unread := q.AllFlags&store.FlagRead != 0, q.NoFlags&store.FlagRead != 0
	if read && unread || unread && q.AnyFlags == store.FlagRead {
		return "", false // no message is both
	}
	var where []string
	if q.TopicKey != nil {
		where = append(where, "m.stream_id = "+p.Add(m.stream)+" AND m.topic_key = "+p.Add(*q.TopicKey)+" AND m.type = 'stream'")
	} else {
		where = append(where, "m.recipient_id = "+p.Add(m.recipient))
	}
	if m.since > 0 {
		where = append(where, "m.id >= "+p.Add(m.since))
	}
	// The derived flags: default_flags, with read up to the read mark and
	// on the user's own messages.
	var rc string
	readCond := func() string { // added once, when used: PostgreSQL types every parameter from its use
		if rc == "" {
			rc = "m.sender_id = " + user
			if m.through >= max(m.since, 1) {
				rc = "(m.id <= " + p.Add(m.through) + " OR " + rc + ")"
			}
		}
		return rc
	}
	flags := "m.default_flags"
	switch {
	case read:
		switch part {
		case readBelowMark:
			where = append(where, "m.id <= "+p.Add(m.through))
		case readOwnAbove:
			where = append(where, "m.id > "+p.Add(m.through), "m.sender_id = "+user)
		default:
			where = append(where, readCond())
		}
		flags = "(m.default_flags | 1)"
	case unread:
		if m.through > 0 {
			where = append(where, "m.id > "+p.Add(m.through))
		}
		where = append(where, "m.sender_id <> "+user)
	case q.AnyFlags&store.FlagRead != 0:
		flags = "(m.default_flags | CASE WHEN " + readCond() + " THEN 1 ELSE 0 END)"
	}
	all, none := q.AllFlags&^store.FlagRead, q.NoFlags&^store.FlagRead
	anyDefault := q.AnyFlags // the bits of AnyFlags only default flags can give
	switch {
	case unread:
		anyDefault &^= store.FlagRead
	case anyDefault&store.FlagRead != 0:
		anyDefault = 0 // the read mark can give read
	}
	switch {
	case all&^store.MentionFlags != 0 || anyDefault != 0 && anyDefault&store.MentionFlags == 0:
		// Only a message whose default flags hold a bit no mention gives
		// can match: the partial index of those (all but empty, the rules
		// default only mention bits) serves the range, rather than every
		// message with a default flag (each @**all** of the history).
		where = append(where, personalDefaults)
	case all != 0 || anyDefault != 0:
		// Only a message with default flags can match: the partial index
		// of those serves the range.
		where = append(where, "m.default_flags <> 0")
	}
	if all != 0 {
		where = append(where, flags+" & "+itoa(all)+" = "+itoa(all))
	}
	if none != 0 {
		where = append(where, flags+" & "+itoa(none)+" = 0")
	}
	if q.AnyFlags != 0 {
		where = append(where, flags+" & "+itoa(q.AnyFlags)+" <> 0")
	}
	where = append(where, common...)
	if !overlapsRows(q, view) {
		where = append(where, x.d.NoFlagRow(user, "m.id"))
	}
	cols := "m.id AS id"
	if view {
		derived := "m.default_flags"
		switch {
		case read:
			derived = "(m.default_flags | 1)"
		case !unread:
			derived = "(m.default_flags | CASE WHEN " + readCond() + " THEN 1 ELSE 0 END)"
		}
		cols += viewCols + ", " + derived + " AS uf"
	}
	return "SELECT " + cols + " FROM messages m WHERE " + strings.Join(where, " AND "), true
}

// personalDefaults is the predicate of the partial index of messages whose
// default flags hold a bit other than MentionFlags (56), spelled as the
// index states it.
const personalDefaults = "(m.default_flags | 56) <> 56"

// RowFlagConds returns the conditions of q's flags on a flag row's flags
// column col, written as the partial indexes of flag rows are (read bit
// clear, starred set, any mention bit set), so that they serve them.
func RowFlagConds(col string, q store.MessageQuery) []string {
	var conds []string
	for b := store.MessageFlags(1); b != 0 && b <= q.AllFlags; b <<= 1 {
		if q.AllFlags&b != 0 {
			conds = append(conds, col+" & "+itoa(b)+" = "+itoa(b))
		}
	}
	for b := store.MessageFlags(1); b != 0 && b <= q.NoFlags; b <<= 1 {
		if q.NoFlags&b != 0 {
			conds = append(conds, col+" & "+itoa(b)+" = 0")
		}
	}
	if q.AnyFlags != 0 {
		conds = append(conds, col+" & "+itoa(q.AnyFlags)+" <> 0")
	}
	return conds
}

// MessageConds appends to where the conditions of q on the message m that
// every store spells the same: channel, sender, has, reaction, topic prefix and
// topic filter (TopicConds).
// add adds a statement argument and returns its placeholder.
func MessageConds(where []string, add func(any) string, q store.MessageQuery) []string {
	if q.StreamID != 0 {
		where = append(where, "m.type = 'stream' AND m.stream_id = "+add(q.StreamID))
	}
	if q.SenderID != 0 {
		where = append(where, "m.sender_id = "+add(q.SenderID))
	}
	if q.Has != 0 {
		// The values holding every bit of q.Has, listed: "has <> 0" lets
		// the partial index of such messages serve it, and a list of values
		// is what the planners estimate from their statistics (a bit test
		// they guess at).
		var vals []string
		for v := store.MessageHas(1); v <= store.HasLink|store.HasImage|store.HasAttachment; v++ {
			if v&q.Has == q.Has {
				vals = append(vals, itoa(v))
			}
		}
		where = append(where, "m.has <> 0 AND m.has IN ("+strings.Join(vals, ", ")+")")
	}
	if q.HasReaction {
		where = append(where, "EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)")
	}
	if q.TopicPrefix != "" {
		pre := add(q.TopicPrefix)
		where = append(where, "m.type = 'stream' AND substr(m.topic, 1, length("+pre+")) = "+pre)
	}
	return TopicConds(where, add, q)
}

func itoa[T ~uint8 | ~uint16](v T) string { return strconv.Itoa(int(v)) }

func orderDir(newest bool) string {
	if newest {
		return " DESC"
	}
	return ""
}

func limitClause(limit int) string {
	if limit > 0 {
		return " LIMIT " + strconv.Itoa(limit)
	}
	return ""
}

// UnreadMessages implements [store.FlagStore] with ReceivedUserMessages:
// one statement reads the messages with the user's flags.
func (x *Tx) UnreadMessages(ctx context.Context, user store.UserID, limit int) ([]store.UserMessage, error) {
	return x.ReceivedUserMessages(ctx, store.MessageQuery{FlagUser: user, NoFlags: store.FlagRead, Newest: true, Limit: limit})
}

// FlaggedMessageIDs implements [store.FlagStore] through ReceivedIDs.
func (x *Tx) FlaggedMessageIDs(ctx context.Context, user store.UserID, flag store.MessageFlags) ([]store.MessageID, error) {
	return x.ReceivedIDs(ctx, store.MessageQuery{FlagUser: user, AllFlags: flag})
}

// NoFlagRow is the condition that user has no flag row for message msg
// (both SQL expressions of the outer statement): a probe of the flag
// table's primary key for each outer row, kept a probe by ProbeFence.
// PostgreSQL otherwise plans it as an anti join, and a generic plan that
// expects one outer row then reads every row of the user for each
// message: on 1M messages, a sender narrow's arm of a channel read 3,220
// rows a message (35 ms) where the probe reads none (0.2 ms).
func (d *Dialect) NoFlagRow(user, msg string) string {
	return "NOT EXISTS (SELECT 1 FROM user_message_flags f WHERE f.user_id = " + user + " AND f.message_id = " + msg + d.ProbeFence + ")"
}

// MessageFlagRows implements [store.FlagStore]: the rows, the receivers
// whose read mark covers the message without a row, and the sender when
// they received it without a row (read, as their own message).
func (x *Tx) MessageFlagRows(ctx context.Context, msg store.MessageID) ([]store.UserMessageFlags, error) {
	return scanAll(ctx, x, "message flag rows", func(r Row, f *store.UserMessageFlags) error {
		return r.Scan(Num(&f.UserID), Num(&f.MessageID), Num(&f.Flags))
	}, `SELECT user_id, message_id, flags FROM user_message_flags WHERE message_id = $1
	UNION ALL
	SELECT k.user_id, m.id, m.default_flags | 1 FROM messages m
		JOIN read_marks k ON k.recipient_id = m.recipient_id AND k.through >= m.id
	WHERE m.id = $1 AND m.default_flags & 1 = 0
		AND `+x.d.NoFlagRow("k.user_id", "m.id")+`
		AND `+ReceivedCond("k.user_id")+`
	UNION ALL
	SELECT m.sender_id, m.id, m.default_flags | 1 FROM messages m
	WHERE m.id = $1 AND m.default_flags & 1 = 0
		AND `+x.d.NoFlagRow("m.sender_id", "m.id")+`
		AND NOT EXISTS (SELECT 1 FROM read_marks k WHERE k.user_id = m.sender_id AND k.recipient_id = m.recipient_id
			AND k.through >= m.id)
		AND `+ReceivedCond("m.sender_id")+`
	ORDER BY 1`, msg)
}
