package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

// The user statements are built once from store.SettingNames(), the only
// source of setting column names: each setting has the column of its wire
// name, and adding a setting needs only a migration that adds that column
// (Open refuses a database without it).
var (
	// userSelect lists the columns scanUser reads, settings last.
	userSelect string
	userInsert string
	userUpdate string
	// settingColumns maps a setting's wire name to its quoted column name.
	settingColumns map[string]string
)

func init() {
	names := store.SettingNames()
	settingColumns = make(map[string]string, len(names))
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = pgx.Identifier{n}.Sanitize()
		settingColumns[n] = quoted[i]
	}
	base := []string{"realm_id", "email", "email_key", "full_name", "full_name_key", "role", "is_active",
		"is_bot", "bot_type", "bot_owner_id", "api_key_hash", "password_hash", "avatar_source", "date_joined"}
	userSelect = "SELECT id, realm_id, email, full_name, full_name_key, role, is_active, is_bot, bot_type, " +
		"bot_owner_id, api_key_hash, password_hash, avatar_source, date_joined, " +
		strings.Join(quoted, ", ") + " FROM users"
	cols := append(append([]string{"id"}, base...), quoted...)
	vals := []string{idValue("users")}
	for i := 2; i <= len(cols); i++ {
		vals = append(vals, "$"+strconv.Itoa(i))
	}
	userInsert = "INSERT INTO users (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ") RETURNING id"
	sets := make([]string, 0, len(base)+len(quoted))
	for i, c := range append(base, quoted...) {
		sets = append(sets, c+" = $"+strconv.Itoa(i+1))
	}
	userUpdate = "UPDATE users SET " + strings.Join(sets, ", ") + " WHERE id = $" + strconv.Itoa(len(sets)+1)
}

func scanUser(r interface{ Scan(...any) error }, u *store.User) error {
	var apiKey *string
	dest := []any{&u.ID, &u.RealmID, &u.Email, &u.FullName, &u.FullNameKey, &u.Role, &u.IsActive, &u.IsBot,
		&u.BotType, sqlstore.ID(&u.BotOwnerID), &apiKey, &u.PasswordHash,
		&u.AvatarSource, timeCol{&u.DateJoined}}
	if err := r.Scan(append(dest, u.Settings.Fields()...)...); err != nil {
		return err
	}
	u.APIKeyHash = ""
	if apiKey != nil {
		u.APIKeyHash = *apiKey
	}
	return nil
}

// userArgs returns the values of the non-id columns, in the order of the
// insert and update statements.
func userArgs(u *store.User) []any {
	args := []any{u.RealmID, u.Email, store.FoldKey(u.Email), u.FullName, u.FullNameKey, u.Role,
		u.IsActive, u.IsBot, u.BotType, idArg(u.BotOwnerID), strArg(u.APIKeyHash), u.PasswordHash,
		u.AvatarSource, timeArg(u.DateJoined)}
	return append(args, u.Settings.Fields()...)
}

func (t *tx) oneUser(ctx context.Context, what, where string, args ...any) (*store.User, error) {
	var u store.User
	if err := scanUser(t.queryRow(ctx, userSelect+" WHERE "+where, args...), &u); err != nil {
		return nil, classify(err, what)
	}
	noteRead(t, &t.users, u.ID)
	return &u, nil
}

// User implements [store.UserStore].
func (t *tx) User(ctx context.Context, id store.UserID) (*store.User, error) {
	return t.oneUser(ctx, fmt.Sprintf("user %d", id), "id = $1", id)
}

// UserByEmail implements [store.UserStore].
func (t *tx) UserByEmail(ctx context.Context, realm store.RealmID, email string) (*store.User, error) {
	return t.oneUser(ctx, "user by email", "realm_id = $1 AND email_key = $2", realm, store.FoldKey(email))
}

// UserByAPIKeyHash implements [store.UserStore].
func (t *tx) UserByAPIKeyHash(ctx context.Context, hash string) (*store.User, error) {
	if hash == "" {
		return nil, notFound("user by api key")
	}
	return t.oneUser(ctx, "user by api key", "api_key_hash = $1", hash)
}

// Users implements [store.UserStore].
func (t *tx) Users(ctx context.Context, f store.UserFilter) ([]store.User, error) {
	var where []string
	var args []any
	arg := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if f.RealmID != 0 {
		arg("realm_id = ?", f.RealmID)
	}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			return nil, nil
		}
		arg("id = ANY(?)", f.IDs)
	}
	if len(f.Roles) > 0 {
		arg("role = ANY(?)", f.Roles)
	}
	if f.Active != nil {
		arg("is_active = ?", *f.Active)
	}
	if f.Bot != nil {
		arg("is_bot = ?", *f.Bot)
	}
	if f.BotOwnerID != 0 {
		arg("bot_owner_id = ?", f.BotOwnerID)
	}
	if f.FullNameKey != "" {
		arg("full_name_key = ?", f.FullNameKey)
	}
	q := userSelect
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return scanAll(ctx, t, "users", func(r pgx.Rows, u *store.User) error { return scanUser(r, u) },
		q+" ORDER BY id", args...)
}

// CreateUser implements [store.UserStore]. It sets u.FullNameKey.
func (t *tx) CreateUser(ctx context.Context, u *store.User) error {
	if err := t.writable(); err != nil {
		return err
	}
	u.FullNameKey = store.FoldKey(u.FullName)
	id, err := t.InsertWithID(ctx, "users", "create user", userInsert, int64(u.ID), userArgs(u)...)
	if err != nil {
		return err
	}
	u.ID = store.UserID(id)
	return nil
}

// UpdateUser implements [store.UserStore]. It sets u.FullNameKey.
func (t *tx) UpdateUser(ctx context.Context, u *store.User) error {
	if err := t.writable(); err != nil {
		return err
	}
	u.FullNameKey = store.FoldKey(u.FullName)
	tag, err := t.exec(ctx, userUpdate, append(userArgs(u), u.ID)...)
	return mustAffect(tag, err, fmt.Sprintf("update user %d", u.ID))
}

const botServiceCols = "id, bot_id, name, base_url, token, interface"

// BotServices implements [store.UserStore].
func (t *tx) BotServices(ctx context.Context, bot store.UserID) ([]store.BotService, error) {
	return scanAll(ctx, t, "bot services", func(r pgx.Rows, s *store.BotService) error {
		return r.Scan(&s.ID, &s.BotID, &s.Name, &s.BaseURL, &s.Token, &s.Interface)
	}, "SELECT "+botServiceCols+" FROM bot_services WHERE bot_id = $1 ORDER BY id", bot)
}

// CreateBotService implements [store.UserStore].
func (t *tx) CreateBotService(ctx context.Context, s *store.BotService) error {
	if err := t.writable(); err != nil {
		return err
	}
	id, err := t.InsertWithID(ctx, "bot_services", "create bot service",
		"INSERT INTO bot_services ("+botServiceCols+") VALUES ("+idValue("bot_services")+", $2, $3, $4, $5, $6) RETURNING id",
		int64(s.ID), s.BotID, s.Name, s.BaseURL, s.Token, s.Interface)
	if err != nil {
		return err
	}
	s.ID = store.BotServiceID(id)
	return nil
}
