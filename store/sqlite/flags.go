package sqlite

import (
	"context"
	"slices"
	"strconv"

	"github.com/chatcore/chatcore/store"
)

// PutUserMessageFlags implements [store.FlagStore] with one statement.
func (t *tx) PutUserMessageFlags(ctx context.Context, rows []store.UserMessageFlags) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	b := make([]byte, 0, 2+len(rows)*24)
	b = append(b, '[')
	for i, r := range rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(r.UserID), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.MessageID), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(r.Flags), 10)
		b = append(b, ']')
	}
	b = append(b, ']')
	_, err := t.exec(ctx, `INSERT INTO user_message_flags (user_id, message_id, flags)
		SELECT value ->> 0, value ->> 1, value ->> 2 FROM json_each(?) WHERE true
		ON CONFLICT (user_id, message_id) DO UPDATE SET flags = excluded.flags`, string(b))
	return classify(err, "put message flags")
}

// StreamAudience implements [store.StreamStore]: the channel, then its
// audience as one JSON array.
func (t *tx) StreamAudience(ctx context.Context, stream store.StreamID, upTo store.MessageID) (*store.Stream, []store.UserID, error) {
	st, err := t.Stream(ctx, stream)
	if err != nil {
		return nil, nil, err
	}
	var out []store.UserID
	// The primary key (stream_id, user_id) already yields ascending user ids.
	err = t.queryRow(ctx, `SELECT coalesce(json_group_array(user_id), '[]')
		FROM subscriptions WHERE stream_id = ? AND active = 1 AND (? OR coalesce(first_visible_message_id, 0) <= ?)`,
		stream, st.HistoryPublicToSubscribers, upTo).Scan(listCol[store.UserID]{&out})
	if err != nil {
		return nil, nil, classify(err, "audience")
	}
	slices.Sort(out) // a no-op pass when the plan kept the key order
	return st, out, nil
}

// ActiveSubscriberIDs implements [store.StreamStore]. SQLite builds the
// list as one JSON array, so a channel of 10,000 subscribers costs one row
// step instead of 10,000.
func (t *tx) ActiveSubscriberIDs(ctx context.Context, stream store.StreamID) ([]store.UserID, error) {
	return cachedRead(t, subscriptionsTable, subscribersMap, stream, slices.Clone, func() ([]store.UserID, error) {
		var out []store.UserID
		// The primary key (stream_id, user_id) already yields ascending user
		// ids; an ORDER BY in the aggregate would build a sorter of every row.
		err := t.queryRow(ctx, `SELECT coalesce(json_group_array(user_id), '[]')
		FROM subscriptions WHERE stream_id = ? AND active = 1`, stream).Scan(listCol[store.UserID]{&out})
		if err != nil {
			return nil, classify(err, "subscribers")
		}
		slices.Sort(out) // a no-op pass when the plan kept the key order
		return out, nil
	})
}
