package sqlstore

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// scanDraft scans the draftCols of a row into d.
func (x *Tx) scanDraft(r Row, d *store.Draft) error {
	return r.Scan(Num(&d.ID), Num(&d.UserID), &d.Type, ID(&d.StreamID), &d.Topic,
		x.d.UserListDest(&d.To), &d.Content, Time(&d.LastEdit))
}

// Draft implements [store.DraftEditStore] with one statement.
func (x *Tx) Draft(ctx context.Context, id store.DraftID) (*store.Draft, error) {
	var d store.Draft
	if err := x.scanDraft(x.q.QueryRow(ctx, "SELECT "+draftCols+" FROM drafts WHERE id = $1", id), &d); err != nil {
		return nil, x.classify(err, fmt.Sprintf("draft %d", id))
	}
	return &d, nil
}

// UpdateDraft implements [store.DraftEditStore] with one statement.
func (x *Tx) UpdateDraft(ctx context.Context, d *store.Draft) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, `UPDATE drafts SET type = $2, stream_id = $3, topic = $4, to_users = $5,
		content = $6, last_edit = $7 WHERE id = $1`,
		int64(d.ID), string(d.Type), IDArg(d.StreamID), d.Topic, x.d.UserList(d.To), d.Content, x.d.Time(d.LastEdit))
	return x.mustAffect(n, err, fmt.Sprintf("update draft %d", d.ID))
}

// DeleteDraft implements [store.DraftEditStore] with one statement.
func (x *Tx) DeleteDraft(ctx context.Context, id store.DraftID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "DELETE FROM drafts WHERE id = $1", id)
	return x.mustAffect(n, err, fmt.Sprintf("delete draft %d", id))
}

// RecentDrafts implements [store.DraftEditStore] with one statement over
// the user's drafts (index drafts_user).
func (x *Tx) RecentDrafts(ctx context.Context, user store.UserID, limit int) ([]store.Draft, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("recent drafts: limit %d must be positive", limit)
	}
	return scanAll(ctx, x, "drafts", x.scanDraft,
		"SELECT "+draftCols+" FROM drafts WHERE user_id = $1 ORDER BY last_edit DESC NULLS LAST, id DESC LIMIT $2", user, limit)
}
