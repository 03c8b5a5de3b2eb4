package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

// UpdateUserSettings implements [store.SettingsStore] with one UPDATE of
// the named columns only. A single setting's statement has one text per
// column, so it is prepared once and cached; a statement for several settings
// is run unprepared, so that arbitrary combinations of settings cannot fill
// the bounded statement cache.
func (t *tx) UpdateUserSettings(ctx context.Context, user store.UserID, changes []store.SettingValue) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	values, err := sqlstore.SettingValues(changes, sqlstore.SettingColumns)
	if err != nil {
		return fmt.Errorf("sqlite: update user settings: %w", err)
	}
	args := make([]any, 0, len(changes)+1)
	var set strings.Builder
	set.WriteString("UPDATE users SET ")
	for i, ch := range changes {
		col, v := sqlstore.SettingColumns[ch.Name], values[i]
		args = append(args, sqlstore.SettingArg(v))
		if i > 0 {
			set.WriteString(", ")
		}
		set.WriteString(col)
		set.WriteString(" = ?")
	}
	set.WriteString(" WHERE id = ?")
	args = append(args, user)
	what := fmt.Sprintf("update settings of user %d", user)
	res, err := t.execUserRow(ctx, user, len(changes) == 1, set.String(), args...)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

// bulkSettingSQL is the one statement of UpdateSettingBulk; %s is the quoted
// setting column, taken only from sqlstore.SettingColumns. Parameters: 1 realm, 2 user
// ids (JSON), 3 group ids (JSON), 4 value, 5 skip-if-edited, 6 setting name.
//
// The recursive CTE expands the groups of the realm through their subgroups
// (UNION ends cycles); targets are the explicit ids plus the groups' active
// members (CROSS JOIN keeps the groups as the outer loop, so members are
// reached by the group_members primary key instead of a scan). Bots, other realms and users already holding the value are left
// out, and with skip-if-edited so are users with a row in user_setting_edits.
const bulkSettingSQL = `WITH RECURSIVE
	grp(id) AS (
		SELECT g.id FROM user_groups g WHERE g.id IN (SELECT value FROM json_each(?3)) AND g.realm_id = ?1
		UNION
		SELECT s.subgroup_id FROM group_subgroups s JOIN grp ON s.group_id = grp.id
	),
	target(id) AS (
		SELECT value FROM json_each(?2)
		UNION
		SELECT m.user_id FROM grp CROSS JOIN group_members m ON m.group_id = grp.id
			CROSS JOIN users gu ON gu.id = m.user_id AND gu.is_active = 1
	)
UPDATE users SET %[1]s = ?4
WHERE id IN (SELECT id FROM target)
	AND realm_id = ?1 AND is_bot = 0 AND %[1]s IS NOT ?4
	AND NOT (?5 AND EXISTS (SELECT 1 FROM user_setting_edits e WHERE e.user_id = users.id AND e.setting = ?6))
RETURNING id`

// fmtBulk returns bulkSettingSQL for the quoted column col.
func fmtBulk(col string) string { return fmt.Sprintf(bulkSettingSQL, col) }

// UpdateSettingBulk implements [store.SettingsStore] with one UPDATE
// statement. An unknown setting name, or a value of the wrong type, is an
// error.
func (t *tx) UpdateSettingBulk(ctx context.Context, u store.BulkSettingUpdate) ([]store.UserID, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	col, ok := sqlstore.SettingColumns[u.Setting]
	if !ok {
		return nil, fmt.Errorf("sqlite: bulk setting update: unknown setting %q", u.Setting)
	}
	var probe store.Settings
	if err := probe.Set(u.Setting, u.Value); err != nil {
		return nil, fmt.Errorf("sqlite: bulk setting update: %w", err)
	}
	v, _ := probe.Value(u.Setting) // the value converted to the setting's type
	ids, err := scanIDs[store.UserID](ctx, t, "bulk setting update", fmtBulk(col),
		u.RealmID, idsJSON(u.UserIDs), idsJSON(u.GroupIDs), sqlstore.SettingArg(v), u.SkipIfEdited, u.Setting)
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	return ids, nil
}

// RecordSettingEdits implements [store.SettingsStore] in one statement
// (json_each only for several settings). An unknown user gives ErrNotFound.
func (t *tx) RecordSettingEdits(ctx context.Context, user store.UserID, settings []string) error {
	if err := t.writable(); err != nil {
		return err
	}
	var err error
	switch len(settings) {
	case 0:
		return nil
	case 1: // the usual request: one row, without json_each
		_, err = t.exec(ctx, `INSERT INTO user_setting_edits (user_id, setting) VALUES (?, ?) ON CONFLICT DO NOTHING`,
			user, settings[0])
	default:
		var list []byte
		if list, err = json.Marshal(settings); err != nil {
			return err
		}
		_, err = t.exec(ctx, `INSERT INTO user_setting_edits (user_id, setting)
		SELECT ?, value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
			user, string(list))
	}
	if err != nil {
		return classify(err, fmt.Sprintf("record setting edits of user %d", user))
	}
	return nil
}

// EditedSettings implements [store.SettingsStore].
func (t *tx) EditedSettings(ctx context.Context, user store.UserID) ([]string, error) {
	return scanAll(ctx, t, "edited settings", func(r *sql.Rows, s *string) error { return r.Scan(s) },
		"SELECT setting FROM user_setting_edits WHERE user_id = ? ORDER BY setting", user)
}
