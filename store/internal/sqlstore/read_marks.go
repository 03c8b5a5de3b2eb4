package sqlstore

// A user's read marks: the message of each channel and conversation up to
// which everything is read unless a flag row says otherwise.

import (
	"context"
	"slices"
	"strconv"

	"github.com/chatcore/chatcore/store"
)

// MarkReadThrough implements [store.FlagStore]: one upsert of the mark, one
// update of the user's unread rows up to it (their partial index), and the
// deletion of the rows the mark now derives.
func (x *Tx) MarkReadThrough(ctx context.Context, user store.UserID, recipient store.RecipientID, through store.MessageID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	if through <= 0 {
		return nil
	}
	if _, err := x.q.Exec(ctx, markSQL, user, recipient, through); err != nil {
		return x.classify(err, "mark read")
	}
	if _, err := x.q.Exec(ctx, `UPDATE user_message_flags SET flags = flags | 1
		WHERE user_id = $1 AND flags & 1 = 0 AND message_id <= $3
		AND EXISTS (SELECT 1 FROM messages m WHERE m.id = message_id AND m.recipient_id = $2)`, user, recipient, through); err != nil {
		return x.classify(err, "mark read")
	}
	ms, err := x.memberships(ctx, user, 0)
	if err != nil {
		return err
	}
	if i := slices.IndexFunc(ms, func(m membership) bool { return m.recipient == recipient }); i >= 0 {
		// The rows the mark now derives go, as AdvanceReadMarks does.
		_, err = x.q.Exec(ctx, sweepSQL, user, ms[i].since-1, through, recipient, ms[i].since)
	}
	return x.classify(err, "mark read")
}

// sweepSQL deletes the rows of user $1 on messages of recipient $4 with an
// id above $2, up to $3 and at least $5 (their receipt starts there) whose
// flags are what a read mark derives: read and the message's default flags.
const sweepSQL = `DELETE FROM user_message_flags
	WHERE user_id = $1 AND message_id > $2 AND message_id <= $3
	AND EXISTS (SELECT 1 FROM messages m WHERE m.id = message_id AND m.recipient_id = $4
		AND m.id >= $5 AND flags = (m.default_flags | 1))`

// markSQL raises the read mark of user $1 on recipient $2 to $3.
const markSQL = `INSERT INTO read_marks (user_id, recipient_id, through) VALUES ($1, $2, $3)
	ON CONFLICT (user_id, recipient_id) DO UPDATE SET through = CASE WHEN excluded.through > read_marks.through
	THEN excluded.through ELSE read_marks.through END`

// maxPinned bounds the unread messages one mark move pins with a row.
const maxPinned = 100

// AdvanceReadMarks moves the user's read marks after the messages ids
// (ascending) became read for them: the mark of each of their channels and
// conversations among those messages rises to the highest of them when at
// most maxPinned messages without a row lie between the two (those stay
// unread through a row with the flags they had). A user who reads in order
// thus keeps their unread messages above their marks, which is what lets
// unread reads go through an index whatever the history; nobody's flags
// change.
func (x *Tx) AdvanceReadMarks(ctx context.Context, user store.UserID, ids []store.MessageID) error {
	if len(ids) == 0 {
		return nil
	}
	type top struct {
		recipient store.RecipientID
		high      store.MessageID
	}
	tops, err := scanAll(ctx, x, "read marks", func(r Row, t *top) error { return r.Scan(Num(&t.recipient), Num(&t.high)) },
		"SELECT m.recipient_id, max(m.id) FROM messages m WHERE "+x.d.inMessages("m.id", "$1")+" GROUP BY m.recipient_id",
		List(x.d, ids))
	if err != nil || len(tops) == 0 {
		return err
	}
	ms, err := x.memberships(ctx, user, 0)
	if err != nil {
		return err
	}
	for _, t := range tops {
		i := slices.IndexFunc(ms, func(m membership) bool { return m.recipient == t.recipient })
		if i < 0 {
			continue
		}
		m := ms[i]
		base := max(m.through, m.since-1)
		if t.high <= base {
			continue
		}
		pinned, err := scanIDs[store.MessageID](ctx, x, "read marks", `SELECT m.id FROM messages m
			WHERE m.recipient_id = $1 AND m.id > $2 AND m.id <= $3 AND m.sender_id <> $4
			AND `+x.d.NoFlagRow("$4", "m.id")+`
			ORDER BY m.id LIMIT `+strconv.Itoa(maxPinned+1), m.recipient, base, t.high, user)
		if err != nil {
			return err
		}
		if len(pinned) > maxPinned {
			continue
		}
		if len(pinned) > 0 {
			if _, err := x.q.Exec(ctx, `INSERT INTO user_message_flags (user_id, message_id, flags)
				SELECT $1, m.id, m.default_flags FROM messages m WHERE `+x.d.inMessages("m.id", "$2"),
				user, List(x.d, pinned)); err != nil {
				return x.classify(err, "read marks")
			}
		}
		if _, err := x.q.Exec(ctx, markSQL, user, t.recipient, t.high); err != nil {
			return x.classify(err, "read marks")
		}
		// The rows the mark now derives (read and the message's default
		// flags, nothing else) go: a user's rows stay the few that differ
		// from their marks (starred, mentioned, unread ones), which keeps
		// every read driven by them short.
		if _, err := x.q.Exec(ctx, sweepSQL, user, base, t.high, t.recipient, m.since); err != nil {
			return x.classify(err, "read marks")
		}
	}
	return nil
}
