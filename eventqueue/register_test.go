package eventqueue_test

import (
	"context"
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

// usersCountingStore wraps a Store and records the realm-wide user
// listings (Users without an id list) its read transactions make, as
// whether each was a Profile read.
type usersCountingStore struct {
	chatcore.Store
	listings []bool
}

func (s *usersCountingStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.View(ctx, func(tx chatcore.Tx) error { return fn(usersCountingTx{tx, s}) })
}

type usersCountingTx struct {
	chatcore.Tx
	s *usersCountingStore
}

func (t usersCountingTx) Users(ctx context.Context, f chatcore.UserFilter) ([]chatcore.User, error) {
	if f.IDs == nil {
		t.s.listings = append(t.s.listings, f.Profile)
	}
	return t.Tx.Users(ctx, f)
}

// TestRegisterListsTheRealmsUsersOnce: realm_user and realm_user_groups
// share one listing of the realm's users, without their own settings
// (each user's settings is most of a users row, and a realm has thousands).
func TestRegisterListsTheRealmsUsersOnce(t *testing.T) {
	is := is.New(t)
	counting := &usersCountingStore{Store: memory.New()}
	svc := chattest.LoadWorld(t, counting)
	counting.listings = nil
	st, err := eventqueue.Register(t.Context(), svc, chattest.WorldMember, eventqueue.RegisterRequest{Sections: []string{"realm_user", "realm_user_groups"}})
	is.NoErr(err)
	is.Equal(counting.listings, []bool{true}) // one listing, a Profile read
	is.True(len(st.Users.Active) > 1)         // every active user
	members := 0
	for _, g := range st.Groups {
		members += len(g.Members)
	}
	is.True(members > 0) // the groups' members, from the same listing
}
