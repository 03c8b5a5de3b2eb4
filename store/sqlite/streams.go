package sqlite

import (
	"context"
	"database/sql"

	"github.com/chatcore/chatcore/store"
)

// Stream implements [store.StreamStore], from the row cache when it
// holds the row.
func (t *tx) Stream(ctx context.Context, id store.StreamID) (*store.Stream, error) {
	if s, ok := t.cachedStream(id); ok {
		return s, nil
	}
	s, err := t.Tx.Stream(ctx, id)
	if err == nil {
		t.cacheStream(s)
	}
	return s, err
}

// StreamByName implements [store.StreamStore], from the row cache when it
// holds the row.
func (t *tx) StreamByName(ctx context.Context, realm store.RealmID, name string) (*store.Stream, error) {
	if s, ok := t.cachedStreamByName(realm, store.FoldKey(name)); ok {
		return s, nil
	}
	s, err := t.Tx.StreamByName(ctx, realm, name)
	if err == nil {
		t.cacheStream(s)
	}
	return s, err
}

// StreamTopics implements [store.StreamStore]: one pass over the
// channel's rows of the messages_stream_topic index.
func (t *tx) StreamTopics(ctx context.Context, stream store.StreamID, minID store.MessageID) ([]store.TopicSummary, error) {
	return scanAll(ctx, t, "stream topics", func(r *sql.Rows, s *store.TopicSummary) error { return r.Scan(&s.Name, &s.MaxID) },
		`SELECT (SELECT topic FROM messages n WHERE n.id = m.max_id), m.max_id FROM
		(SELECT MAX(id) AS max_id FROM messages WHERE stream_id = ? AND id >= ? GROUP BY topic_key) m
		ORDER BY m.max_id DESC`, stream, minID)
}
