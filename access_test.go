package chatcore_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

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
