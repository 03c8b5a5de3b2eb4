package postgres

import (
	"context"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

const draftCols = "id, user_id, type, stream_id, topic, to_users, content, last_edit"

// CreateDraft implements [store.DraftStore]. A zero id becomes one above
// every draft id ever used.
func (t *tx) CreateDraft(ctx context.Context, d *store.Draft) error {
	if err := t.writable(); err != nil {
		return err
	}
	id, err := t.InsertWithID(ctx, "drafts", "create draft",
		"INSERT INTO drafts ("+draftCols+") VALUES ("+idValue("drafts")+", $2, $3, $4, $5, $6, $7, $8) RETURNING id",
		int64(d.ID), d.UserID, string(d.Type), idArg(d.StreamID), d.Topic, d.To, d.Content, timeArg(d.LastEdit))
	if err != nil {
		return err
	}
	d.ID = store.DraftID(id)
	return nil
}

// Drafts implements [store.DraftStore].
func (t *tx) Drafts(ctx context.Context, user store.UserID) ([]store.Draft, error) {
	return scanAll(ctx, t, "drafts", func(r pgx.Rows, d *store.Draft) error {
		return r.Scan(&d.ID, &d.UserID, &d.Type, sqlstore.ID(&d.StreamID), &d.Topic,
			&d.To, &d.Content, timeCol{&d.LastEdit})
	}, "SELECT "+draftCols+" FROM drafts WHERE user_id = $1 ORDER BY id", user)
}

// DeleteDrafts implements [store.DraftStore].
func (t *tx) DeleteDrafts(ctx context.Context, user store.UserID) (int, error) {
	if err := t.writable(); err != nil {
		return 0, err
	}
	tag, err := t.exec(ctx, "DELETE FROM drafts WHERE user_id = $1", user)
	if err != nil {
		return 0, classify(err, "delete drafts")
	}
	return int(tag.RowsAffected()), nil
}

// DeleteDraftsOf implements [store.DraftStore] with one DELETE statement.
func (t *tx) DeleteDraftsOf(ctx context.Context, users []store.UserID) (int, error) {
	if err := t.writable(); err != nil {
		return 0, err
	}
	if len(users) == 0 {
		return 0, nil
	}
	tag, err := t.exec(ctx, "DELETE FROM drafts WHERE user_id = ANY($1)", users)
	if err != nil {
		return 0, classify(err, "delete drafts")
	}
	return int(tag.RowsAffected()), nil
}
