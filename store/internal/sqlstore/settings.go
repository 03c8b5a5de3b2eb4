package sqlstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// UpdateUserSettings implements [store.SettingsStore] with one UPDATE of
// the named columns only (see SettingsUpdate), run at once.
func (x *Tx) UpdateUserSettings(ctx context.Context, user store.UserID, changes []store.SettingValue) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	query, args, err := x.SettingsUpdate(user, changes)
	if err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, query, args...)
	return x.mustAffect(n, err, SettingsUpdateWhat(user))
}

// SettingsUpdate returns the UPDATE of UpdateUserSettings and its
// arguments: it sets the named columns only, so concurrent changes of other
// settings of the same user are never overwritten, and writes user's row
// alone. changes is not empty.
func (x *Tx) SettingsUpdate(user store.UserID, changes []store.SettingValue) (string, []any, error) {
	values, err := SettingValues(changes, SettingColumns)
	if err != nil {
		return "", nil, fmt.Errorf("%s: update user settings: %w", x.d.Name, err)
	}
	args := make([]any, 0, len(changes)+1)
	var set strings.Builder
	set.WriteString("UPDATE users SET ")
	for i, ch := range changes {
		args = append(args, SettingArg(values[i]))
		if i > 0 {
			set.WriteString(", ")
		}
		set.WriteString(SettingColumns[ch.Name])
		set.WriteString(" = $")
		set.WriteString(strconv.Itoa(i + 1))
	}
	args = append(args, int64(user))
	set.WriteString(" WHERE id = $" + strconv.Itoa(len(args)))
	return set.String(), args, nil
}

// SettingsUpdateWhat names the settings update of user in errors.
func SettingsUpdateWhat(user store.UserID) string {
	return fmt.Sprintf("update settings of user %d", user)
}

// BulkSettingSQL returns the one statement of UpdateSettingBulk for the
// quoted setting column col, taken only from SettingColumns, of SQL type
// typ. Parameters: 1 realm, 2 user ids, 3 group ids (lists, see List), 4
// value, 5 skip-if-edited, 6 setting name.
//
// The recursive CTE expands the groups of the realm through their subgroups
// (UNION ends cycles); targets are the explicit ids plus the groups' active
// members (the ordered join keeps the groups as the outer loop, so members
// are reached by the group_members primary key instead of a scan; a system
// group's members are the active users of its realm by role). Bots,
// other realms and users already holding the value are left out, and with
// skip-if-edited so are users with a row in user_setting_edits.
func (d *Dialect) BulkSettingSQL(col, typ string) string {
	value := d.Cast("$4", typ)
	return `WITH RECURSIVE
	grp(id) AS (
		SELECT g.id FROM user_groups g WHERE ` + d.In("g.id", "$3", "bigint") + ` AND g.realm_id = $1
		UNION
		SELECT s.subgroup_id FROM group_subgroups s JOIN grp ON s.group_id = grp.id
	),
	target(id) AS (
		SELECT value FROM ` + d.Each("$2", "bigint") + `
		UNION
		SELECT m.user_id FROM grp ` + d.OrderedJoin + ` group_members m ON m.group_id = grp.id
			` + d.OrderedJoin + ` users gu ON gu.id = m.user_id AND gu.is_active = true
		UNION
		SELECT su.id FROM grp ` + d.OrderedJoin + ` user_groups sg ON sg.id = grp.id
			` + d.OrderedJoin + ` users su ON su.realm_id = sg.realm_id AND su.role <= sg.system_role AND su.is_active = true
		WHERE sg.is_system = true
	)
UPDATE users SET ` + col + ` = ` + value + `
WHERE id IN (SELECT id FROM target)
	AND realm_id = $1 AND is_bot = false AND ` + col + ` IS DISTINCT FROM ` + value + `
	AND NOT (` + d.Cast("$5", "boolean") + ` AND EXISTS (SELECT 1 FROM user_setting_edits e WHERE e.user_id = users.id AND e.setting = $6))
RETURNING id`
}

// UpdateSettingBulk implements [store.SettingsStore] with one UPDATE
// statement (see BulkSettingSQL). An unknown setting name, or a value of
// the wrong type, is an error.
func (x *Tx) UpdateSettingBulk(ctx context.Context, u store.BulkSettingUpdate) ([]store.UserID, error) {
	if err := x.q.Writable(); err != nil {
		return nil, err
	}
	col, ok := SettingColumns[u.Setting]
	if !ok {
		return nil, fmt.Errorf("%s: bulk setting update: unknown setting %q", x.d.Name, u.Setting)
	}
	var probe store.Settings
	if err := probe.Set(u.Setting, u.Value); err != nil {
		return nil, fmt.Errorf("%s: bulk setting update: %w", x.d.Name, err)
	}
	v, _ := probe.Value(u.Setting) // the value converted to the setting's type
	typ := "text"
	switch v.(type) {
	case bool:
		typ = "boolean"
	case int:
		typ = "integer"
	}
	out, err := scanAll(ctx, x, "bulk setting update", func(r Row, id *store.UserID) error { return r.Scan(Num(id)) },
		x.d.BulkSettingSQL(col, typ), int64(u.RealmID), List(x.d, u.UserIDs), List(x.d, u.GroupIDs), SettingArg(v),
		u.SkipIfEdited, u.Setting)
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

// RecordSettingEdits implements [store.SettingsStore] in one statement
// (see SettingEditsInsert), run at once. An unknown user gives ErrNotFound.
func (x *Tx) RecordSettingEdits(ctx context.Context, user store.UserID, settings []string) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	if len(settings) == 0 {
		return nil
	}
	query, args := x.SettingEditsInsert(user, settings)
	_, err := x.q.Exec(ctx, query, args...)
	return x.classify(err, SettingEditsWhat(user))
}

// SettingEditsInsert returns the statement of RecordSettingEdits and its
// arguments: one row without a list for the usual single setting.
// settings is not empty.
func (x *Tx) SettingEditsInsert(user store.UserID, settings []string) (string, []any) {
	if len(settings) == 1 {
		return `INSERT INTO user_setting_edits (user_id, setting) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			[]any{int64(user), settings[0]}
	}
	return `INSERT INTO user_setting_edits (user_id, setting)
		SELECT $1, value FROM ` + x.d.Each("$2", "text") + ` WHERE true ON CONFLICT DO NOTHING`,
		[]any{int64(user), x.d.Strings(settings)}
}

// SettingEditsWhat names the recording of user's setting edits in errors.
func SettingEditsWhat(user store.UserID) string {
	return fmt.Sprintf("record setting edits of user %d", user)
}

// EditedSettings implements [store.SettingsStore].
func (x *Tx) EditedSettings(ctx context.Context, user store.UserID) ([]string, error) {
	return scanAll(ctx, x, "edited settings", func(r Row, s *string) error { return r.Scan(s) },
		"SELECT setting FROM user_setting_edits WHERE user_id = $1 ORDER BY setting"+x.d.ByteOrder, user)
}
