package messages_test

// Which messages a narrow reaches: only a narrow to one channel with readable
// history reaches messages the viewer never received; every other narrow, the
// combined feed included, keeps to the viewer's own messages.

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

func TestMessagesFeedKeepsToReceivedMessages(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := t.Context()
		w := open(t)
		c := w.SeedCast(t)
		general := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{c.Member, c.Admin}})
		other := w.AddChannel(t, chattest.Channel{Name: "other", Subscribers: []*chatcore.User{c.Admin}})
		a := w.Send(t, c.Admin, general, "t", "to general")
		dm := w.SendDM(t, c.Admin, "psst", c.Member)
		b := w.Send(t, c.Admin, other, "t", "to other")

		fetch := func(narrow ...messages.NarrowTerm) []chatcore.MessageView {
			t.Helper()
			res, err := messages.Get(ctx, w.Svc, c.Member.ID, messages.Request{
				Anchor: new("newest"), NumBefore: new(100), NumAfter: new(0), Narrow: narrow})
			is.NoErr(err)
			return res.Messages
		}
		is.Equal(viewIDs(fetch()), []chatcore.MessageID{a, dm})                                   // the combined feed leaves out the channel never subscribed to
		is.Equal(viewIDs(fetch(term("topic", `"t"`))), []chatcore.MessageID{a})                   // so does a narrow without a channel
		is.Equal(viewIDs(fetch(term("sender", `"iago@zulip.com"`))), []chatcore.MessageID{a, dm}) // and one by sender
		got := fetch(channelNarrow(other)...)
		is.Equal(viewIDs(got), []chatcore.MessageID{b})                                  // the channel's own narrow reads its history
		is.Equal(got[0].Flags, []string{"read", "historical"})                           // never received
		is.Equal(len(fetch(append(channelNarrow(other), term("is", `"unread"`))...)), 0) // a flag term keeps to received messages

		st, err := eventqueue.Register(ctx, w.Svc, c.Member.ID, eventqueue.RegisterRequest{Sections: []string{"message"}})
		is.NoErr(err)
		is.Equal(*st.MaxMessageID, dm) // the newest message received, not the newest readable

		// Starring the message stores a historical row: the feed now has it.
		_, err = messages.UpdateFlags(ctx, w.Svc, c.Member.ID, messages.UpdateFlagsRequest{
			Messages: []chatcore.MessageID{b}, Op: "add", Flag: "starred"})
		is.NoErr(err)
		is.Equal(viewIDs(fetch()), []chatcore.MessageID{a, dm, b})
		st, err = eventqueue.Register(ctx, w.Svc, c.Member.ID, eventqueue.RegisterRequest{Sections: []string{"message"}})
		is.NoErr(err)
		is.Equal(*st.MaxMessageID, b)
	})
}
