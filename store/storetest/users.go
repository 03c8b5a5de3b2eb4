package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

var userTests = []test{
	{"CreateAndRead", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		u := human(realm, "Olivia@Acme.test")
		u.FullName, u.FullNameKey = "Olivia Öwner", "stale key"
		u.Role, u.PasswordHash, u.CanCreateUsers = store.RoleOwner, "argon2id$hash", true
		u.Settings.ColorScheme, u.Settings.EnterSends, u.Settings.Timezone = 2, true, "Europe/Berlin"
		want := *u
		want.FullNameKey = store.FoldKey("Olivia Öwner")
		newUsers(t, st, u)
		is.True(u.ID > 0)                         // id filled in
		is.Equal(u.FullNameKey, want.FullNameKey) // FullNameKey set on the caller's value
		want.ID = u.ID
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.User(ctx, u.ID)
			is.NoErr(err)                  // user found
			is.Equal(normUser(*got), want) // every field, settings included, round-trips
		})
	}},
	{"AvatarSourceAndVersion", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		u := human(realm, "avatar@acme.test")
		u.AvatarVersion = 1
		newUsers(t, st, u)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			u.AvatarSource, u.AvatarVersion = "U", 7
			is.NoErr(tx.UpdateUser(ctx, u)) // an avatar upload
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.User(ctx, u.ID)
			is.NoErr(err)
			is.Equal(got.AvatarSource, "U") // the source round-trips
			is.Equal(got.AvatarVersion, 7)  // and so does the version
		})
	}},
	{"ByEmailCaseInsensitive", func(t *testing.T, st store.Store) {
		is := is.New(t)
		acme, other := newRealm(t, st, "acme"), newRealm(t, st, "other")
		ids := newUsers(t, st, human(acme, "Alice@Example.COM"), human(acme, "straße@example.com"),
			human(other, "alice@example.com"))
		view(t, st, func(ctx context.Context, tx store.Tx) {
			for _, tc := range []struct {
				realm store.RealmID
				email string
				want  store.UserID
			}{
				{acme, "alice@example.com", ids[0]},
				{acme, "ALICE@EXAMPLE.COM", ids[0]},
				{acme, "STRASSE@EXAMPLE.COM", ids[1]},
				{acme, "Straße@Example.com", ids[1]},
				{other, "Alice@Example.com", ids[2]},
			} {
				u, err := tx.UserByEmail(ctx, tc.realm, tc.email)
				is.NoErr(err)           // e-mail found case-insensitively
				is.Equal(u.ID, tc.want) // the user of that realm
			}
			_, err := tx.UserByEmail(ctx, other, "strasse@example.com")
			is.True(errors.Is(err, store.ErrNotFound)) // e-mails of another realm are not found
			_, err = tx.UserByEmail(ctx, acme, "bob@example.com")
			is.True(errors.Is(err, store.ErrNotFound)) // unknown e-mail
		})
	}},
	{"ByAPIKeyHash", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		ids := newUsers(t, st, human(realm, "a@x.test"), human(realm, "b@x.test"))
		view(t, st, func(ctx context.Context, tx store.Tx) {
			u, err := tx.UserByAPIKeyHash(ctx, keyHash("b@x.test"))
			is.NoErr(err)          // hash found
			is.Equal(u.ID, ids[1]) // the user holding the hash
			_, err = tx.UserByAPIKeyHash(ctx, keyHash("nobody"))
			is.True(errors.Is(err, store.ErrNotFound)) // unknown hash
		})
	}},
	{"KeyHolder", func(t *testing.T, st store.Store) {
		is := is.New(t)
		acme, other := newRealm(t, st, "acme"), newRealm(t, st, "other")
		ids := newUsers(t, st, human(acme, "a@x.test"), human(other, "b@x.test"))
		ctx := context.Background()
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.AddLoginKey(ctx, &store.LoginKey{Hash: "login-hash", UserID: ids[1], Created: epoch})) // a login key of b
		})
		holder := func(hash string) (store.KeyHolder, error) {
			var k store.KeyHolder
			err := st.View(ctx, func(tx store.Tx) error {
				var err error
				k, err = tx.KeyHolder(ctx, hash)
				return err
			})
			return k, err
		}
		k, err := holder(keyHash("a@x.test"))
		is.NoErr(err)                // the user's own key
		is.Equal(k.User.ID, ids[0])  // its user
		is.True(k.OwnKey)            // read as their own key
		is.True(!k.RealmDeactivated) // of an active realm
		k, err = holder("login-hash")
		is.NoErr(err)                      // a login key
		is.Equal(k.User.ID, ids[1])        // its user
		is.True(!k.OwnKey)                 // not their own key
		is.Equal(k.User.Email, "b@x.test") // the whole user read
		for _, h := range []string{"", keyHash("nobody")} {
			_, err = holder(h)
			is.True(errors.Is(err, store.ErrNotFound)) // no user holds the hash
		}
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.Realm(ctx, other) // a store that caches rows now holds the realm
			is.NoErr(err)
		})
		_, err = holder(keyHash("b@x.test")) // and b by their key
		is.NoErr(err)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			r, err := tx.Realm(ctx, other)
			is.NoErr(err)
			r.Deactivated = true
			is.NoErr(tx.UpdateRealm(ctx, r)) // the realm of b deactivated
		})
		for _, h := range []string{keyHash("b@x.test"), "login-hash"} {
			k, err = holder(h)
			is.NoErr(err)               // the key still found
			is.True(k.RealmDeactivated) // its realm's deactivation seen at once
		}
		k, err = holder(keyHash("a@x.test"))
		is.NoErr(err)
		is.True(!k.RealmDeactivated) // another realm unaffected
	}},
	{"NotFound", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		ctx := context.Background()
		view(t, st, func(ctx context.Context, tx store.Tx) {
			_, err := tx.User(ctx, 12345)
			is.True(errors.Is(err, store.ErrNotFound)) // unknown user id
		})
		err := st.Update(ctx, func(tx store.Tx) error {
			u := human(realm, "ghost@x.test")
			u.ID = 12345
			return tx.UpdateUser(ctx, u)
		})
		is.True(errors.Is(err, store.ErrNotFound)) // updating an unknown user
		err = st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateUser(ctx, human(realm+100, "a@x.test"))
		})
		is.True(errors.Is(err, store.ErrNotFound)) // creating a user in an unknown realm
	}},
	{"CreateConflicts", func(t *testing.T, st store.Store) {
		is := is.New(t)
		acme, other := newRealm(t, st, "acme"), newRealm(t, st, "other")
		ids := newUsers(t, st, human(acme, "Alice@x.test"))
		ctx := context.Background()
		create := func(u *store.User) error {
			return st.Update(ctx, func(tx store.Tx) error { return tx.CreateUser(ctx, u) })
		}
		dupID := human(acme, "new@x.test")
		dupID.ID = ids[0]
		is.True(errors.Is(create(dupID), store.ErrConflict)) // duplicate id
		dupMail := human(acme, "ALICE@X.TEST")
		is.True(errors.Is(create(dupMail), store.ErrConflict)) // duplicate e-mail, compared case-insensitively
		dupKey := human(acme, "carol@x.test")
		dupKey.APIKeyHash = keyHash("Alice@x.test")
		is.True(errors.Is(create(dupKey), store.ErrConflict)) // duplicate API key hash
		is.NoErr(create(human(other, "alice@x.test")))        // the same e-mail in another realm is fine
	}},
	{"Update", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		ids := newUsers(t, st, human(realm, "a@x.test"), human(realm, "b@x.test"))
		update(t, st, func(ctx context.Context, tx store.Tx) {
			u, err := tx.User(ctx, ids[0])
			is.NoErr(err) // user found
			u.Email, u.FullName, u.Role, u.IsActive = "New@x.test", "ÄBC Name", store.RoleModerator, false
			u.APIKeyHash = "new-hash"
			u.Settings.WebFontSizePx, u.Settings.DefaultLanguage = 20, "de"
			is.NoErr(tx.UpdateUser(ctx, u)) // user updated
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			u, err := tx.User(ctx, ids[0])
			is.NoErr(err)                                      // user found
			is.Equal(u.Email, "New@x.test")                    // e-mail stored
			is.Equal(u.FullNameKey, store.FoldKey("äbc name")) // FullNameKey follows the new name
			is.Equal(u.Role, store.RoleModerator)              // role stored
			is.Equal(u.IsActive, false)                        // deactivation stored
			is.Equal(u.Settings.WebFontSizePx, 20)             // int setting stored
			is.Equal(u.Settings.DefaultLanguage, "de")         // string setting stored
			_, err = tx.UserByEmail(ctx, realm, "a@x.test")
			is.True(errors.Is(err, store.ErrNotFound)) // the old e-mail is free
			got, err := tx.UserByEmail(ctx, realm, "new@X.test")
			is.NoErr(err)            // the new e-mail is found
			is.Equal(got.ID, ids[0]) // by the same user
			got, err = tx.UserByAPIKeyHash(ctx, "new-hash")
			is.NoErr(err)            // the new API key hash is found
			is.Equal(got.ID, ids[0]) // by the same user
			_, err = tx.UserByAPIKeyHash(ctx, keyHash("a@x.test"))
			is.True(errors.Is(err, store.ErrNotFound)) // the old API key hash is gone
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			u, err := tx.User(ctx, ids[1])
			if err != nil {
				return err
			}
			u.Email = "NEW@x.test"
			return tx.UpdateUser(ctx, u)
		})
		is.True(errors.Is(err, store.ErrConflict)) // another user's e-mail
		err = st.Update(ctx, func(tx store.Tx) error {
			u, err := tx.User(ctx, ids[1])
			if err != nil {
				return err
			}
			u.APIKeyHash = "new-hash"
			return tx.UpdateUser(ctx, u)
		})
		is.True(errors.Is(err, store.ErrConflict)) // another user's API key hash
		create := st.Update(ctx, func(tx store.Tx) error { return tx.CreateUser(ctx, human(realm, "A@x.test")) })
		is.NoErr(create) // the freed e-mail can be used again
	}},
	{"ExplicitIDsAndNextID", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		a, b := human(realm, "a@x.test"), human(realm, "b@x.test")
		a.ID, b.ID = 50, 20
		newUsers(t, st, a, b)
		is.Equal(a.ID, store.UserID(50)) // explicit id kept
		is.Equal(b.ID, store.UserID(20)) // explicit id below the maximum kept
		c := human(realm, "c@x.test")
		newUsers(t, st, c)
		is.True(c.ID > 50) // next id is above every id used
	}},
	{"Filter", func(t *testing.T, st store.Store) {
		is := is.New(t)
		acme, other := newRealm(t, st, "acme"), newRealm(t, st, "other")
		owner, admin, guest, gone := human(acme, "o@x.test"), human(acme, "a@x.test"), human(acme, "g@x.test"), human(acme, "d@x.test")
		owner.ID, admin.ID, guest.ID, gone.ID = 40, 10, 30, 20
		owner.Role, admin.Role, guest.Role = store.RoleOwner, store.RoleAdministrator, store.RoleGuest
		gone.IsActive = false
		admin.FullName = "Same Name"
		guest.FullName = "SAME NAME"
		owner.Settings.Timezone, admin.Settings.EmailAddressVisibility = "Europe/Berlin", 3
		owner.Settings.EnterSends = !owner.Settings.EnterSends // a setting a profile listing may leave out
		b := bot(acme, "bot@x.test", 40)
		b.ID = 50
		b2 := bot(acme, "bot2@x.test", 10)
		b2.ID = 60
		outsider := human(other, "out@x.test")
		outsider.ID = 70
		newUsers(t, st, owner, admin, guest, gone, b, b2, outsider)
		for _, tc := range []struct {
			name string
			f    store.UserFilter
			want []store.UserID
		}{
			{"realm", store.UserFilter{RealmID: acme}, []store.UserID{10, 20, 30, 40, 50, 60}},
			{"every realm", store.UserFilter{}, []store.UserID{10, 20, 30, 40, 50, 60, 70}},
			{"ids", store.UserFilter{RealmID: acme, IDs: []store.UserID{50, 10, 70, 999}}, []store.UserID{10, 50}},
			{"empty ids", store.UserFilter{RealmID: acme, IDs: []store.UserID{}}, nil},
			{"roles", store.UserFilter{RealmID: acme, Roles: []store.Role{store.RoleOwner, store.RoleGuest}}, []store.UserID{30, 40}},
			{"active", store.UserFilter{RealmID: acme, Active: ptr(true)}, []store.UserID{10, 30, 40, 50, 60}},
			{"inactive", store.UserFilter{RealmID: acme, Active: ptr(false)}, []store.UserID{20}},
			{"bots", store.UserFilter{RealmID: acme, Bot: ptr(true)}, []store.UserID{50, 60}},
			{"humans", store.UserFilter{RealmID: acme, Bot: ptr(false)}, []store.UserID{10, 20, 30, 40}},
			{"bot owner", store.UserFilter{RealmID: acme, BotOwnerID: 40}, []store.UserID{50}},
			{"full name key", store.UserFilter{RealmID: acme, FullNameKey: store.FoldKey("same name")}, []store.UserID{10, 30}},
			{"combined", store.UserFilter{RealmID: acme, Active: ptr(true), Bot: ptr(false), Roles: []store.Role{store.RoleGuest, store.RoleMember}}, []store.UserID{30}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				view(t, st, func(ctx context.Context, tx store.Tx) {
					users, err := tx.Users(ctx, tc.f)
					is.NoErr(err)                              // users listed
					is.Equal(userIDs(users), list(tc.want...)) // matching users ordered by id
					// The same filter as a profile listing: the same users,
					// equal but for the settings others do not see.
					pf := tc.f
					pf.Profile = true
					profiles, err := tx.Users(ctx, pf)
					is.NoErr(err) // profiles listed
					is.Equal(len(profiles), len(users))
					for i := range users {
						want, got := users[i], profiles[i]
						want.Settings, got.Settings = store.Settings{}, store.Settings{}
						is.Equal(got, want) // every user column read
						is.Equal(profiles[i].Settings.Timezone, users[i].Settings.Timezone)
						is.Equal(profiles[i].Settings.EmailAddressVisibility, users[i].Settings.EmailAddressVisibility)
					}
				})
			})
		}
	}},
	{"BotServices", func(t *testing.T, st store.Store) {
		is := is.New(t)
		realm := newRealm(t, st, "acme")
		ids := newUsers(t, st, human(realm, "o@x.test"))
		bots := newUsers(t, st, bot(realm, "b1@x.test", ids[0]), bot(realm, "b2@x.test", ids[0]))
		s2 := &store.BotService{ID: 9, BotID: bots[0], Name: "second", BaseURL: "http://b/", Token: "t2", Interface: "slack"}
		s1 := &store.BotService{BotID: bots[0], Name: "first", BaseURL: "http://a/", Token: "t1", Interface: "generic"}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.CreateBotService(ctx, s2)) // service with explicit id created
			is.NoErr(tx.CreateBotService(ctx, s1)) // service with zero id created
		})
		is.Equal(s2.ID, store.BotServiceID(9)) // explicit id kept
		is.True(s1.ID > 9)                     // next id above every id used
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.BotServices(ctx, bots[0])
			is.NoErr(err)                               // services listed
			is.Equal(got, []store.BotService{*s2, *s1}) // ordered by id, every field stored
			got, err = tx.BotServices(ctx, bots[1])
			is.NoErr(err)         // services listed
			is.Equal(len(got), 0) // a bot without services has none
		})
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			return tx.CreateBotService(ctx, &store.BotService{BotID: 4242, Name: "x"})
		})
		is.True(errors.Is(err, store.ErrNotFound)) // unknown bot
	}},
}
