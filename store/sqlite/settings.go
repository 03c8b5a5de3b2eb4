package sqlite

import (
	"context"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

// UpdateUserSettings implements [store.SettingsStore] with one UPDATE of
// the named columns only (see sqlstore.Tx.SettingsUpdate), which writes
// user's row alone, so the row cache forgets only user's entries (see
// execUserRow). A single setting's statement has one text per column, so
// it is prepared once and cached; a statement for several settings is run
// unprepared, so that arbitrary combinations of settings cannot fill the
// bounded statement cache.
func (t *tx) UpdateUserSettings(ctx context.Context, user store.UserID, changes []store.SettingValue) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	query, args, err := t.SettingsUpdate(user, changes)
	if err != nil {
		return err
	}
	what := sqlstore.SettingsUpdateWhat(user)
	res, err := t.execUserRow(ctx, user, len(changes) == 1, query, args...)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}
