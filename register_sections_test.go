package chatcore_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

func TestRegisterClientSections(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w := open(t)
		ctx := t.Context()
		realm := w.AddRealm(t, "acme")
		ann := w.AddUser(t, realm, "Ann", chatcore.RoleMember)
		gone := w.AddUser(t, realm, "Gone", chatcore.RoleMember, chattest.Deactivated)
		w.AddGroup(t, realm, "team", ann, gone)
		// The terminal client's fetch_event_types.
		sections := []string{"realm", "presence", "subscription", "message", "starred_messages", "update_message_flags",
			"muted_topics", "realm_user", "realm_user_groups", "user_settings", "realm_emoji", "custom_profile_fields", "zulip_version"}
		st, err := eventqueue.Register(ctx, w.Svc, ann.ID, eventqueue.RegisterRequest{Sections: sections, IncludeSubscribers: true})
		is.NoErr(err)
		is.Equal(*st.MaxMessageID, chatcore.MessageID(-1)) // no message yet: Zulip's -1
		is.Equal(len(st.Users.Active), 1)
		is.Equal(len(st.Users.NonActive), 1)
		is.Equal(st.Users.Me.FullName, "Ann")
		is.Equal(len(st.Groups), 1)
		is.Equal(st.Groups[0].Members, []chatcore.UserID{ann.ID}) // active members only
		is.Equal(len(st.MutedTopics), 0)
		is.True(st.MutedTopics != nil)         // present, empty
		is.True(st.UserTopics == nil)          // not asked for
		is.True(st.RealmEmoji != nil)          // present, empty
		is.True(st.CustomProfileFields != nil) // present, empty
		is.True(st.Subscriptions != nil && st.Unread != nil)
		both, err := eventqueue.Register(ctx, w.Svc, ann.ID, eventqueue.RegisterRequest{Sections: []string{"muted_topics", "user_topic"}})
		is.NoErr(err)
		is.True(both.MutedTopics == nil && both.UserTopics != nil) // user_topic supersedes muted_topics
	})
}
