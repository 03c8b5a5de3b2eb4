package accounts_test

import (
	"encoding/json"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// userViewIDs lists the ids of user views.
func userViewIDs(vs []chatcore.UserView) []chatcore.UserID {
	ids := []chatcore.UserID{}
	for _, v := range vs {
		ids = append(ids, v.UserID)
	}
	return ids
}

// viewKeys marshals v and returns its keys.
func viewKeys(tb testing.TB, v chatcore.UserView) map[string]any {
	tb.Helper()
	is := is.New(tb)
	raw, err := json.Marshal(v)
	is.NoErr(err) // marshals
	var m map[string]any
	is.NoErr(json.Unmarshal(raw, &m)) // an object
	return m
}

func TestListUsersByID(t *testing.T) {
	w := newOrg(t)
	tests := []struct {
		name string
		ids  []chatcore.UserID
		want []chatcore.UserID
	}{
		{"some, by id", []chatcore.UserID{14, 11}, []chatcore.UserID{11, 14}},
		{"unknown and other realm left out", []chatcore.UserID{999, 21, 32}, []chatcore.UserID{32}},
		{"repeats once", []chatcore.UserID{16, 16, 16}, []chatcore.UserID{16}},
		{"empty list, no users", []chatcore.UserID{}, []chatcore.UserID{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			vs, err := accounts.ListUsers(t.Context(), w.Svc, 15, accounts.UsersRequest{UserIDs: &tt.ids})
			is.NoErr(err)                      // a guest may ask too
			is.Equal(userViewIDs(vs), tt.want) // only the listed users of the realm
		})
	}
	t.Run("over the bound", func(t *testing.T) {
		ids := make([]chatcore.UserID, chatcore.MaxUserIDs+1)
		_, err := accounts.ListUsers(t.Context(), w.Svc, 11, accounts.UsersRequest{UserIDs: &ids})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "user_ids is too long (limit: 1000 items)")
	})
	t.Run("at the bound", func(t *testing.T) {
		is := is.New(t)
		ids := make([]chatcore.UserID, chatcore.MaxUserIDs)
		for i := range ids {
			ids[i] = chatcore.UserID(i + 1)
		}
		vs, err := accounts.ListUsers(t.Context(), w.Svc, 11, accounts.UsersRequest{UserIDs: &ids})
		is.NoErr(err)                                                                        // accepted
		is.Equal(userViewIDs(vs), []chatcore.UserID{11, 12, 13, 14, 15, 16, 17, 31, 32, 33}) // the realm's among them
	})
}

func TestUserByEmail(t *testing.T) {
	w := newOrg(t)
	tests := []struct {
		name  string
		actor chatcore.UserID
		email string
		want  chatcore.UserID // 0: "No such user"
	}{
		{"admin, real address, any case", 12, " MAX@Acme.Test ", 14},
		{"moderator, address shown to admins only", 13, "max@acme.test", 0},
		{"moderator, stand-in address", 13, "user14@chatcore.invalid", 14},
		{"stand-in address, domain in capitals", 13, "user14@CHATCORE.invalid", 14},
		{"own hidden address, as Zulip filters by role", 14, "max@acme.test", 0},
		{"guest, address shown to everyone", 15, "olivia@acme.test", 11},
		{"guest, bot", 15, "echo-bot@acme.test", 32},
		{"deactivated user", 11, "dana@acme.test", 16},
		{"unknown address", 11, "nobody@acme.test", 0},
		{"stand-in address of no user", 11, "user999@chatcore.invalid", 0},
		{"stand-in address of another realm's user", 11, "user21@chatcore.invalid", 0},
		{"stand-in form, other domain", 11, "user14@acme.test", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := accounts.UserByEmail(t.Context(), w.Svc, tt.actor, tt.email, accounts.UsersRequest{})
			if tt.want == 0 {
				chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "No such user")
				return
			}
			is := is.New(t)
			is.NoErr(err)               // found
			is.Equal(v.UserID, tt.want) // the user with that address
		})
	}
	t.Run("deactivated actor", func(t *testing.T) {
		_, err := accounts.UserByEmail(t.Context(), w.Svc, 16, "olivia@acme.test", accounts.UsersRequest{})
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
	})
}

func TestUserViewLevel467Fields(t *testing.T) {
	w := newOrg(t)
	ctx := t.Context()
	yes := true
	t.Run("defaults", func(t *testing.T) {
		is := is.New(t)
		v, err := accounts.User(ctx, w.Svc, 11, 14)
		is.NoErr(err)
		m := viewKeys(t, v)
		is.Equal(m["avatar_version"], 1.0)     // Zulip's first avatar version
		is.Equal(m["is_imported_stub"], false) // no imported accounts
		_, has := m["profile_data"]
		is.True(!has) // not asked for
		_, has = m["max_message_id"]
		is.True(!has) // only on the own view
	})
	t.Run("profile data asked for", func(t *testing.T) {
		is := is.New(t)
		v, err := accounts.UserWith(ctx, w.Svc, 11, 14, accounts.UsersRequest{IncludeCustomProfileFields: &yes})
		is.NoErr(err)
		is.Equal(viewKeys(t, v)["profile_data"], map[string]any{}) // an empty map: no custom fields
		bot, err := accounts.UserWith(ctx, w.Svc, 11, 32, accounts.UsersRequest{IncludeCustomProfileFields: &yes})
		is.NoErr(err)
		_, has := viewKeys(t, bot)["profile_data"]
		is.True(!has) // bots have none, as in Zulip
		vs, err := accounts.ListUsers(ctx, w.Svc, 11, accounts.UsersRequest{IncludeCustomProfileFields: &yes})
		is.NoErr(err)
		is.Equal(viewKeys(t, vs[0])["profile_data"], map[string]any{}) // on the list too
	})
	t.Run("avatar version after delete_profile", func(t *testing.T) {
		is := is.New(t)
		w.UpdateUser(t, 17, func(u *chatcore.User) { u.AvatarSource, u.AvatarVersion = "D", 2 }) // as delete_profile leaves it
		v, err := accounts.User(ctx, w.Svc, 11, 17)
		is.NoErr(err)
		is.Equal(v.AvatarVersion, 2) // the stored count of avatar changes
	})
}

func TestMeMaxMessageID(t *testing.T) {
	w, c := newCast(t, chattest.New)
	is := is.New(t)
	v, err := accounts.Me(t.Context(), w.Svc, c.Member.ID)
	is.NoErr(err)
	is.Equal(*v.MaxMessageID, chatcore.MessageID(-1))          // no message yet
	is.Equal(viewKeys(t, v)["profile_data"], map[string]any{}) // the own view carries profile_data
	id := w.DM(t, c.Owner, "hi", c.Member)
	w.DM(t, c.Owner, "not for member", c.Admin)
	v, err = accounts.Me(t.Context(), w.Svc, c.Member.ID)
	is.NoErr(err)
	is.Equal(*v.MaxMessageID, id) // the newest message the user received
	bot, err := accounts.Me(t.Context(), w.Svc, c.Bot.ID)
	is.NoErr(err)
	_, has := viewKeys(t, bot)["profile_data"]
	is.True(!has) // a bot's own view has none
}
