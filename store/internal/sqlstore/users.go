package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// SettingColumns maps a setting's wire name to its quoted column name. The
// user statements are built from store.SettingNames(), the only source of
// setting column names: each setting has the column of its wire name, and
// adding a setting needs only a migration that adds that column (the stores
// refuse a database without it).
var SettingColumns map[string]string

// settingQuoted are the quoted setting columns in SettingNames order.
var settingQuoted []string

func init() {
	names := store.SettingNames()
	SettingColumns = make(map[string]string, len(names))
	settingQuoted = make([]string, len(names))
	for i, n := range names {
		settingQuoted[i] = QuoteIdent(n)
		SettingColumns[n] = settingQuoted[i]
	}
}

// QuoteIdent quotes an SQL identifier.
func QuoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// userSQL are a dialect's user statements (see Dialect.userStatements).
type userSQL struct {
	// sel lists the columns scanUser reads, settings last; profile the
	// columns scanProfile reads, the settings other users see last.
	sel, profile string
	// The one-user lookups: by id, by realm and e-mail key, by API key hash.
	byID, byEmail, byAPIKey string
	// keyHolder reads the user of an API key hash $1 (their own key, else
	// a login key) with whether it is their own and their realm's
	// deactivation.
	keyHolder      string
	insert, update string
}

// userBaseCols are the user columns but id and the settings, in the order
// of userArgs.
var userBaseCols = []string{"realm_id", "email", "email_key", "full_name", "full_name_key", "role", "is_active",
	"is_bot", "bot_type", "bot_owner_id", "api_key_hash", "password_hash", "avatar_source", "avatar_version", "date_joined", "can_create_users"}

// userStatements returns d's user statements, built at the first call.
func (d *Dialect) userStatements() *userSQL {
	d.usersOnce.Do(func() {
		s := &d.users
		settings := strings.Join(settingQuoted, ", ")
		if d.SettingsSelect != nil {
			settings = d.SettingsSelect(settingQuoted)
		}
		const base = "SELECT id, realm_id, email, full_name, full_name_key, role, is_active, is_bot, bot_type, " +
			"bot_owner_id, api_key_hash, password_hash, avatar_source, avatar_version, date_joined, can_create_users, "
		s.sel = base + settings + " FROM users"
		s.profile = base + SettingColumns["timezone"] + ", " + SettingColumns["email_address_visibility"] + " FROM users"
		s.byID = s.sel + " WHERE id = $1"
		s.byEmail = s.sel + " WHERE realm_id = $1 AND email_key = $2"
		s.byAPIKey = s.sel + " WHERE api_key_hash = $1"
		// Two index lookups in one statement; a hash is both a user's own
		// key and a login key only by a collision of SHA-256, and the
		// first branch answers first when both match.
		userCols := strings.TrimSuffix(s.sel, " FROM users")
		realm := ", (SELECT r.deactivated FROM realms r WHERE r.id = users.realm_id)"
		s.keyHolder = userCols + realm + ", 1 FROM users WHERE api_key_hash = $1 UNION ALL " +
			userCols + realm + ", 0 FROM users WHERE id = (SELECT user_id FROM login_keys WHERE hash = $1) LIMIT 1"
		cols := append(append([]string{"id"}, userBaseCols...), settingQuoted...)
		vals := []string{d.IDValue("users")}
		for i := 2; i <= len(cols); i++ {
			vals = append(vals, "$"+strconv.Itoa(i))
		}
		s.insert = "INSERT INTO users (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ") RETURNING id"
		sets := make([]string, 0, len(cols)-1)
		for i, c := range cols[1:] {
			sets = append(sets, c+" = $"+strconv.Itoa(i+1))
		}
		s.update = "UPDATE users SET " + strings.Join(sets, ", ") + " WHERE id = $" + strconv.Itoa(len(sets)+1)
	})
	return &d.users
}

// scanUser scans a row of the dialect's user select into u.
func (d *Dialect) scanUser(r Row, u *store.User) error { return d.scanUserAnd(r, u) }

// scanUserAnd scans a row of the dialect's user select into u, and the
// columns after the user's into more.
func (d *Dialect) scanUserAnd(r Row, u *store.User, more ...any) error {
	dest := userDest(u)
	if d.SettingsDest != nil {
		return r.Scan(append(append(dest, d.SettingsDest(u.Settings.Fields())...), more...)...)
	}
	return r.Scan(append(append(dest, u.Settings.Fields()...), more...)...)
}

// userDest returns the scan destinations of the user columns before the
// settings, into u.
func userDest(u *store.User) []any {
	return []any{Num(&u.ID), Num(&u.RealmID), &u.Email, &u.FullName, &u.FullNameKey, Num(&u.Role), &u.IsActive, &u.IsBot,
		Num(&u.BotType), ID(&u.BotOwnerID), Str(&u.APIKeyHash), &u.PasswordHash,
		&u.AvatarSource, Num(&u.AvatarVersion), Time(&u.DateJoined), &u.CanCreateUsers}
}

// scanProfile scans a row of the user statements' profile select into u:
// the settings other users see, the rest left zero (UserFilter.Profile).
func scanProfile(r Row, u *store.User) error {
	return r.Scan(append(userDest(u), &u.Settings.Timezone, Num(&u.Settings.EmailAddressVisibility))...)
}

// SettingArgs returns the values of every setting in SettingNames order.
func SettingArgs(s *store.Settings) []any {
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
			panic(fmt.Sprintf("sqlstore: setting field of type %T", f))
		}
	}
	return out
}

// SettingArg returns the column value of a setting value (bool, int or
// string), as SettingArgs does.
func SettingArg(v any) any {
	if n, ok := v.(int); ok {
		return int64(n)
	}
	return v
}

// userArgs returns the values of the non-id columns, in the order of the
// insert and update statements.
func (x *Tx) userArgs(u *store.User) []any {
	args := []any{int64(u.RealmID), u.Email, store.FoldKey(u.Email), u.FullName, u.FullNameKey, int64(u.Role),
		u.IsActive, u.IsBot, int64(u.BotType), IDArg(u.BotOwnerID), StrArg(u.APIKeyHash), u.PasswordHash,
		u.AvatarSource, int64(u.AvatarVersion), x.d.Time(u.DateJoined), u.CanCreateUsers}
	return append(args, SettingArgs(&u.Settings)...)
}

// oneUser reads the one user query selects; what names it in errors.
func (x *Tx) oneUser(ctx context.Context, what func() string, query string, args ...any) (*store.User, error) {
	var u store.User
	if err := x.d.scanUser(x.q.QueryRow(ctx, query, args...), &u); err != nil {
		return nil, x.classify(err, what())
	}
	return &u, nil
}

// User implements [store.UserStore] with one statement.
func (x *Tx) User(ctx context.Context, id store.UserID) (*store.User, error) {
	return x.oneUser(ctx, func() string { return fmt.Sprintf("user %d", id) }, x.d.userStatements().byID, id)
}

// UserByEmail implements [store.UserStore].
func (x *Tx) UserByEmail(ctx context.Context, realm store.RealmID, email string) (*store.User, error) {
	return x.oneUser(ctx, func() string { return "user by email" }, x.d.userStatements().byEmail, realm, store.FoldKey(email))
}

// UserByAPIKeyHash implements [store.UserStore] with one statement.
func (x *Tx) UserByAPIKeyHash(ctx context.Context, hash string) (*store.User, error) {
	if hash == "" {
		return nil, x.d.NotFound("user by api key")
	}
	return x.oneUser(ctx, func() string { return "user by api key" }, x.d.userStatements().byAPIKey, hash)
}

// KeyHolder implements [store.UserStore] with one statement.
func (x *Tx) KeyHolder(ctx context.Context, hash string) (store.KeyHolder, error) {
	if hash == "" {
		return store.KeyHolder{}, x.d.NotFound("user by api key")
	}
	var u store.User
	var deactivated bool
	var own int64
	if err := x.d.scanUserAnd(x.q.QueryRow(ctx, x.d.userStatements().keyHolder, hash), &u, &deactivated, &own); err != nil {
		return store.KeyHolder{}, x.classify(err, "user by api key")
	}
	return store.KeyHolder{User: &u, OwnKey: own == 1, RealmDeactivated: deactivated}, nil
}

// Users implements [store.UserStore].
func (x *Tx) Users(ctx context.Context, f store.UserFilter) ([]store.User, error) {
	var where []string
	var args []any
	arg := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if f.RealmID != 0 {
		// With explicit ids the primary key drives the query; "+" keeps the
		// planner from scanning the realm's index instead.
		realm := "realm_id = ?"
		if f.IDs != nil {
			realm = "+realm_id = ?"
		}
		arg(realm, f.RealmID)
	}
	if f.IDs != nil {
		if len(f.IDs) == 0 {
			return nil, nil
		}
		arg(x.d.In("id", "?", "bigint"), List(x.d, f.IDs))
	}
	if len(f.Roles) > 0 {
		roles := make([]int64, len(f.Roles))
		for i, r := range f.Roles {
			roles[i] = int64(r)
		}
		arg(x.d.In("role", "?", "bigint"), List(x.d, roles))
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
	q, scan := x.d.userStatements().sel, x.d.scanUser
	if f.Profile {
		q, scan = x.d.userStatements().profile, scanProfile
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	return scanAll(ctx, x, "users", scan, q+" ORDER BY id", args...)
}

// CreateUser implements [store.UserStore]. It sets u.FullNameKey.
func (x *Tx) CreateUser(ctx context.Context, u *store.User) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	u.FullNameKey = store.FoldKey(u.FullName)
	id, err := x.InsertWithID(ctx, "users", "create user", x.d.userStatements().insert, int64(u.ID), x.userArgs(u)...)
	if err != nil {
		return err
	}
	u.ID = store.UserID(id)
	return nil
}

// UpdateUser implements [store.UserStore] with one statement. It sets
// u.FullNameKey.
func (x *Tx) UpdateUser(ctx context.Context, u *store.User) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	query, args := x.UserUpdate(u)
	n, err := x.q.Exec(ctx, query, args...)
	return x.mustAffect(n, err, fmt.Sprintf("update user %d", u.ID))
}

// UserUpdate sets u.FullNameKey and returns the statement of UpdateUser,
// which writes u's row and nothing else, with its arguments.
func (x *Tx) UserUpdate(u *store.User) (string, []any) {
	u.FullNameKey = store.FoldKey(u.FullName)
	return x.d.userStatements().update, append(x.userArgs(u), int64(u.ID))
}

const botServiceCols = "id, bot_id, name, base_url, token, interface"

// BotServices implements [store.UserStore].
func (x *Tx) BotServices(ctx context.Context, bot store.UserID) ([]store.BotService, error) {
	return scanAll(ctx, x, "bot services", func(r Row, s *store.BotService) error {
		return r.Scan(Num(&s.ID), Num(&s.BotID), &s.Name, &s.BaseURL, &s.Token, &s.Interface)
	}, "SELECT "+botServiceCols+" FROM bot_services WHERE bot_id = $1 ORDER BY id", bot)
}

// CreateBotService implements [store.UserStore].
func (x *Tx) CreateBotService(ctx context.Context, s *store.BotService) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "bot_services", "create bot service",
		"INSERT INTO bot_services ("+botServiceCols+") VALUES ("+x.d.IDValue("bot_services")+", $2, $3, $4, $5, $6) RETURNING id",
		int64(s.ID), int64(s.BotID), s.Name, s.BaseURL, s.Token, s.Interface)
	if err != nil {
		return err
	}
	s.ID = store.BotServiceID(id)
	return nil
}
