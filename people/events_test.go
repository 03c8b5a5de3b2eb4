package people_test

import (
	"context"
	"slices"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/people"
	"github.com/matryer/is"
)

// The realm_user add event of an account applies its
// email_address_visibility: those who may see the address get it, the
// others a stand-in address and no delivery_email.
func TestUserAddEventsApplyEmailVisibility(t *testing.T) {
	is := is.New(t)
	w := chattest.New(t)
	realm := w.AddRealm(t, "acme")
	admin := w.AddUser(t, realm, "Ada Admin", chatcore.RoleAdministrator)
	mod := w.AddUser(t, realm, "Mo Mod", chatcore.RoleModerator)
	member := w.AddUser(t, realm, "Mia Member", chatcore.RoleMember)
	err := w.Svc.Update(t.Context(), func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u := &chatcore.User{RealmID: realm.ID, Email: "hidden@example.test", FullName: "Hidden", FullNameKey: chatcore.FoldKey("Hidden"),
			Role: chatcore.RoleMember, IsActive: true, APIKeyHash: chatcore.HashAPIKey("x"), AvatarSource: "G",
			Settings: chatcore.DefaultSettings()}
		u.Settings.EmailAddressVisibility = 3 // administrators only
		if err := tx.CreateUser(context.Background(), u); err != nil {
			return err
		}
		return people.UserAddEvents(t.Context(), w.Svc, tx, fx, u)
	})
	is.NoErr(err)
	adds := w.Events.OfType("realm_user", "op", "add")
	is.Equal(len(adds), 2) // one for those who see the address, one for the others
	for _, ev := range adds {
		p := ev.Data["person"].(chatcore.UserView)
		if p.DeliveryEmail != nil {
			is.Equal(*p.DeliveryEmail, "hidden@example.test")
			is.True(slices.Contains(ev.UserIDs, admin.ID))                                           // the administrator sees it
			is.True(!slices.Contains(ev.UserIDs, mod.ID) && !slices.Contains(ev.UserIDs, member.ID)) // nobody else
			is.Equal(len(ev.UserIDs), 2)                                                             // the administrator and the user
		} else {
			is.True(p.Email != "hidden@example.test")                                              // a stand-in address
			is.True(slices.Contains(ev.UserIDs, mod.ID) && slices.Contains(ev.UserIDs, member.ID)) // to the others
		}
	}
}
