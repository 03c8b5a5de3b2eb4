package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

// bulkRows is how many rows one statement of CreateMessages inserts at most.
// SQLite binds at most 32766 parameters per statement (its default
// SQLITE_MAX_VARIABLE_NUMBER), far above bulkRows times any row's width.
// BenchmarkCreateMessages measured the size: 64 rows per statement took
// about half the time per message of one CreateMessage each and of a
// reused single-row statement, while 256 rows gained nothing and 1,024 lost
// again (a longer text to parse and a bigger copy in the statement cache).
var bulkRows = 64

// bulkCacheKiB is the page cache, in KiB, of the writer connection while a
// transaction that has bulk-inserted messages is open (SQLite's default is
// 2,000 KiB, which the transaction's end restores; see writeGroup.ended).
// An import writes every message's row into seven indexes and the search
// index at scattered places: with the default cache, each insert evicts
// dirty pages into the WAL and reads them back (cmd/importbench at 200k
// messages: 33 s with the default cache, 21 s with this one). The cache is
// SQLite's memory, outside the Go heap, and fills only as pages are used;
// a transaction's dirty pages stay in it until the commit, so it bounds
// what the import holds too.
var bulkCacheKiB = 256 << 10

// messageRowArgs are the values of a message row, in the order of
// sqlstore.MessageCols (as CreateMessage binds them after its id).
func messageRowArgs(m *store.Message) []any {
	return []any{int64(m.ID), m.RealmID, m.SenderID, string(m.Type), m.RecipientID, int64(m.StreamID), m.Topic, m.TopicKey,
		listArg(m.DirectMembers), m.Content, m.RenderedContent, m.Client, timeArg(m.SentAt),
		timeArg(m.LastEditedAt), timeArg(m.LastMovedAt), m.IsMeMessage, int64(m.DefaultFlags), int64(m.Has)}
}

// CreateMessages implements [store.MessageStore] with multi-row INSERTs of
// up to bulkRows rows per table and statement. Zero ids are given here, as
// AUTOINCREMENT would give them one insert at a time: above the table's
// sequence (every id ever used) and above every id before them in ms; the
// explicit ids inserted raise the sequence themselves. From bulkIndexMin
// messages on (an import's batch), it also brings the full-text index up
// to date before returning, in one pass, rather than leave the indexer a
// tail that searches would match in Go meanwhile.
func (t *tx) CreateMessages(ctx context.Context, ms []*store.Message) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(ms) == 0 {
		return nil
	}
	if err := t.bulkCache(ctx, len(ms)); err != nil {
		return err
	}
	var hi int64
	var explicit []int64
	for _, m := range ms {
		if m.ID != 0 {
			explicit = append(explicit, int64(m.ID))
		}
		if m.ID == 0 {
			if hi == 0 {
				if err := t.queryRow(ctx, `SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'messages'), 0),
					coalesce((SELECT max(id) FROM messages), 0))`).Scan(&hi); err != nil {
					return classify(err, "create messages: next id")
				}
				for _, p := range ms {
					if p == m {
						break
					}
					hi = max(hi, int64(p.ID))
				}
			}
			hi++
			m.ID = store.MessageID(hi)
		} else if hi != 0 {
			hi = max(hi, int64(m.ID))
		}
		m.TopicKey = store.TopicKey(m.Topic)
	}
	cols := sqlstore.MessageColList()
	width := len(cols)
	args := make([]any, 0, min(len(ms), bulkRows)*width)
	err := chunked(len(ms), func(lo, n int) error {
		args = args[:0]
		for _, m := range ms[lo : lo+n] {
			row := messageRowArgs(m)
			if len(row) != width {
				return fmt.Errorf("sqlite: create messages: %d values for the %d message columns", len(row), width)
			}
			args = append(args, row...)
		}
		return t.execRows(ctx, "create messages", "INSERT INTO messages ("+sqlstore.MessageCols+")", width, n, args)
	})
	if err != nil {
		return err
	}
	if err := t.createChildren(ctx, ms); err != nil {
		return err
	}
	if err := t.markExplicitIDs(ctx, explicit); err != nil {
		return err
	}
	if len(ms) >= bulkIndexMin {
		// An import's batch: indexed here, in one pass, rather than left
		// as a tail the indexer works through while searches wait.
		if _, err := t.indexTail(ctx, 0); err != nil {
			return err
		}
	}
	return nil
}

// bulkCache raises the writer's page cache to bulkCacheKiB for the rest of
// the shared transaction, the first time an Update of it writes a batch of
// at least bulkRows messages (a send's single message leaves it alone).
func (t *tx) bulkCache(ctx context.Context, n int) error {
	if n < bulkRows || t.group == nil || t.group.bulkCache {
		return nil
	}
	ctx, sqlTx, err := t.prepare(ctx, "PRAGMA cache_size", 0, nil)
	if err != nil {
		return err
	}
	var prev int64
	if err := sqlTx.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&prev); err != nil {
		return classify(err, "create messages: read cache size")
	}
	if _, err := sqlTx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_size = %d", -bulkCacheKiB)); err != nil {
		return classify(err, "create messages: cache size")
	}
	t.group.bulkCache, t.group.cacheSize = true, prev
	return nil
}

// createChildren writes the reactions, edit history and submessages of ms,
// whose ids are set.
func (t *tx) createChildren(ctx context.Context, ms []*store.Message) error {
	reactionCols := len(sqlstore.ReactionColList)
	var rows []any
	flush := func(what, head string, width int, force bool) error {
		n := len(rows) / width
		if n == 0 || (!force && n < bulkRows) {
			return nil
		}
		err := t.execRows(ctx, what, head, width, n, rows)
		rows = rows[:0]
		return err
	}
	reactionsHead := "INSERT INTO reactions (" + strings.Join(sqlstore.ReactionColList, ", ") + ")"
	for _, m := range ms {
		for i, r := range m.Reactions {
			rows = append(rows, int64(m.ID), i, r.UserID, r.EmojiName, r.EmojiCode, r.ReactionType)
			if err := flush("create reactions", reactionsHead, reactionCols, false); err != nil {
				return err
			}
		}
	}
	if err := flush("create reactions", reactionsHead, reactionCols, true); err != nil {
		return err
	}
	editCols := len(sqlstore.EditHistoryColList)
	editHead := "INSERT INTO edit_history (" + strings.Join(sqlstore.EditHistoryColList, ", ") + ")"
	for _, m := range ms {
		for i := range m.EditHistory {
			rows = append(rows, dialect.EditHistoryArgs(m.ID, i, &m.EditHistory[i])...)
			if err := flush("create edit history", editHead, editCols, false); err != nil {
				return err
			}
		}
	}
	if err := flush("create edit history", editHead, editCols, true); err != nil {
		return err
	}
	// Submessages (widgets' state) are rare in imports and need their ids
	// back: one statement each, as CreateMessage writes them.
	for _, m := range ms {
		if err := t.CreateSubmessages(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// chunked calls fn for consecutive chunks [lo, lo+n) of total items, of
// bulkRows items but the last.
func chunked(total int, fn func(lo, n int) error) error {
	for lo := 0; lo < total; lo += bulkRows {
		if err := fn(lo, min(bulkRows, total-lo)); err != nil {
			return err
		}
	}
	return nil
}

// bulkKey names a multi-row INSERT: its head, row width and row count.
type bulkKey struct {
	head        string
	width, rows int
}

// execRows runs one multi-row INSERT of n rows of width values (args). A
// full-size statement is prepared once per transaction and reused: an
// import runs thousands of them in one transaction, and the statement
// cache prepares statements only after their transaction has ended. The
// last, shorter statement of a batch is run unprepared, so that no
// statement is prepared per remainder size.
func (t *tx) execRows(ctx context.Context, what, head string, width, n int, args []any) error {
	args = args[:n*width]
	if n < bulkRows {
		_, err := t.execAs(ctx, sqlstore.MultiRowInsert(head, width, n), false, 0, args...)
		return classify(err, what)
	}
	key := bulkKey{head, width, n}
	st := t.bulk[key]
	query := ""
	if st == nil {
		query = sqlstore.MultiRowInsert(head, width, n)
	}
	// prepare notes the tables the statement changes, as every write must.
	ctx, sqlTx, err := t.prepare(ctx, head, 0, args)
	if err != nil {
		return classify(err, what)
	}
	if st == nil {
		if st, err = sqlTx.PrepareContext(ctx, query); err != nil {
			return classify(err, what)
		}
		if t.bulk == nil {
			t.bulk = map[bulkKey]*sql.Stmt{}
		}
		// The statement is closed with the transaction (database/sql
		// closes a transaction's statements when it ends).
		t.bulk[key] = st
	}
	_, err = st.ExecContext(ctx, args...)
	return classify(err, what)
}
