package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/chatcore/chatcore"
)

const linkifierCols = "id, realm_id, pattern, url_template, ord"

func scanLinkifier(r interface{ Scan(...any) error }, l *chatcore.Linkifier) error {
	return r.Scan(&l.ID, &l.RealmID, &l.Pattern, &l.URLTemplate, &l.Order)
}

// Linkifier implements [chatcore.LinkifierStore].
func (t *tx) Linkifier(ctx context.Context, id chatcore.LinkifierID) (*chatcore.Linkifier, error) {
	var l chatcore.Linkifier
	if err := scanLinkifier(t.queryRow(ctx, "SELECT "+linkifierCols+" FROM linkifiers WHERE id = ?", id), &l); err != nil {
		return nil, classify(err, fmt.Sprintf("linkifier %d", id))
	}
	return &l, nil
}

// Linkifiers implements [chatcore.LinkifierStore].
func (t *tx) Linkifiers(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Linkifier, error) {
	return scanAll(ctx, t, "linkifiers", func(r *sql.Rows, l *chatcore.Linkifier) error { return scanLinkifier(r, l) },
		"SELECT "+linkifierCols+" FROM linkifiers WHERE realm_id = ? ORDER BY ord, id", realm)
}

// CreateLinkifier implements [chatcore.LinkifierStore].
func (t *tx) CreateLinkifier(ctx context.Context, l *chatcore.Linkifier) error {
	if err := t.writable(); err != nil {
		return err
	}
	err := t.queryRow(ctx, "INSERT INTO linkifiers ("+linkifierCols+") VALUES (?, ?, ?, ?, ?) RETURNING id",
		idArg(l.ID), l.RealmID, l.Pattern, l.URLTemplate, int64(l.Order)).Scan(&l.ID)
	return classify(err, "create linkifier")
}

// UpdateLinkifier implements [chatcore.LinkifierStore]. A pattern already used
// by another linkifier of the realm gives ErrConflict.
func (t *tx) UpdateLinkifier(ctx context.Context, l *chatcore.Linkifier) error {
	if err := t.writable(); err != nil {
		return err
	}
	what := fmt.Sprintf("update linkifier %d", l.ID)
	res, err := t.exec(ctx, "UPDATE linkifiers SET realm_id = ?, pattern = ?, url_template = ?, ord = ? WHERE id = ?",
		l.RealmID, l.Pattern, l.URLTemplate, int64(l.Order), l.ID)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

// DeleteLinkifier implements [chatcore.LinkifierStore].
func (t *tx) DeleteLinkifier(ctx context.Context, id chatcore.LinkifierID) error {
	if err := t.writable(); err != nil {
		return err
	}
	what := fmt.Sprintf("delete linkifier %d", id)
	res, err := t.exec(ctx, "DELETE FROM linkifiers WHERE id = ?", id)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

const draftCols = "id, user_id, type, stream_id, topic, to_users, content, last_edit"

// CreateDraft implements [chatcore.DraftStore].
func (t *tx) CreateDraft(ctx context.Context, d *chatcore.Draft) error {
	if err := t.writable(); err != nil {
		return err
	}
	err := t.queryRow(ctx, "INSERT INTO drafts ("+draftCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
		idArg(d.ID), d.UserID, string(d.Type), idArg(d.StreamID), d.Topic, listArg(d.To), d.Content,
		timeArg(d.LastEdit)).Scan(&d.ID)
	return classify(err, "create draft")
}

// Drafts implements [chatcore.DraftStore].
func (t *tx) Drafts(ctx context.Context, user chatcore.UserID) ([]chatcore.Draft, error) {
	return scanAll(ctx, t, "drafts", func(r *sql.Rows, d *chatcore.Draft) error {
		return r.Scan(&d.ID, &d.UserID, &d.Type, idCol[chatcore.StreamID]{&d.StreamID}, &d.Topic,
			listCol[chatcore.UserID]{&d.To}, &d.Content, timeCol{&d.LastEdit})
	}, "SELECT "+draftCols+" FROM drafts WHERE user_id = ? ORDER BY id", user)
}

// DeleteDrafts implements [chatcore.DraftStore].
func (t *tx) DeleteDrafts(ctx context.Context, user chatcore.UserID) (int, error) {
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

// DeleteDraftsOf implements [chatcore.DraftStore] with one DELETE statement.
func (t *tx) DeleteDraftsOf(ctx context.Context, users []chatcore.UserID) (int, error) {
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

const emailChangeCols = "key, user_id, realm_id, old_email, new_email, created_at"

// CreateEmailChange implements [chatcore.EmailChangeStore].
func (t *tx) CreateEmailChange(ctx context.Context, c *chatcore.EmailChange) error {
	if err := t.writable(); err != nil {
		return err
	}
	_, err := t.exec(ctx, "INSERT INTO email_changes ("+emailChangeCols+") VALUES (?, ?, ?, ?, ?, ?)",
		c.Key, c.UserID, c.RealmID, c.OldEmail, c.NewEmail, timeArg(c.CreatedAt))
	return classify(err, "create email change")
}

// EmailChange implements [chatcore.EmailChangeStore].
func (t *tx) EmailChange(ctx context.Context, key string) (*chatcore.EmailChange, error) {
	var c chatcore.EmailChange
	err := t.queryRow(ctx, "SELECT "+emailChangeCols+" FROM email_changes WHERE key = ?", key).
		Scan(&c.Key, &c.UserID, &c.RealmID, &c.OldEmail, &c.NewEmail, timeCol{&c.CreatedAt})
	if err != nil {
		return nil, classify(err, "email change")
	}
	return &c, nil
}

// DeleteEmailChanges implements [chatcore.EmailChangeStore].
func (t *tx) DeleteEmailChanges(ctx context.Context, user chatcore.UserID) error {
	if err := t.writable(); err != nil {
		return err
	}
	_, err := t.exec(ctx, "DELETE FROM email_changes WHERE user_id = ?", user)
	return classify(err, "delete email changes")
}
