package sqlite_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// TestUserSettingsRoundTrip stores a user whose text settings hold what JSON
// escapes (quotes, backslashes, control and non-ASCII characters) and whose
// numbers are negative or large, and reads the settings back unchanged, as
// one user and in a list: the settings travel as one json_array column.
func TestUserSettingsRoundTrip(t *testing.T) {
	is := is.New(t)
	s, _ := open(t)
	ctx := context.Background()
	u := human(0, "odd@example.com")
	u.Settings.Timezone = "Quote\" back\\slash\nnew\tline é ☃ \u0001"
	u.Settings.DefaultLanguage = `\u00e9 "x"`
	u.Settings.Emojiset = ""
	u.Settings.ColorScheme = -7
	u.Settings.DesktopIconCountDisplay = 1 << 40
	u.Settings.EnterSends = true
	var got *store.User
	var list []store.User
	update(t, s, func(ctx context.Context, tx store.Tx) error {
		r := &store.Realm{StringID: "odd", Name: "Odd", DateCreated: epoch}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		u.RealmID = r.ID
		return tx.CreateUser(ctx, u)
	})
	is.NoErr(s.View(ctx, func(tx store.Tx) error {
		var err error
		if got, err = tx.User(ctx, u.ID); err != nil {
			return err
		}
		list, err = tx.Users(ctx, store.UserFilter{RealmID: u.RealmID})
		return err
	}))
	is.Equal(got.Settings, u.Settings)     // one user's settings read back unchanged
	is.Equal(len(list), 1)                 // the list holds the user
	is.Equal(list[0].Settings, u.Settings) // with the same settings
}
