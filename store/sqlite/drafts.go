package sqlite

import (
	"context"
	"database/sql"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

const draftCols = "id, user_id, type, stream_id, topic, to_users, content, last_edit"

// CreateDraft implements [store.DraftStore]. A zero id becomes one above
// every draft id ever used (AUTOINCREMENT).
func (t *tx) CreateDraft(ctx context.Context, d *store.Draft) error {
	if err := t.writable(); err != nil {
		return err
	}
	err := t.queryRow(ctx, "INSERT INTO drafts ("+draftCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
		idArg(d.ID), d.UserID, string(d.Type), idArg(d.StreamID), d.Topic, listArg(d.To), d.Content,
		timeArg(d.LastEdit)).Scan(&d.ID)
	return classify(err, "create draft")
}

// Drafts implements [store.DraftStore].
func (t *tx) Drafts(ctx context.Context, user store.UserID) ([]store.Draft, error) {
	return scanAll(ctx, t, "drafts", func(r *sql.Rows, d *store.Draft) error {
		return r.Scan(&d.ID, &d.UserID, &d.Type, sqlstore.ID(&d.StreamID), &d.Topic,
			listCol[store.UserID]{&d.To}, &d.Content, timeCol{&d.LastEdit})
	}, "SELECT "+draftCols+" FROM drafts WHERE user_id = ? ORDER BY id", user)
}

// DeleteDrafts implements [store.DraftStore].
func (t *tx) DeleteDrafts(ctx context.Context, user store.UserID) (int, error) {
	if err := t.writable(); err != nil {
		return 0, err
	}
	res, err := t.exec(ctx, "DELETE FROM drafts WHERE user_id = ?", user)
	if err != nil {
		return 0, classify(err, "delete drafts")
	}
	n, err := res.RowsAffected()
	return int(n), classify(err, "delete drafts")
}

// DeleteDraftsOf implements [store.DraftStore] with one DELETE statement.
func (t *tx) DeleteDraftsOf(ctx context.Context, users []store.UserID) (int, error) {
	if err := t.writable(); err != nil {
		return 0, err
	}
	if len(users) == 0 {
		return 0, nil
	}
	res, err := t.exec(ctx, "DELETE FROM drafts WHERE user_id IN (SELECT value FROM json_each(?))", idsJSON(users))
	if err != nil {
		return 0, classify(err, "delete drafts")
	}
	n, err := res.RowsAffected()
	return int(n), classify(err, "delete drafts")
}
