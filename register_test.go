package chatcore_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

func TestServerSettings(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	for _, tt := range []struct {
		realm, want string
	}{
		{"", "Acme"}, // the realm with the lowest id
		{"globex", "Globex"},
		{"nowhere", ""},
	} {
		is := is.New(t)
		got, err := svc.ServerSettings(t.Context(), tt.realm)
		is.NoErr(err)                    // no realm is not an error
		is.Equal(got.RealmName, tt.want) // the realm's name
	}
	is := is.New(t)
	got, err := chatcore.New(memory.New()).ServerSettings(t.Context(), "")
	is.NoErr(err)                            // an empty store answers too
	is.Equal(got, chatcore.ServerSettings{}) // with nothing to say
}

func TestAuthorize(t *testing.T) {
	bot := &chatcore.User{Role: chatcore.RoleMember, IsBot: true}
	adminBot := &chatcore.User{Role: chatcore.RoleAdministrator, IsBot: true}
	member := &chatcore.User{Role: chatcore.RoleMember}
	moderator := &chatcore.User{Role: chatcore.RoleModerator}
	owner := &chatcore.User{Role: chatcore.RoleOwner}
	const notForBots, notAdmin = "This endpoint does not accept bot requests.", "Must be an organization administrator"
	for _, tt := range []struct {
		name   string
		u      *chatcore.User
		access chatcore.Access
		code   chatcore.Code // "" for allowed
		msg    string
	}{
		{"bot, any", bot, chatcore.AccessAny, "", ""},
		{"bot, human", bot, chatcore.AccessHuman, chatcore.CodeBadRequest, notForBots},
		{"member, human", member, chatcore.AccessHuman, "", ""},
		{"member, admin", member, chatcore.AccessAdmin, chatcore.CodeUnauthorizedPrincipal, notAdmin},
		{"moderator, admin", moderator, chatcore.AccessAdmin, chatcore.CodeUnauthorizedPrincipal, notAdmin},
		{"owner, admin", owner, chatcore.AccessAdmin, "", ""},
		{"administrator bot, admin", adminBot, chatcore.AccessAdmin, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := chatcore.Authorize(tt.u, tt.access)
			if tt.code == "" {
				is.New(t).NoErr(err) // allowed
				return
			}
			chattest.WantError(t, err, tt.code, chatcore.KindInvalid, tt.msg)
		})
	}
}
