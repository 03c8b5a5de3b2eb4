package sqlite

// The full-text index of search (the FTS5 table messages_fts, migrations
// 0019 and 0027) is filled after commit, in batches, by the Store's
// indexer: FTS5 writes a segment and its bookkeeping per transaction, so
// indexing each message in its sending transaction made sends and edits
// about twice as costly. search_state's indexed_through and the table
// search_stale tell the indexed messages from the index's tail (those
// above indexed_through, and the stale ones, written again since they were
// indexed); a search matches the tail in Go (chatcore_search_match, the
// memory store's matcher), so its answer never depends on how far the
// indexer has got.

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chatcore/chatcore/internal/fulltext"
	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"modernc.org/sqlite"
)

// searchDocumentFunc is the SQL function the indexer fills messages_fts
// with: chatcore_search_document(topic, rendered_content) is the lexemes
// the index holds for a message (fulltext.Document).
const searchDocumentFunc = "chatcore_search_document"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(searchDocumentFunc, 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		topic, rendered, err := textArgs(searchDocumentFunc, args[0], args[1])
		if err != nil {
			return nil, err
		}
		return fulltext.Document(topic, rendered), nil
	})
	sqlite.MustRegisterDeterministicScalarFunction(sqlstore.SQLiteSearchMatchFunc, 3, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		lexemes, err := textArg(sqlstore.SQLiteSearchMatchFunc, args[0])
		if err != nil {
			return nil, err
		}
		topic, rendered, err := textArgs(sqlstore.SQLiteSearchMatchFunc, args[1], args[2])
		if err != nil {
			return nil, err
		}
		q := fulltext.Query{Lexemes: strings.Fields(lexemes)}
		if q.Matches(topic, "", rendered) {
			return int64(1), nil
		}
		return int64(0), nil
	})
}

// textArgs reads the topic and rendered-content arguments of fn.
func textArgs(fn string, topic, rendered driver.Value) (string, string, error) {
	t, err := textArg(fn, topic)
	if err != nil {
		return "", "", err
	}
	r, err := textArg(fn, rendered)
	return t, r, err
}

// textArg reads a text argument of the SQL function fn; NULL is "".
func textArg(fn string, v driver.Value) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		return x, nil
	case []byte:
		return string(x), nil
	}
	return "", fmt.Errorf("%s: argument of type %T", fn, v)
}

// Bounds of the index's work.
const (
	// indexBatch is how many messages one indexer transaction indexes at
	// most (new ones, and as many stale ones besides).
	indexBatch = 500
	// indexDelay is how long the indexer waits after a commit woke it, so
	// that the messages of many transactions share its transaction.
	indexDelay = 20 * time.Millisecond
	// maxSearchTail is the longest tail a search matches in Go: beyond it
	// (the indexer is behind, as after a large import by many small
	// transactions), a search fails with ErrSearchBehind rather than read
	// the history.
	maxSearchTail = 4096
	// bulkIndexMin is how many messages one CreateMessages inserts from
	// which it indexes them itself, at its end (an import's batches).
	bulkIndexMin = 64
)

// ErrSearchBehind is returned (wrapping [store.ErrUnavailable], which the
// Service answers as retryable) by a search while more than a few thousand
// messages wait for the full-text index; the Store's indexer is then
// catching up, or [Store.IndexSearch] makes it catch up.
var ErrSearchBehind = fmt.Errorf("%w: sqlite: the full-text index is catching up", store.ErrUnavailable)

// indexer runs a Store's full-text indexing in the background: one
// goroutine, woken after commits (wake), which indexes the tail in batches
// of indexBatch in its own Update until it is empty.
type indexer struct {
	wake chan struct{}
	stop chan struct{}
	done chan struct{}
	// stopped makes stopping idempotent (Close may be called twice).
	stopped sync.Once
}

// newIndexer returns an indexer, not yet started.
func newIndexer() *indexer {
	return &indexer{wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
}

// poke wakes the indexer without waiting.
func (ix *indexer) poke() {
	if ix == nil {
		return
	}
	select {
	case ix.wake <- struct{}{}:
	default:
	}
}

// startIndexer starts s's indexer goroutine, woken at once (a Store
// opened on a file whose tail a previous process left catches up).
func (s *Store) startIndexer() {
	go s.runIndexer()
	s.index.poke()
}

// stopIndexer stops s's indexer goroutine, if it runs, and waits for it
// to end.
func (s *Store) stopIndexer() {
	if s.index == nil {
		return
	}
	s.index.stopped.Do(func() { close(s.index.stop) })
	<-s.index.done
}

// runIndexer is the indexer goroutine: after each wake it waits
// indexDelay, then indexes batches until the tail is empty, until stopped.
func (s *Store) runIndexer() {
	ix := s.index
	defer close(ix.done)
	ctx := context.Background()
	for {
		select {
		case <-ix.stop:
			return
		case <-ix.wake:
		}
		timer := time.NewTimer(indexDelay)
		select {
		case <-ix.stop:
			timer.Stop()
			return
		case <-timer.C:
		}
		for {
			n, err := s.indexOnce(ctx)
			if err != nil {
				// The next commit wakes the indexer again; a tail left
				// meanwhile is searched in Go.
				slog.Warn("sqlite: full-text indexer", "err", err)
				break
			}
			if n < indexBatch {
				break
			}
			select {
			case <-ix.stop:
				return
			default:
			}
		}
	}
}

// indexOnce indexes one batch of the tail, if there is one, and returns
// the number of messages it indexed. It looks for a tail on a reader
// connection first, so that a commit that wrote no message costs the
// writer nothing.
func (s *Store) indexOnce(ctx context.Context) (int, error) {
	var pending bool
	err := s.readers.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM messages WHERE id > (SELECT indexed_through FROM search_state))
		OR EXISTS (SELECT 1 FROM search_stale)`).Scan(&pending)
	if err != nil || !pending {
		return 0, err
	}
	var n int
	err = s.Update(ctx, func(stx store.Tx) error {
		var err error
		n, err = stx.(*tx).indexTail(ctx, indexBatch)
		return err
	})
	return n, err
}

// IndexSearch indexes every message the full-text index does not hold yet,
// in batches, and returns once it holds them all. The Store's indexer does
// this in the background after every commit; IndexSearch is for a caller
// that has just written many messages in many small transactions and
// wants searches at their fastest at once.
func (s *Store) IndexSearch(ctx context.Context) error {
	for {
		n, err := s.indexOnce(ctx)
		if err != nil {
			return fmt.Errorf("sqlite: index search: %w", err)
		}
		if n == 0 {
			return nil
		}
	}
}

// indexTail indexes up to limit stale messages and up to limit messages
// above indexed_through, in t, and returns how many it indexed. limit 0 is
// no limit.
func (t *tx) indexTail(ctx context.Context, limit int) (int, error) {
	lim := ""
	if limit > 0 {
		lim = fmt.Sprintf(" LIMIT %d", limit)
	}
	stale, err := scanAll(ctx, t, "search: stale messages", func(r *sql.Rows, id *int64) error { return r.Scan(id) },
		"SELECT message_id FROM search_stale ORDER BY message_id"+lim)
	if err != nil {
		return 0, err
	}
	if len(stale) > 0 {
		list := idsJSON(stale)
		for _, q := range []string{
			"DELETE FROM messages_fts WHERE rowid IN (SELECT value FROM json_each(?))",
			"INSERT INTO messages_fts (rowid, body) SELECT id, " + searchDocumentFunc + "(topic, rendered_content) FROM messages WHERE id IN (SELECT value FROM json_each(?))",
			"DELETE FROM search_stale WHERE message_id IN (SELECT value FROM json_each(?))",
		} {
			if _, err := t.exec(ctx, q, list); err != nil {
				return 0, classify(err, "search: index stale messages")
			}
		}
	}
	var through int64
	var hi *int64
	var n int
	if err := t.queryRow(ctx, `SELECT s.indexed_through, (SELECT max(id) FROM (SELECT id FROM messages WHERE id > s.indexed_through ORDER BY id`+lim+`)),
		(SELECT count(*) FROM (SELECT id FROM messages WHERE id > s.indexed_through ORDER BY id`+lim+`)) FROM search_state s`).Scan(&through, &hi, &n); err != nil {
		return 0, classify(err, "search: indexed through")
	}
	if hi == nil {
		return len(stale), nil
	}
	if _, err := t.exec(ctx, "INSERT INTO messages_fts (rowid, body) SELECT id, "+searchDocumentFunc+
		"(topic, rendered_content) FROM messages WHERE id > ? AND id <= ? ORDER BY id", through, *hi); err != nil {
		return 0, classify(err, "search: index new messages")
	}
	if _, err := t.exec(ctx, "UPDATE search_state SET indexed_through = ?", *hi); err != nil {
		return 0, classify(err, "search: indexed through")
	}
	return len(stale) + n, nil
}

// markExplicitIDs marks stale the messages of ids (inserted with ids
// their callers chose) at or below indexed_through: the indexer reads only
// above it. Ids the store gives are above every id used, so above it.
func (t *tx) markExplicitIDs(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := t.exec(ctx, `INSERT OR IGNORE INTO search_stale (message_id)
		SELECT value FROM json_each(?) WHERE value <= (SELECT indexed_through FROM search_state)`, idsJSON(ids))
	return classify(err, "search: mark explicit ids")
}

// searchTail returns, for a q with a search term, the ids of the index's
// tail (the messages above indexed_through, then the stale ones), or
// ErrSearchBehind (waking the indexer) when it is longer than a search
// matches in Go. For any other q it returns nil.
func (t *tx) searchTail(ctx context.Context, q store.MessageQuery) ([]store.MessageID, error) {
	if len(q.Search) == 0 {
		return nil, nil
	}
	ids, err := scanAll(ctx, t, "search: index tail", func(r *sql.Rows, id *store.MessageID) error { return r.Scan(num(id)) },
		`SELECT id FROM (SELECT id FROM messages WHERE id > (SELECT indexed_through FROM search_state) ORDER BY id LIMIT ?1)
		UNION ALL SELECT message_id FROM (SELECT message_id FROM search_stale LIMIT ?1)`, maxSearchTail+1)
	if err != nil {
		return nil, err
	}
	if len(ids) > maxSearchTail {
		t.index.poke()
		return nil, ErrSearchBehind
	}
	return ids, nil
}

// tailQuery returns q narrowed to the messages of tail, for reading the
// tail's matches of a query whose search term drives its read through the
// index (which holds none of them); ok is false when that selects nothing.
func tailQuery(q store.MessageQuery, tail []store.MessageID) (store.MessageQuery, bool) {
	if len(tail) == 0 || sqlstore.DrivingSearch(q) < 0 {
		return q, false
	}
	ids := tail
	if q.IDs != nil {
		ids = slices.DeleteFunc(slices.Clone(tail), func(id store.MessageID) bool { return !slices.Contains(q.IDs, id) })
	}
	q.IDs = ids
	return q, len(ids) > 0
}

// mergeByID merges a and b, each in q's order and without an id of the
// other, into one list in q's order, cut to q.Limit.
func mergeByID[T any](q store.MessageQuery, a, b []T, id func(*T) store.MessageID) []T {
	out := make([]T, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		takeA := j == len(b)
		if i < len(a) && j < len(b) {
			takeA = (id(&a[i]) < id(&b[j])) != q.Newest
		}
		if takeA {
			out = append(out, a[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out
}
