package messages_test

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

func TestSearchNarrowsThroughTheGoAPI(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := t.Context()
		w := open(t)
		c := w.SeedCast(t)
		general := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{c.Member, c.Admin}})
		secret := w.AddChannel(t, chattest.Channel{Name: "secret", InviteOnly: true, Subscribers: []*chatcore.User{c.Admin}})
		unjoined := w.AddChannel(t, chattest.Channel{Name: "unjoined", Subscribers: []*chatcore.User{c.Admin}})
		late := w.Send(t, c.Admin, general, "plans", "Running late today")
		pizza := w.Send(t, c.Member, general, "Pizza", "who brings drinks?")
		w.Send(t, c.Admin, secret, "plans", "running in secret")
		history := w.Send(t, c.Admin, unjoined, "plans", "running everywhere")
		dm := w.SendDM(t, c.Admin, "late runs", c.Member)

		fetch := func(narrow ...messages.NarrowTerm) []chatcore.MessageView {
			t.Helper()
			res, err := messages.Get(ctx, w.Svc, c.Member.ID, messages.Request{
				Anchor: new("newest"), NumBefore: new(100), NumAfter: new(0), Narrow: narrow})
			is.NoErr(err)
			return res.Messages
		}
		got := fetch(messages.SearchTerm("RUNS"))
		is.Equal(viewIDs(got), []chatcore.MessageID{late, dm}) // stemmed, any case; never the private channel nor an unjoined one
		is.Equal(*got[0].MatchContent, `<p><span class="highlight">Running</span> late today</p>`)
		is.Equal(*got[0].MatchSubject, "plans")
		is.Equal(viewIDs(fetch(messages.ChannelsTerm(messages.ChannelsPublic), messages.SearchTerm("running"))),
			[]chatcore.MessageID{late, history}) // channels:public reads every public channel's history
		is.Equal(viewIDs(fetch(messages.ChannelTerm(general.ID), messages.SearchTerm("pizza"))), []chatcore.MessageID{pizza}) // a topic match
		is.Equal(viewIDs(fetch(messages.SearchTerm(`"late today"`))), []chatcore.MessageID{late})                             // a phrase
		is.Equal(viewIDs(fetch(messages.SearchTerm("late"), messages.IsTerm(messages.IsDM).Not())), []chatcore.MessageID{late})
		is.Equal(viewIDs(fetch(messages.SearchTerm("late"), messages.SenderTerm(c.Admin.ID).Not())), []chatcore.MessageID{})
		is.Equal(viewIDs(fetch(messages.ChannelTerm(general.ID), messages.TopicTerm("pizza").Not())), []chatcore.MessageID{late})
		is.Equal(viewIDs(fetch(messages.IDTerm(pizza))), []chatcore.MessageID{pizza})
		is.Equal(viewIDs(fetch(messages.DMTerm(c.Admin.ID).Not(), messages.InTerm(messages.InAll))), []chatcore.MessageID{late, pizza})

		res, err := messages.Get(ctx, w.Svc, c.Member.ID, messages.Request{NumBefore: new(0), NumAfter: new(0),
			Narrow: []messages.NarrowTerm{messages.NearTerm(pizza)}})
		is.NoErr(err)
		is.Equal(res.Anchor, pizza) // near is the anchor of a request without one

		// An edit re-indexes the message; its old words no longer match.
		_, err = messages.UpdateFlags(ctx, w.Svc, c.Member.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{late}, Op: "add", Flag: "starred"})
		is.NoErr(err)
		is.Equal(viewIDs(fetch(messages.SearchTerm("late"), messages.IsTerm(messages.IsStarred))), []chatcore.MessageID{late})
		is.Equal(viewIDs(fetch(messages.SearchTerm("late"), messages.IsTerm(messages.IsStarred).Not())), []chatcore.MessageID{dm})

		m, err := messages.MatchesNarrow(ctx, w.Svc, c.Member.ID, messages.MatchesNarrowRequest{
			MsgIDs: []chatcore.MessageID{late, pizza, history}, Narrow: []messages.NarrowTerm{messages.SearchTerm("running")}})
		is.NoErr(err)
		is.Equal(len(m.Messages), 1) // late; history was never received
		is.Equal(m.Messages[late].MatchContent, `<p><span class="highlight">Running</span> late today</p>`)
	})
}
