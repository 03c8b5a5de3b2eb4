package accounts_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// The realm-wide timezone update names the user by the address everyone
// may see: the stand-in one when the user hides theirs.
func TestTimezoneEventHonoursEmailVisibility(t *testing.T) {
	is := is.New(t)
	w, c := newSettingsCast(t, chattest.New)
	w.UpdateUser(t, c.Member.ID, func(u *chatcore.User) { u.Settings.EmailAddressVisibility = 4 }) // nobody
	is.NoErr(accounts.UpdateSettings(context.Background(), w.Svc, c.Member.ID, accounts.SettingsUpdate{Timezone: new("Europe/Paris")}))
	others := w.Events.OfType("realm_user")
	is.Equal(len(others), 1)
	person := others[0].Data["person"].(map[string]any)
	is.True(person["email"] != w.User(t, c.Member.ID).Email)          // not the real address
	is.Equal(person["email"], w.Svc.APIEmail(w.User(t, c.Member.ID))) // the stand-in
}
