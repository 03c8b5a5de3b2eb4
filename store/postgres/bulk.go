package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// CreateMessages implements [store.MessageStore] with one COPY per table
// (messages, reactions, edit history), which PostgreSQL loads several times
// faster than INSERT statements (BenchmarkCreateMessages). COPY cannot
// take an id from the sequence per row, so the ids are given first, as
// CreateMessage's inserts one at a time would give them: each run of zero
// ids takes the sequence's next values in one statement, after the
// sequence has been moved past the explicit ids before it in ms (and past
// all of them at the end), so later ids go above every loaded one.
func (t *tx) CreateMessages(ctx context.Context, ms []*store.Message) error {
	// No announced read answers from messages (see writableKeepingAnswers).
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	if err := t.usable(); err != nil {
		return err
	}
	if len(ms) == 0 {
		return nil
	}
	if err := t.bulkIDs(ctx, ms); err != nil {
		return err
	}
	cols := sqlstore.MessageColList()
	rows := make([][]any, len(ms))
	for i, m := range ms {
		rows[i] = append([]any{int64(m.ID)}, messageArgs(m)...)
		if len(rows[i]) != len(cols) {
			return fmt.Errorf("postgres: create messages: %d values for the %d message columns", len(rows[i]), len(cols))
		}
	}
	if err := t.copyRows(ctx, "create messages", "messages", cols, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, m := range ms {
		for i, r := range m.Reactions {
			rows = append(rows, []any{int64(m.ID), int32(i), int64(r.UserID), r.EmojiName, r.EmojiCode, r.ReactionType})
		}
	}
	if err := t.copyRows(ctx, "create reactions", "reactions", sqlstore.ReactionColList, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, m := range ms {
		for i := range m.EditHistory {
			rows = append(rows, dialect.EditHistoryArgs(m.ID, i, &m.EditHistory[i]))
		}
	}
	if err := t.copyRows(ctx, "create edit history", "edit_history", sqlstore.EditHistoryColList, rows); err != nil {
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

// bulkIDs gives the messages of ms with a zero id theirs (see
// CreateMessages) and sets every TopicKey.
func (t *tx) bulkIDs(ctx context.Context, ms []*store.Message) error {
	var explicit int64 // the highest explicit id the sequence is not past yet
	for i := 0; i < len(ms); {
		m := ms[i]
		m.TopicKey = store.TopicKey(m.Topic)
		if m.ID != 0 {
			explicit = max(explicit, int64(m.ID))
			i++
			continue
		}
		if explicit != 0 {
			if err := t.ensureSeq(ctx, explicit); err != nil {
				return err
			}
			explicit = 0
		}
		j := i
		for j < len(ms) && ms[j].ID == 0 {
			ms[j].TopicKey = store.TopicKey(ms[j].Topic)
			j++
		}
		ids, err := scanAll(ctx, t, "create messages: ids", scanIDRow[store.MessageID],
			"SELECT nextval('"+idSequence("messages")+"') FROM generate_series(1, $1)", j-i)
		if err != nil {
			return err
		}
		if len(ids) != j-i {
			return fmt.Errorf("postgres: create messages: %d ids for %d messages", len(ids), j-i)
		}
		slices.Sort(ids)
		for k, id := range ids {
			ms[i+k].ID = id
		}
		i = j
	}
	if explicit != 0 {
		return t.ensureSeq(ctx, explicit)
	}
	return nil
}

// ensureSeq moves the messages' id sequence past id (see ensureSeqSQL).
func (t *tx) ensureSeq(ctx context.Context, id int64) error {
	_, err := t.exec(ctx, ensureSeqSQL, "messages", id)
	return classify(err, "create messages: id sequence")
}

// copyRows loads rows into table's columns cols with one COPY; no rows is
// no statement.
func (t *tx) copyRows(ctx context.Context, what, table string, cols []string, rows [][]any) error {
	if len(rows) == 0 {
		return nil
	}
	if err := t.usable(); err != nil {
		return err
	}
	_, err := t.tx.copyFrom(ctx, table, cols, pgx.CopyFromRows(rows))
	return classify(t.check(err), what)
}

// copyFrom runs a COPY ... FROM STDIN into table in the transaction. COPY
// cannot travel in a batch, so the begin statements and the queued ones are
// sent first, with an empty statement in their batch.
func (l *lazyTx) copyFrom(ctx context.Context, table string, cols []string, src pgx.CopyFromSource) (int64, error) {
	ctx, err := l.stmtContext(ctx)
	if err != nil {
		return 0, err
	}
	if l.single {
		return 0, errSecondStatement
	}
	if !l.begun || len(l.ahead) > 0 {
		br, err := l.batch(ctx, "SELECT 1", nil)
		if err != nil {
			return 0, err
		}
		if _, err := br.Exec(); err != nil {
			return 0, closeBatch(br, err)
		}
		if err := br.Close(); err != nil {
			return 0, err
		}
	}
	return l.conn.CopyFrom(ctx, pgx.Identifier{table}, cols, src)
}
