package postgres

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// UpdateUserSettings implements [store.SettingsStore] with one UPDATE of
// the named columns only, so concurrent changes of other settings of the
// same user are never overwritten. The UPDATE of a user the transaction
// read, which exists, is held back to go with the next statement or the
// COMMIT (see holdBack); an unknown user's goes at once, for its
// ErrNotFound.
func (t *tx) UpdateUserSettings(ctx context.Context, user store.UserID, changes []store.SettingValue) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	values, err := sqlstore.SettingValues(changes, sqlstore.SettingColumns)
	if err != nil {
		return fmt.Errorf("postgres: update user settings: %w", err)
	}
	args := make([]any, 0, len(changes)+1)
	var set strings.Builder
	set.WriteString("UPDATE users SET ")
	for i, ch := range changes {
		col, v := sqlstore.SettingColumns[ch.Name], values[i]
		args = append(args, v)
		if i > 0 {
			set.WriteString(", ")
		}
		set.WriteString(col)
		set.WriteString(" = $")
		set.WriteString(strconv.Itoa(i + 1))
	}
	args = append(args, user)
	set.WriteString(" WHERE id = $" + strconv.Itoa(len(args)))
	what := fmt.Sprintf("update settings of user %d", user)
	if slices.Contains(t.users, user) {
		return t.holdBack(what, set.String(), args, func(tag pgconn.CommandTag) error { return mustAffect(tag, nil, what) })
	}
	tag, err := t.exec(ctx, set.String(), args...)
	return mustAffect(tag, err, what)
}

// bulkSettingSQL is the one statement of UpdateSettingBulk; %[1]s is the
// quoted setting column, taken only from sqlstore.SettingColumns, %[2]s its SQL type.
// Parameters: 1 realm, 2 user ids, 3 group ids, 4 value, 5 skip-if-edited,
// 6 setting name.
//
// The recursive CTE expands the realm's groups through their subgroups
// (UNION ends cycles); targets are the explicit ids plus the groups' active
// members. Bots, other realms and users already holding the value are left
// out, and with skip-if-edited so are users with a row in
// user_setting_edits.
const bulkSettingSQL = `WITH RECURSIVE
	grp(id) AS (
		SELECT g.id FROM user_groups g WHERE g.id = ANY($3::bigint[]) AND g.realm_id = $1
		UNION
		SELECT s.subgroup_id FROM group_subgroups s JOIN grp ON s.group_id = grp.id
	),
	target(id) AS (
		SELECT unnest($2::bigint[])
		UNION
		SELECT m.user_id FROM grp JOIN group_members m ON m.group_id = grp.id
			JOIN users gu ON gu.id = m.user_id AND gu.is_active
	)
UPDATE users SET %[1]s = $4::%[2]s
WHERE id IN (SELECT id FROM target)
	AND realm_id = $1 AND NOT is_bot AND %[1]s IS DISTINCT FROM $4::%[2]s
	AND NOT ($5::boolean AND EXISTS (SELECT 1 FROM user_setting_edits e WHERE e.user_id = users.id AND e.setting = $6))
RETURNING id`

// UpdateSettingBulk implements [store.SettingsStore] with one UPDATE
// statement. An unknown setting name, or a value of the wrong type, is an
// error.
func (t *tx) UpdateSettingBulk(ctx context.Context, u store.BulkSettingUpdate) ([]store.UserID, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	col, ok := sqlstore.SettingColumns[u.Setting]
	if !ok {
		return nil, fmt.Errorf("postgres: bulk setting update: unknown setting %q", u.Setting)
	}
	var probe store.Settings
	if err := probe.Set(u.Setting, u.Value); err != nil {
		return nil, fmt.Errorf("postgres: bulk setting update: %w", err)
	}
	v, _ := probe.Value(u.Setting) // the value converted to the setting's type
	typ := "text"
	switch v.(type) {
	case bool:
		typ = "boolean"
	case int:
		typ = "integer"
	}
	out, err := scanIDs[store.UserID](ctx, t, "bulk setting update", fmt.Sprintf(bulkSettingSQL, col, typ),
		u.RealmID, u.UserIDs, u.GroupIDs, v, u.SkipIfEdited, u.Setting)
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// RecordSettingEdits implements [store.SettingsStore] in one statement,
// held back for a user the transaction read (see UpdateUserSettings). An
// unknown user gives ErrNotFound.
func (t *tx) RecordSettingEdits(ctx context.Context, user store.UserID, settings []string) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(settings) == 0 {
		return nil
	}
	const query = `INSERT INTO user_setting_edits (user_id, setting)
		SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`
	what := fmt.Sprintf("record setting edits of user %d", user)
	if slices.Contains(t.users, user) {
		return t.holdBack(what, query, []any{user, settings}, nil)
	}
	_, err := t.exec(ctx, query, user, settings)
	return classify(err, what)
}

// EditedSettings implements [store.SettingsStore].
func (t *tx) EditedSettings(ctx context.Context, user store.UserID) ([]string, error) {
	return scanAll(ctx, t, "edited settings", func(r pgx.Rows, s *string) error { return r.Scan(s) },
		"SELECT setting FROM user_setting_edits WHERE user_id = $1 ORDER BY setting COLLATE \"C\"", user)
}
