package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// The user statements are built once from store.SettingNames(), which is the
// only source of setting column names: each setting of chatcore's settings
// table has the column of its wire name, and adding a setting needs only a
// migration that adds that column (Open refuses a database without it).
var (
	// userSelect lists the columns scanUser reads, the settings last as one
	// json_array column (see settingsCol).
	userSelect string
	// The one-user lookups: by id, by realm and e-mail key, by API key hash.
	userByID, userByEmail, userByAPIKey string
	userInsert                          string
	userUpdate                          string
	// settingColumns maps a setting's wire name to its quoted column name.
	settingColumns map[string]string
)

func init() {
	names := store.SettingNames()
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
		userSettingsField(quoted) + " FROM users"
	userByID = userSelect + " WHERE id = ?"
	userByEmail = userSelect + " WHERE realm_id = ? AND email_key = ?"
	userByAPIKey = userSelect + " WHERE api_key_hash = ?"
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

// settingArgs returns the values of every setting in SettingNames order.
func settingArgs(s *store.Settings) []any {
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
func userArgs(u *store.User) []any {
	args := []any{u.RealmID, u.Email, store.FoldKey(u.Email), u.FullName, u.FullNameKey, int64(u.Role),
		u.IsActive, u.IsBot, int64(u.BotType), idArg(u.BotOwnerID), strArg(u.APIKeyHash), u.PasswordHash,
		u.AvatarSource, timeArg(u.DateJoined)}
	return append(args, settingArgs(&u.Settings)...)
}

// oneUser reads the one user query (a userSelect statement) selects; what
// names it in errors.
func (t *tx) oneUser(ctx context.Context, what func() string, query string, args ...any) (*store.User, error) {
	var u store.User
	if err := scanUser(t.queryRow(ctx, query, args...), &u); err != nil {
		return nil, classify(err, what())
	}
	return &u, nil
}

// User implements [store.UserStore], from the row cache when it holds
// the row.
func (t *tx) User(ctx context.Context, id store.UserID) (*store.User, error) {
	if u, ok := t.cachedUser(id); ok {
		return u, nil
	}
	u, err := t.oneUser(ctx, func() string { return fmt.Sprintf("user %d", id) }, userByID, id)
	if err == nil {
		t.cacheUser(u)
	}
	return u, err
}

// UserByEmail implements [store.UserStore].
func (t *tx) UserByEmail(ctx context.Context, realm store.RealmID, email string) (*store.User, error) {
	return t.oneUser(ctx, func() string { return "user by email" }, userByEmail, realm, store.FoldKey(email))
}

// UserByAPIKeyHash implements [store.UserStore], from the row cache
// when it holds the row.
func (t *tx) UserByAPIKeyHash(ctx context.Context, hash string) (*store.User, error) {
	if hash == "" {
		return nil, notFound("user by api key")
	}
	if u, ok := t.cachedUserByKey(hash); ok {
		return u, nil
	}
	u, err := t.oneUser(ctx, func() string { return "user by api key" }, userByAPIKey, hash)
	if err == nil {
		t.cacheUser(u)
	}
	return u, err
}

// Users implements [store.UserStore].
func (t *tx) Users(ctx context.Context, f store.UserFilter) ([]store.User, error) {
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
	return scanAll(ctx, t, "users", func(r *sql.Rows, u *store.User) error { return scanUser(r, u) },
		q+" ORDER BY id", args...)
}

// CreateUser implements [store.UserStore]. It sets u.FullNameKey.
func (t *tx) CreateUser(ctx context.Context, u *store.User) error {
	if err := t.writable(); err != nil {
		return err
	}
	u.FullNameKey = store.FoldKey(u.FullName)
	args := append([]any{idArg(u.ID)}, userArgs(u)...)
	var id store.UserID
	if err := t.queryRow(ctx, userInsert, args...).Scan(&id); err != nil {
		return classify(err, "create user")
	}
	u.ID = id
	return nil
}

// UpdateUser implements [store.UserStore]. It sets u.FullNameKey.
func (t *tx) UpdateUser(ctx context.Context, u *store.User) error {
	if err := t.writable(); err != nil {
		return err
	}
	u.FullNameKey = store.FoldKey(u.FullName)
	what := fmt.Sprintf("update user %d", u.ID)
	res, err := t.execUserRow(ctx, u.ID, true, userUpdate, append(userArgs(u), u.ID)...)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

const botServiceCols = "id, bot_id, name, base_url, token, interface"

// BotServices implements [store.UserStore].
func (t *tx) BotServices(ctx context.Context, bot store.UserID) ([]store.BotService, error) {
	return scanAll(ctx, t, "bot services", func(r *sql.Rows, s *store.BotService) error {
		return r.Scan(&s.ID, &s.BotID, &s.Name, &s.BaseURL, &s.Token, &s.Interface)
	}, "SELECT "+botServiceCols+" FROM bot_services WHERE bot_id = ? ORDER BY id", bot)
}

// CreateBotService implements [store.UserStore].
func (t *tx) CreateBotService(ctx context.Context, s *store.BotService) error {
	if err := t.writable(); err != nil {
		return err
	}
	err := t.queryRow(ctx, "INSERT INTO bot_services ("+botServiceCols+") VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
		idArg(s.ID), s.BotID, s.Name, s.BaseURL, s.Token, s.Interface).Scan(&s.ID)
	return classify(err, "create bot service")
}
