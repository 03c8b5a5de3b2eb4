package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
)

const linkifierCols = "id, realm_id, pattern, url_template, ord"

func scanLinkifier(r interface{ Scan(...any) error }, l *store.Linkifier) error {
	return r.Scan(&l.ID, &l.RealmID, &l.Pattern, &l.URLTemplate, &l.Order)
}

// Linkifier implements [store.LinkifierStore].
func (t *tx) Linkifier(ctx context.Context, id store.LinkifierID) (*store.Linkifier, error) {
	var l store.Linkifier
	if err := scanLinkifier(t.queryRow(ctx, "SELECT "+linkifierCols+" FROM linkifiers WHERE id = $1", id), &l); err != nil {
		return nil, classify(err, fmt.Sprintf("linkifier %d", id))
	}
	return &l, nil
}

// Linkifiers implements [store.LinkifierStore].
func (t *tx) Linkifiers(ctx context.Context, realm store.RealmID) ([]store.Linkifier, error) {
	return scanAll(ctx, t, "linkifiers", func(r pgx.Rows, l *store.Linkifier) error { return scanLinkifier(r, l) },
		"SELECT "+linkifierCols+" FROM linkifiers WHERE realm_id = $1 ORDER BY ord, id", realm)
}

// CreateLinkifier implements [store.LinkifierStore]. A zero id becomes one
// above every linkifier id ever used, in any realm.
func (t *tx) CreateLinkifier(ctx context.Context, l *store.Linkifier) error {
	if err := t.writable(); err != nil {
		return err
	}
	clear(t.linkifierVersions) // the trigger raises a realm's version
	id, err := t.InsertWithID(ctx, "linkifiers", "create linkifier",
		"INSERT INTO linkifiers ("+linkifierCols+") VALUES ("+idValue("linkifiers")+", $2, $3, $4, $5) RETURNING id",
		int64(l.ID), l.RealmID, l.Pattern, l.URLTemplate, l.Order)
	if err != nil {
		return err
	}
	l.ID = store.LinkifierID(id)
	return nil
}

// UpdateLinkifier implements [store.LinkifierStore].
func (t *tx) UpdateLinkifier(ctx context.Context, l *store.Linkifier) error {
	if err := t.writable(); err != nil {
		return err
	}
	clear(t.linkifierVersions) // the trigger raises a realm's version
	tag, err := t.exec(ctx, "UPDATE linkifiers SET realm_id = $1, pattern = $2, url_template = $3, ord = $4 WHERE id = $5",
		l.RealmID, l.Pattern, l.URLTemplate, l.Order, l.ID)
	return mustAffect(tag, err, fmt.Sprintf("update linkifier %d", l.ID))
}

// DeleteLinkifier implements [store.LinkifierStore].
func (t *tx) DeleteLinkifier(ctx context.Context, id store.LinkifierID) error {
	if err := t.writable(); err != nil {
		return err
	}
	clear(t.linkifierVersions) // the trigger raises a realm's version
	tag, err := t.exec(ctx, "DELETE FROM linkifiers WHERE id = $1", id)
	return mustAffect(tag, err, fmt.Sprintf("delete linkifier %d", id))
}

// LinkifiersVersion implements [store.LinkifierStore]. The trigger of the
// linkifiers table raises the version on every insert, update and delete,
// in the writing statement's transaction. A version Realm read along in
// this transaction, with no linkifier written since, is the answer without
// a statement.
func (t *tx) LinkifiersVersion(ctx context.Context, realm store.RealmID) (int64, error) {
	if v, ok := t.linkifierVersions[realm]; ok {
		return v, nil
	}
	var v int64
	err := t.queryRow(ctx, "SELECT version FROM linkifier_versions WHERE realm_id = $1", realm).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, classify(err, fmt.Sprintf("linkifiers version of realm %d", realm))
	}
	return v, nil
}
