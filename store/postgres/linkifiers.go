package postgres

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// The linkifier writes forget the versions Realm read along (see
// tx.linkifierVersions): the trigger of the linkifiers table raises a
// realm's version in the writing statement's transaction.

// CreateLinkifier implements [store.LinkifierStore].
func (t *tx) CreateLinkifier(ctx context.Context, l *store.Linkifier) error {
	if err := t.writable(); err != nil {
		return err
	}
	clear(t.linkifierVersions)
	return t.Tx.CreateLinkifier(ctx, l)
}

// UpdateLinkifier implements [store.LinkifierStore].
func (t *tx) UpdateLinkifier(ctx context.Context, l *store.Linkifier) error {
	if err := t.writable(); err != nil {
		return err
	}
	clear(t.linkifierVersions)
	return t.Tx.UpdateLinkifier(ctx, l)
}

// DeleteLinkifier implements [store.LinkifierStore].
func (t *tx) DeleteLinkifier(ctx context.Context, id store.LinkifierID) error {
	if err := t.writable(); err != nil {
		return err
	}
	clear(t.linkifierVersions)
	return t.Tx.DeleteLinkifier(ctx, id)
}

// LinkifiersVersion implements [store.LinkifierStore]. A version Realm
// read along in this transaction, with no linkifier written since, is the
// answer without a statement.
func (t *tx) LinkifiersVersion(ctx context.Context, realm store.RealmID) (int64, error) {
	if v, ok := t.linkifierVersions[realm]; ok {
		return v, nil
	}
	return t.Tx.LinkifiersVersion(ctx, realm)
}
