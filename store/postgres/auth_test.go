package postgres_test

import (
	"strings"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	realmadmin "github.com/chatcore/chatcore/realms"
)

// TestRealmDeactivationAcrossInstances: an owner deactivating their realm
// through one instance refuses the realm's next request on the other at
// once, its authentication being one read of the user with their realm's
// state.
func TestRealmDeactivationAcrossInstances(t *testing.T) {
	is := is.New(t)
	sa, sb := instances(t)
	w := chattest.New(t, chattest.OnStore(sa))
	other := chatcore.New(sb, chatcore.WithClock(w.Clock))
	realm := w.AddRealm(t, "gone")
	owner := w.AddUser(t, realm, "Olga", chatcore.RoleOwner)
	key := strings.Repeat("k", 32)
	member := w.AddUser(t, realm, "Max", chatcore.RoleMember, func(u *chatcore.User) { u.APIKeyHash = chatcore.HashAPIKey(key) })
	u, err := other.Authenticate(t.Context(), member.Email, key)
	is.NoErr(err)             // the other instance authenticates the member
	is.Equal(u.ID, member.ID) // as themselves
	is.NoErr(realmadmin.Deactivate(t.Context(), w.Svc, owner.ID))
	_, err = other.Authenticate(t.Context(), member.Email, key)
	chattest.WantError(t, err, chatcore.CodeRealmDeactivated, chatcore.KindUnauthenticated, "This organization has been deactivated")
}
