package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/chatcore/chatcore"
)

// The user statements are built once from chatcore.SettingNames(), which is the
// only source of setting column names: each setting of chatcore's settings
// table has the column of its wire name, and adding a setting needs only a
// migration that adds that column (Open refuses a database without it).
var (
	// userSelect lists the columns scanUser reads, settings last.
	userSelect string
	userInsert string
	userUpdate string
	// settingColumns maps a setting's wire name to its quoted column name.
	settingColumns map[string]string
)

func init() {
	names := chatcore.SettingNames()
	settingColumns = make(map[string]string, len(names))
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = quoteIdent(n)
		settingColumns[n] = quoted[i]
	}
	base := []string{"realm_id", "email", "email_key", "full_name", "full_name_key", "role", "is_active",
		"is_bot", "bot_type", "bot_owner_id", "api_key_hash", "password_hash", "avatar_source", "date_joined"}
	userSelect = "SELECT id, realm_id, email, full_name, full_name_key, role, is_active, is_bot, bot_type, " +
		"bot_owner_id, api_key_hash, password_hash, avatar_source, date_joined, " +
		strings.Join(quoted, ", ") + " FROM users"
	all := append(append([]string{"id"}, base...), quoted...)
	userInsert = "INSERT INTO users (" + strings.Join(all, ", ") + ") VALUES (" +
		strings.TrimSuffix(strings.Repeat("?, ", len(all)), ", ") + ") RETURNING id"
	sets := make([]string, 0, len(base)+len(quoted))
	for _, c := range append(base, quoted...) {
		sets = append(sets, c+" = ?")
	}
	userUpdate = "UPDATE users SET " + strings.Join(sets, ", ") + " WHERE id = ?"
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func scanUser(r interface{ Scan(...any) error }, u *chatcore.User) error {
	dest := []any{&u.ID, &u.RealmID, &u.Email, &u.FullName, &u.FullNameKey, &u.Role, &u.IsActive, &u.IsBot,
		&u.BotType, idCol[chatcore.UserID]{&u.BotOwnerID}, strCol{&u.APIKeyHash}, &u.PasswordHash,
		&u.AvatarSource, timeCol{&u.DateJoined}}
	return r.Scan(append(dest, u.Settings.Fields()...)...)
}

// settingArgs returns the values of every setting in SettingNames order.
func settingArgs(s *chatcore.Settings) []any {
	fields := s.Fields()
	out := make([]any, len(fields))
	for i, f := range fields {
		switch p := f.(type) {
		case *bool:
			out[i] = *p
		case *int:
			out[i] = int64(*p)
		case *string:
			out[i] = *p
		default:
			panic(fmt.Sprintf("sqlite: setting field of type %T", f))
		}
	}
	return out
}

// settingArg returns the column value of a setting value (bool, int or
// string), as settingArgs does.
func settingArg(v any) any {
	if n, ok := v.(int); ok {
		return int64(n)
	}
	return v
}

// userArgs returns the values of the non-id columns, in the order of the
// insert and update statements.
func userArgs(u *chatcore.User) []any {
	args := []any{u.RealmID, u.Email, chatcore.FoldKey(u.Email), u.FullName, u.FullNameKey, int64(u.Role),
		u.IsActive, u.IsBot, int64(u.BotType), idArg(u.BotOwnerID), strArg(u.APIKeyHash), u.PasswordHash,
		u.AvatarSource, timeArg(u.DateJoined)}
	return append(args, settingArgs(&u.Settings)...)
}

func (t *tx) oneUser(ctx context.Context, what, where string, args ...any) (*chatcore.User, error) {
	var u chatcore.User
	if err := scanUser(t.queryRow(ctx, userSelect+" WHERE "+where, args...), &u); err != nil {
		return nil, classify(err, what)
	}
	return &u, nil
}

// User implements [chatcore.UserStore].
func (t *tx) User(ctx context.Context, id chatcore.UserID) (*chatcore.User, error) {
	return t.oneUser(ctx, fmt.Sprintf("user %d", id), "id = ?", id)
}

// UserByEmail implements [chatcore.UserStore].
func (t *tx) UserByEmail(ctx context.Context, realm chatcore.RealmID, email string) (*chatcore.User, error) {
	return t.oneUser(ctx, "user by email", "realm_id = ? AND email_key = ?", realm, chatcore.FoldKey(email))
}

// UserByAPIKeyHash implements [chatcore.UserStore].
func (t *tx) UserByAPIKeyHash(ctx context.Context, hash string) (*chatcore.User, error) {
	if hash == "" {
		return nil, notFound("user by api key")
	}
	return t.oneUser(ctx, "user by api key", "api_key_hash = ?", hash)
}

// Users implements [chatcore.UserStore].
func (t *tx) Users(ctx context.Context, f chatcore.UserFilter) ([]chatcore.User, error) {
	var where []string
	var args []any
	if f.RealmID != 0 {
		// With explicit ids the primary key drives the query; "+" keeps the
		// planner from scanning the realm's index instead.
		realm := "realm_id = ?"
		if f.IDs != nil {
			realm = "+realm_id = ?"
		}
		where, args = append(where, realm), append(args, f.RealmID)
	}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			return nil, nil
		}
		where, args = append(where, "id IN (SELECT value FROM json_each(?))"), append(args, idsJSON(f.IDs))
	}
	if len(f.Roles) > 0 {
		roles := make([]int64, len(f.Roles))
		for i, r := range f.Roles {
			roles[i] = int64(r)
		}
		where, args = append(where, "role IN (SELECT value FROM json_each(?))"), append(args, idsJSON(roles))
	}
	if f.Active != nil {
		where, args = append(where, "is_active = ?"), append(args, *f.Active)
	}
	if f.Bot != nil {
		where, args = append(where, "is_bot = ?"), append(args, *f.Bot)
	}
	if f.BotOwnerID != 0 {
		where, args = append(where, "bot_owner_id = ?"), append(args, f.BotOwnerID)
	}
	if f.FullNameKey != "" {
		where, args = append(where, "full_name_key = ?"), append(args, f.FullNameKey)
	}
	q := userSelect
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return scanAll(ctx, t, "users", func(r *sql.Rows, u *chatcore.User) error { return scanUser(r, u) },
		q+" ORDER BY id", args...)
}

// CreateUser implements [chatcore.UserStore]. It sets u.FullNameKey.
func (t *tx) CreateUser(ctx context.Context, u *chatcore.User) error {
	if err := t.writable(); err != nil {
		return err
	}
	u.FullNameKey = chatcore.FoldKey(u.FullName)
	args := append([]any{idArg(u.ID)}, userArgs(u)...)
	var id chatcore.UserID
	if err := t.queryRow(ctx, userInsert, args...).Scan(&id); err != nil {
		return classify(err, "create user")
	}
	u.ID = id
	return nil
}

// UpdateUser implements [chatcore.UserStore]. It sets u.FullNameKey.
func (t *tx) UpdateUser(ctx context.Context, u *chatcore.User) error {
	if err := t.writable(); err != nil {
		return err
	}
	u.FullNameKey = chatcore.FoldKey(u.FullName)
	what := fmt.Sprintf("update user %d", u.ID)
	res, err := t.exec(ctx, userUpdate, append(userArgs(u), u.ID)...)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

const botServiceCols = "id, bot_id, name, base_url, token, interface"

// BotServices implements [chatcore.UserStore].
func (t *tx) BotServices(ctx context.Context, bot chatcore.UserID) ([]chatcore.BotService, error) {
	return scanAll(ctx, t, "bot services", func(r *sql.Rows, s *chatcore.BotService) error {
		return r.Scan(&s.ID, &s.BotID, &s.Name, &s.BaseURL, &s.Token, &s.Interface)
	}, "SELECT "+botServiceCols+" FROM bot_services WHERE bot_id = ? ORDER BY id", bot)
}

// CreateBotService implements [chatcore.UserStore].
func (t *tx) CreateBotService(ctx context.Context, s *chatcore.BotService) error {
	if err := t.writable(); err != nil {
		return err
	}
	err := t.queryRow(ctx, "INSERT INTO bot_services ("+botServiceCols+") VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
		idArg(s.ID), s.BotID, s.Name, s.BaseURL, s.Token, s.Interface).Scan(&s.ID)
	return classify(err, "create bot service")
}

// bulkSettingSQL is the one statement of UpdateSettingBulk; %s is the quoted
// setting column, taken only from settingColumns. Parameters: 1 realm, 2 user
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

// UpdateSettingBulk implements [chatcore.SettingsStore] with one UPDATE
// statement. An unknown setting name, or a value of the wrong type, is an
// error.
func (t *tx) UpdateSettingBulk(ctx context.Context, u chatcore.BulkSettingUpdate) ([]chatcore.UserID, error) {
	if err := t.writable(); err != nil {
		return nil, err
	}
	col, ok := settingColumns[u.Setting]
	if !ok {
		return nil, fmt.Errorf("sqlite: bulk setting update: unknown setting %q", u.Setting)
	}
	var probe chatcore.Settings
	if err := probe.Set(u.Setting, u.Value); err != nil {
		return nil, fmt.Errorf("sqlite: bulk setting update: %w", err)
	}
	v, _ := probe.Value(u.Setting) // the value converted to the setting's type
	ids, err := scanIDs[chatcore.UserID](ctx, t, "bulk setting update", fmtBulk(col),
		u.RealmID, idsJSON(u.UserIDs), idsJSON(u.GroupIDs), settingArg(v), u.SkipIfEdited, u.Setting)
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	return ids, nil
}

// RecordSettingEdits implements [chatcore.SettingsStore] in one statement. An
// unknown user gives ErrNotFound.
func (t *tx) RecordSettingEdits(ctx context.Context, user chatcore.UserID, settings []string) error {
	if err := t.writable(); err != nil {
		return err
	}
	if len(settings) == 0 {
		return nil
	}
	list, err := json.Marshal(settings)
	if err != nil {
		return err
	}
	_, err = t.exec(ctx, `INSERT INTO user_setting_edits (user_id, setting)
		SELECT ?, value FROM json_each(?) WHERE true ON CONFLICT DO NOTHING`,
		user, string(list))
	return classify(err, fmt.Sprintf("record setting edits of user %d", user))
}

// EditedSettings implements [chatcore.SettingsStore].
func (t *tx) EditedSettings(ctx context.Context, user chatcore.UserID) ([]string, error) {
	return scanAll(ctx, t, "edited settings", func(r *sql.Rows, s *string) error { return r.Scan(s) },
		"SELECT setting FROM user_setting_edits WHERE user_id = ? ORDER BY setting", user)
}
