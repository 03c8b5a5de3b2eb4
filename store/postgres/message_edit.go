package postgres

import (
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5/pgconn"
)

// EditMessage implements [store.MessageStore] with one UPDATE and one
// INSERT. For a message the transaction has read (see tx.messages), which
// exists until the transaction ends unless a conflict fails it, both are
// held back to go with the transaction's next statement or its COMMIT (see
// holdBack); for any other they run at once, so that a missing message is
// ErrNotFound at once. Nothing an announced read answers comes from
// messages (see writableKeepingAnswers).
func (t *tx) EditMessage(ctx context.Context, m *store.Message, entry store.EditHistoryEntry) error {
	if err := t.writableKeepingAnswers(); err != nil {
		return err
	}
	what := fmt.Sprintf("edit message %d", m.ID)
	m.TopicKey = store.TopicKey(m.Topic)
	update := t.EditMessageArgs(m)
	history := t.HistoryArgs(entry, []store.MessageID{m.ID})
	if slices.Contains(t.messages, m.ID) {
		err := t.holdBack(what, sqlstore.EditMessageSQL, update, func(tag pgconn.CommandTag) error { return mustAffect(tag, nil, what) })
		if err != nil {
			return err
		}
		return t.holdBack(what, t.PrependHistorySQL(), history, nil)
	}
	tag, err := t.exec(ctx, sqlstore.EditMessageSQL, update...)
	if err := mustAffect(tag, err, what); err != nil {
		return err
	}
	_, err = t.exec(ctx, t.PrependHistorySQL(), history...)
	return classify(err, what)
}
