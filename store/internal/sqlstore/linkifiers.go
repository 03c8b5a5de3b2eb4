package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

const linkifierCols = "id, realm_id, pattern, url_template, ord"

func scanLinkifier(r Row, l *store.Linkifier) error {
	return r.Scan(Num(&l.ID), Num(&l.RealmID), &l.Pattern, &l.URLTemplate, Num(&l.Order))
}

// Linkifier implements [store.LinkifierStore].
func (x *Tx) Linkifier(ctx context.Context, id store.LinkifierID) (*store.Linkifier, error) {
	var l store.Linkifier
	if err := scanLinkifier(x.q.QueryRow(ctx, "SELECT "+linkifierCols+" FROM linkifiers WHERE id = $1", id), &l); err != nil {
		return nil, x.classify(err, fmt.Sprintf("linkifier %d", id))
	}
	return &l, nil
}

// Linkifiers implements [store.LinkifierStore].
func (x *Tx) Linkifiers(ctx context.Context, realm store.RealmID) ([]store.Linkifier, error) {
	return scanAll(ctx, x, "linkifiers", scanLinkifier,
		"SELECT "+linkifierCols+" FROM linkifiers WHERE realm_id = $1 ORDER BY ord, id", realm)
}

// CreateLinkifier implements [store.LinkifierStore]. A zero id becomes one
// above every linkifier id ever used, in any realm.
func (x *Tx) CreateLinkifier(ctx context.Context, l *store.Linkifier) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "linkifiers", "create linkifier",
		"INSERT INTO linkifiers ("+linkifierCols+") VALUES ("+x.d.IDValue("linkifiers")+", $2, $3, $4, $5) RETURNING id",
		int64(l.ID), l.RealmID, l.Pattern, l.URLTemplate, int64(l.Order))
	if err != nil {
		return err
	}
	l.ID = store.LinkifierID(id)
	return nil
}

// UpdateLinkifier implements [store.LinkifierStore]. A pattern already used
// by another linkifier of the realm gives ErrConflict.
func (x *Tx) UpdateLinkifier(ctx context.Context, l *store.Linkifier) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "UPDATE linkifiers SET realm_id = $1, pattern = $2, url_template = $3, ord = $4 WHERE id = $5",
		l.RealmID, l.Pattern, l.URLTemplate, int64(l.Order), l.ID)
	return x.mustAffect(n, err, fmt.Sprintf("update linkifier %d", l.ID))
}

// DeleteLinkifier implements [store.LinkifierStore].
func (x *Tx) DeleteLinkifier(ctx context.Context, id store.LinkifierID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "DELETE FROM linkifiers WHERE id = $1", id)
	return x.mustAffect(n, err, fmt.Sprintf("delete linkifier %d", id))
}

// LinkifiersVersion implements [store.LinkifierStore] with one statement:
// 0 for a realm whose linkifiers were never written. The schema's
// triggers raise the version on every insert, update and delete of a
// linkifiers row, in the writing statement's transaction.
func (x *Tx) LinkifiersVersion(ctx context.Context, realm store.RealmID) (int64, error) {
	var v int64
	err := x.q.QueryRow(ctx, "SELECT version FROM linkifier_versions WHERE realm_id = $1", realm).Scan(&v)
	if errors.Is(err, x.d.NoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, x.classify(err, fmt.Sprintf("linkifiers version of realm %d", realm))
	}
	return v, nil
}
