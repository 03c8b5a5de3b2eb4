package postgres

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5/pgconn"
)

// UpdateUserSettings implements [store.SettingsStore] with one UPDATE of
// the named columns only (see sqlstore.Tx.SettingsUpdate). The UPDATE of a
// user the transaction read, which exists, is held back to go with the next
// statement or the COMMIT (see holdBack); an unknown user's goes at once,
// for its ErrNotFound.
func (t *tx) UpdateUserSettings(ctx context.Context, user store.UserID, changes []store.SettingValue) error {
	if len(changes) == 0 || !slices.Contains(t.users, user) {
		return t.Tx.UpdateUserSettings(ctx, user, changes)
	}
	if err := t.writable(); err != nil {
		return err
	}
	query, args, err := t.SettingsUpdate(user, changes)
	if err != nil {
		return err
	}
	what := sqlstore.SettingsUpdateWhat(user)
	return t.holdBack(what, query, args, func(tag pgconn.CommandTag) error { return mustAffect(tag, nil, what) })
}

// RecordSettingEdits implements [store.SettingsStore] in one statement,
// held back for a user the transaction read (see UpdateUserSettings). An
// unknown user gives ErrNotFound.
func (t *tx) RecordSettingEdits(ctx context.Context, user store.UserID, settings []string) error {
	if len(settings) == 0 || !slices.Contains(t.users, user) {
		return t.Tx.RecordSettingEdits(ctx, user, settings)
	}
	if err := t.writable(); err != nil {
		return err
	}
	query, args := t.SettingEditsInsert(user, settings)
	return t.holdBack(sqlstore.SettingEditsWhat(user), query, args, nil)
}
