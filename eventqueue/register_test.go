package eventqueue_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

func TestRegister(t *testing.T) {
	svc := chattest.LoadWorld(t, memory.New())
	t.Run("every section", func(t *testing.T) {
		is := is.New(t)
		st, err := eventqueue.Register(t.Context(), svc, chattest.WorldMember, eventqueue.RegisterRequest{})
		is.NoErr(err)                                                             // a member registers
		is.Equal(*st.UserID, chattest.WorldMember)                                // realm_user: the actor's id
		is.Equal(st.Realm.Name, "Acme")                                           // realm: the actor's realm
		is.Equal(st.Realm.EmptyTopicDisplayName, "general chat")                  // Zulip's default name of the empty topic
		is.Equal(st.Realm.MaxReminderNoteLength, scheduled.MaxReminderNoteLength) // the note bound
		is.True(st.Settings != nil)                                               // user_settings
		is.Equal(len(st.Linkifiers), 1)                                           // the realm's linkifier
		is.Equal(len(st.ScheduledMessages), 2)                                    // the member's two scheduled messages
		is.Equal(len(st.Reminders), 1)                                            // the member's reminder
	})
	t.Run("only the sections asked for", func(t *testing.T) {
		is := is.New(t)
		st, err := eventqueue.Register(t.Context(), svc, chattest.WorldAdmin, eventqueue.RegisterRequest{Sections: []string{"reminders", "presence"}})
		is.NoErr(err)                        // unknown section names are accepted
		is.True(st.Reminders != nil)         // asked for: present even when empty
		is.Equal(len(st.Reminders), 0)       // the administrator has none
		is.True(st.UserID == nil)            // not asked for
		is.True(st.Realm == nil)             // not asked for
		is.True(st.Settings == nil)          // not asked for
		is.True(st.Linkifiers == nil)        // not asked for
		is.True(st.ScheduledMessages == nil) // not asked for
		none, err := eventqueue.Register(t.Context(), svc, chattest.WorldAdmin, eventqueue.RegisterRequest{Sections: []string{}})
		is.NoErr(err)                      // an empty list is a valid request
		is.Equal(none, eventqueue.State{}) // and asks for nothing
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
				_, err := eventqueue.Register(t.Context(), svc, tt.actor, eventqueue.RegisterRequest{AllPublicStreams: tt.all, Sections: []string{}})
				if tt.msg == "" {
					is.New(t).NoErr(err) // allowed
					return
				}
				chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
			})
		}
	})
	t.Run("unknown actor", func(t *testing.T) {
		_, err := eventqueue.Register(t.Context(), svc, 9999, eventqueue.RegisterRequest{})
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Invalid API key")
	})
}
