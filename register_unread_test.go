package chatcore_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// unread_msgs as Zulip's aggregate_unread_data builds it: topics grouped
// case-insensitively under their oldest unread message's name, the empty
// topic as "general chat" unless the client has empty_topic_name, and a muted
// channel's messages listed but neither counted nor wildcard-mentioned.
func TestRegisterUnreadTopicsAndMutedChannels(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, _ := newVerona(t, open)
		ctx := context.Background()
		lunch := sendTopic(t, w, org, org.Owner, "lunch", "pizza?")
		upper := sendTopic(t, w, org, org.Owner, "Lunch", "yes")
		empty := sendTopic(t, w, org, org.Owner, "", "no topic")
		unread := func(emptyTopicName bool) *messages.Unread {
			t.Helper()
			st, err := eventqueue.Register(ctx, w.Svc, org.Ham.ID, eventqueue.RegisterRequest{
				Sections: []string{"message", "update_message_flags"}, EmptyTopicName: emptyTopicName})
			is.NoErr(err)
			return st.Unread
		}
		u := unread(false)
		is.Equal(u.Count, 3)
		is.Equal(u.Streams, []messages.UnreadStreamTopic{
			{StreamID: org.General.ID, Topic: "general chat", UnreadMessageIDs: []chatcore.MessageID{empty}}, // the fallback name
			{StreamID: org.General.ID, Topic: "lunch", UnreadMessageIDs: []chatcore.MessageID{lunch, upper}}, // one topic, named by its oldest message
		})
		is.Equal(unread(true).Streams[0].Topic, "") // empty_topic_name keeps ""

		// Muting the channel: its messages stay listed, but are not counted and
		// their wildcard mentions are not mentions; a personal mention still is.
		// (The mention would make Ham follow lunch, which a muted channel
		// then counts: automatically_follow_topics_where_mentioned is off.)
		w.UpdateUser(t, org.Ham.ID, func(u *chatcore.User) { u.Settings.AutomaticallyFollowTopicsWhereMentioned = false })
		all := sendTopic(t, w, org, org.Owner, "lunch", "@**all** come")
		personal := sendTopic(t, w, org, org.Owner, "lunch", "@**ham** you too")
		u = unread(false)
		is.Equal(u.Count, 5)
		is.Equal(u.Mentions, []chatcore.MessageID{all, personal})
		is.NoErr(channels.UpdateProperties(ctx, w.Svc, org.Ham.ID, []channels.PropertyChange{
			{StreamID: org.General.ID, Property: "is_muted", Value: true}}))
		u = unread(false)
		is.Equal(u.Count, 0)
		is.Equal(u.Mentions, []chatcore.MessageID{personal})
		is.Equal(u.Streams[1].UnreadMessageIDs, []chatcore.MessageID{lunch, upper, all, personal}) // still listed
	})
}
