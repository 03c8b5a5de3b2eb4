package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"

	"github.com/chatcore/chatcore/store"
)

// FlagCondition is the condition on uf, a message's flags for
// q.FlagUser (see EffFlagsSQL), of a message query with FlagUser. The flag
// values are small integers, written into the statement.
func FlagCondition(q store.MessageQuery) string {
	all, anyOf, none := strconv.Itoa(int(q.AllFlags)), strconv.Itoa(int(q.AnyFlags)), strconv.Itoa(int(q.NoFlags))
	cond := "uf IS NOT NULL AND uf & " + all + " = " + all + " AND uf & " + none + " = 0"
	if q.AnyFlags != 0 {
		cond += " AND uf & " + anyOf + " <> 0"
	}
	return cond
}

// UserMessageCols are the columns [Dialect.ScanUserMessage] reads, of a
// FROM item holding messages with their flags as uf.
const UserMessageCols = "id, realm_id, type, stream_id, topic, sender_id, direct_members, uf"

// ScanUserMessage scans a row of UserMessageCols into um. A NULL uf is a
// message the user did not receive.
func (d *Dialect) ScanUserMessage(r Row, um *store.UserMessage) error {
	var uf optFlags
	err := r.Scan(Num(&um.ID), Num(&um.RealmID), Type(&um.Type), Num(&um.StreamID), &um.Topic, Num(&um.SenderID),
		d.UserListDest(&um.DirectMembers), &uf)
	um.Received, um.Flags = uf.valid, uf.flags
	if um.Type != store.MessageTypePrivate {
		um.DirectMembers = nil
	}
	return err
}

// optFlags scans a nullable flags column.
type optFlags struct {
	flags store.MessageFlags
	valid bool
}

func (c *optFlags) Scan(v any) error {
	switch v := v.(type) {
	case nil:
		c.flags, c.valid = 0, false
	case int64:
		c.flags, c.valid = store.MessageFlags(v), true
	default:
		return fmt.Errorf("flags column holds %T", v)
	}
	return nil
}

// Type scans the type column of a message into p.
func Type(p *store.MessageType) TypeScanner { return TypeScanner{p} }

// TypeScanner is the scanner [Type] returns.
type TypeScanner struct{ p *store.MessageType }

// Scan implements sql.Scanner (which pgx also uses).
func (c TypeScanner) Scan(v any) error {
	switch v {
	case "stream":
		*c.p = store.MessageTypeStream
	case "private":
		*c.p = store.MessageTypePrivate
	default:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("type column holds %T", v)
		}
		*c.p = store.MessageType(s)
	}
	return nil
}

// scanIDs runs query and collects the single integer column of every row.
func scanIDs[T ~int64](ctx context.Context, x *Tx, what, query string, args ...any) ([]T, error) {
	return scanAll(ctx, x, what, func(r Row, v *T) error { return r.Scan(Num(v)) }, query, args...)
}

// UserMessages implements [store.FlagStore] with one query.
func (x *Tx) UserMessages(ctx context.Context, user store.UserID, ids []store.MessageID) ([]store.UserMessage, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return scanAll(ctx, x, "user messages", x.d.ScanUserMessage,
		"SELECT "+UserMessageCols+" FROM (SELECT m.*, "+EffFlagsSQL+` AS uf FROM messages m
			WHERE `+x.d.inMessages("m.id", "$2")+`) m ORDER BY id`,
		user, List(x.d, ids))
}

// UpdateUserMessageFlags implements [store.FlagStore] with one upsert
// that returns the changed ids.
func (x *Tx) UpdateUserMessageFlags(ctx context.Context, user store.UserID, ids []store.MessageID, flag store.MessageFlags, add bool) ([]store.MessageID, error) {
	if err := x.q.Writable(); err != nil {
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
	out, err := scanIDs[store.MessageID](ctx, x, "update message flags",
		`INSERT INTO user_message_flags (user_id, message_id, flags)
		SELECT $1, id, `+next+` FROM (SELECT m.id, `+EffFlagsSQL+` AS uf FROM messages m
			WHERE `+x.d.inMessages("m.id", "$2")+`) m
		WHERE uf IS NOT NULL AND `+changed+`
		ON CONFLICT (user_id, message_id) DO UPDATE SET flags = excluded.flags
		RETURNING message_id`, user, List(x.d, ids))
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	if len(out) > 0 && add == (flag&store.FlagRead != 0) {
		// The rows just written for the user's own messages that hold
		// what is derived for them (read, the default flags) go; only
		// setting read or clearing another flag can write such a row.
		if _, err := x.q.Exec(ctx, `DELETE FROM user_message_flags WHERE user_id = $1 AND `+x.d.inMessages("message_id", "$2")+`
			AND EXISTS (SELECT 1 FROM messages m WHERE m.id = user_message_flags.message_id AND m.sender_id = $1
				AND user_message_flags.flags = (m.default_flags | 1) AND `+ReceivedCond("$1")+`)`, user, List(x.d, out)); err != nil {
			return nil, x.classify(err, "update message flags")
		}
	}
	if add && flag&store.FlagRead != 0 {
		if err := x.AdvanceReadMarks(ctx, user, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// inMessages is In for a list of message ids, without the cast on
// PostgreSQL, where the parameter's type comes from the column.
func (d *Dialect) inMessages(expr, param string) string {
	if d.JSONLists {
		return d.In(expr, param, "bigint")
	}
	return expr + " = ANY(" + param + ")"
}
