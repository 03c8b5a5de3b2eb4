package chatcore_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

func TestRegister(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	t.Run("every section", func(t *testing.T) {
		is := is.New(t)
		st, err := svc.Register(t.Context(), chattest.WorldMember, chatcore.RegisterRequest{})
		is.NoErr(err)                                                            // a member registers
		is.Equal(*st.UserID, chattest.WorldMember)                               // realm_user: the actor's id
		is.Equal(st.Realm.Name, "Acme")                                          // realm: the actor's realm
		is.Equal(st.Realm.EmptyTopicDisplayName, "general chat")                 // Zulip's default name of the empty topic
		is.Equal(st.Realm.MaxReminderNoteLength, chatcore.MaxReminderNoteLength) // the note bound
		is.True(st.Settings != nil)                                              // user_settings
		is.Equal(len(st.Linkifiers), 1)                                          // the realm's linkifier
		is.Equal(len(st.ScheduledMessages), 2)                                   // the member's two scheduled messages
		is.Equal(len(st.Reminders), 1)                                           // the member's reminder
	})
	t.Run("only the sections asked for", func(t *testing.T) {
		is := is.New(t)
		st, err := svc.Register(t.Context(), chattest.WorldAdmin, chatcore.RegisterRequest{Sections: []string{"reminders", "presence"}})
		is.NoErr(err)                        // unknown section names are accepted
		is.True(st.Reminders != nil)         // asked for: present even when empty
		is.Equal(len(st.Reminders), 0)       // the administrator has none
		is.True(st.UserID == nil)            // not asked for
		is.True(st.Realm == nil)             // not asked for
		is.True(st.Settings == nil)          // not asked for
		is.True(st.Linkifiers == nil)        // not asked for
		is.True(st.ScheduledMessages == nil) // not asked for
		none, err := svc.Register(t.Context(), chattest.WorldAdmin, chatcore.RegisterRequest{Sections: []string{}})
		is.NoErr(err)                            // an empty list is a valid request
		is.Equal(none, chatcore.RegisterState{}) // and asks for nothing
	})
	t.Run("all public streams", func(t *testing.T) {
		for _, tt := range []struct {
			name  string
			actor chatcore.UserID
			all   bool
			msg   string
		}{
			{"guest asking", chattest.WorldGuest, true, "User not authorized for this query"},
			{"guest not asking", chattest.WorldGuest, false, ""},
			{"member asking", chattest.WorldMember, true, ""},
		} {
			t.Run(tt.name, func(t *testing.T) {
				_, err := svc.Register(t.Context(), tt.actor, chatcore.RegisterRequest{AllPublicStreams: tt.all, Sections: []string{}})
				if tt.msg == "" {
					is.New(t).NoErr(err) // allowed
					return
				}
				chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
			})
		}
	})
	t.Run("unknown actor", func(t *testing.T) {
		_, err := svc.Register(t.Context(), 9999, chatcore.RegisterRequest{})
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Invalid API key")
	})
}

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
