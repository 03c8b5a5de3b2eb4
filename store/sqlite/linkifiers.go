package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

const linkifierCols = "id, realm_id, pattern, url_template, ord"

func scanLinkifier(r interface{ Scan(...any) error }, l *store.Linkifier) error {
	return r.Scan(&l.ID, &l.RealmID, &l.Pattern, &l.URLTemplate, &l.Order)
}

// Linkifier implements [store.LinkifierStore].
func (t *tx) Linkifier(ctx context.Context, id store.LinkifierID) (*store.Linkifier, error) {
	var l store.Linkifier
	if err := scanLinkifier(t.queryRow(ctx, "SELECT "+linkifierCols+" FROM linkifiers WHERE id = ?", id), &l); err != nil {
		return nil, classify(err, fmt.Sprintf("linkifier %d", id))
	}
	return &l, nil
}

// Linkifiers implements [store.LinkifierStore].
func (t *tx) Linkifiers(ctx context.Context, realm store.RealmID) ([]store.Linkifier, error) {
	return scanAll(ctx, t, "linkifiers", func(r *sql.Rows, l *store.Linkifier) error { return scanLinkifier(r, l) },
		"SELECT "+linkifierCols+" FROM linkifiers WHERE realm_id = ? ORDER BY ord, id", realm)
}

// CreateLinkifier implements [store.LinkifierStore]. A zero id becomes one
// above every linkifier id ever used, in any realm (AUTOINCREMENT).
func (t *tx) CreateLinkifier(ctx context.Context, l *store.Linkifier) error {
	if err := t.writable(); err != nil {
		return err
	}
	err := t.queryRow(ctx, "INSERT INTO linkifiers ("+linkifierCols+") VALUES (?, ?, ?, ?, ?) RETURNING id",
		idArg(l.ID), l.RealmID, l.Pattern, l.URLTemplate, int64(l.Order)).Scan(&l.ID)
	return classify(err, "create linkifier")
}

// UpdateLinkifier implements [store.LinkifierStore]. A pattern already used
// by another linkifier of the realm gives ErrConflict.
func (t *tx) UpdateLinkifier(ctx context.Context, l *store.Linkifier) error {
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

// DeleteLinkifier implements [store.LinkifierStore].
func (t *tx) DeleteLinkifier(ctx context.Context, id store.LinkifierID) error {
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

// LinkifiersVersion implements [store.LinkifierStore]. The triggers of
// migration 0004 raise the version on every insert, update and delete of a
// linkifiers row, in the writing statement's transaction.
func (t *tx) LinkifiersVersion(ctx context.Context, realm store.RealmID) (int64, error) {
	if v, ok := lookup(t, linkifiersTable, linkifiersMap, realm); ok {
		return v, nil
	}
	var v int64
	err := t.queryRow(ctx, "SELECT version FROM linkifier_versions WHERE realm_id = ?", realm).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
	if err != nil {
		return 0, classify(err, fmt.Sprintf("linkifiers version of realm %d", realm))
	}
	remember(t, linkifiersTable, linkifiersMap, realm, v)
	return v, nil
}
