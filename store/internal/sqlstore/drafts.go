package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

const draftCols = "id, user_id, type, stream_id, topic, to_users, content, last_edit"

// CreateDraft implements [store.DraftStore]. A zero id becomes one above
// every draft id ever used (AUTOINCREMENT on SQLite, the identity sequence
// on PostgreSQL).
func (x *Tx) CreateDraft(ctx context.Context, d *store.Draft) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "drafts", "create draft",
		"INSERT INTO drafts ("+draftCols+") VALUES ("+x.d.IDValue("drafts")+", $2, $3, $4, $5, $6, $7, $8) RETURNING id",
		int64(d.ID), int64(d.UserID), string(d.Type), IDArg(d.StreamID), d.Topic, x.d.UserList(d.To), d.Content,
		x.d.Time(d.LastEdit))
	if err != nil {
		return err
	}
	d.ID = store.DraftID(id)
	return nil
}

// Drafts implements [store.DraftStore].
func (x *Tx) Drafts(ctx context.Context, user store.UserID) ([]store.Draft, error) {
	return scanAll(ctx, x, "drafts", x.scanDraft, "SELECT "+draftCols+" FROM drafts WHERE user_id = $1 ORDER BY id", user)
}

// DeleteDrafts implements [store.DraftStore].
func (x *Tx) DeleteDrafts(ctx context.Context, user store.UserID) (int, error) {
	if err := x.q.Writable(); err != nil {
		return 0, err
	}
	n, err := x.q.Exec(ctx, "DELETE FROM drafts WHERE user_id = $1", user)
	return int(n), x.classify(err, "delete drafts")
}

// DeleteDraftsOf implements [store.DraftStore] with one DELETE statement.
func (x *Tx) DeleteDraftsOf(ctx context.Context, users []store.UserID) (int, error) {
	if err := x.q.Writable(); err != nil {
		return 0, err
	}
	if len(users) == 0 {
		return 0, nil
	}
	n, err := x.q.Exec(ctx, "DELETE FROM drafts WHERE "+x.d.In("user_id", "$1", "bigint"), List(x.d, users))
	return int(n), x.classify(err, "delete drafts")
}
