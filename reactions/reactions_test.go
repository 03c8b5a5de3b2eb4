package reactions_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/reactions"
	"github.com/matryer/is"
)

func TestReactionsAddAndRemove(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := t.Context()
		w := open(t)
		c := w.SeedCast(t)
		general := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{c.Member, c.Admin, c.Guest}})
		id := w.Send(t, c.Admin, general, "t", "hello")

		// The name alone is enough: code and type are looked up.
		is.NoErr(reactions.Add(ctx, w.Svc, c.Member.ID, id, reactions.AddRequest{EmojiName: "octopus"}))
		// A full triple, and an alias of a Unicode emoji.
		is.NoErr(reactions.Add(ctx, w.Svc, c.Admin.ID, id, reactions.AddRequest{EmojiName: "thumbs_up", EmojiCode: new("1f44d"), ReactionType: new("unicode_emoji")}))
		// The zulip extra emoji.
		is.NoErr(reactions.Add(ctx, w.Svc, c.Member.ID, id, reactions.AddRequest{EmojiName: "zulip"}))
		// A vote for an existing reaction takes its name, whatever this one says.
		is.NoErr(reactions.Add(ctx, w.Svc, c.Member.ID, id, reactions.AddRequest{EmojiName: "+1", EmojiCode: new("1f44d"), ReactionType: new("unicode_emoji")}))

		want := []chatcore.Reaction{
			{UserID: c.Member.ID, EmojiName: "octopus", EmojiCode: "1f419", ReactionType: "unicode_emoji"},
			{UserID: c.Admin.ID, EmojiName: "thumbs_up", EmojiCode: "1f44d", ReactionType: "unicode_emoji"},
			{UserID: c.Member.ID, EmojiName: "zulip", EmojiCode: "zulip", ReactionType: "zulip_extra_emoji"},
			{UserID: c.Member.ID, EmojiName: "thumbs_up", EmojiCode: "1f44d", ReactionType: "unicode_emoji"},
		}
		is.Equal(chattest.MessageAs(t, w.Svc, c.Guest, id).Reactions, want) // every viewer sees them, in order

		// GET /messages shows them on every message.
		res, err := messages.Get(ctx, w.Svc, c.Member.ID, messages.Request{Anchor: new("newest"), NumBefore: new(5), NumAfter: new(0)})
		is.NoErr(err)
		is.Equal(res.Messages[len(res.Messages)-1].Reactions, want)

		evs := w.Events.OfType("reaction", "op", "add")
		is.Equal(len(evs), 4) // one event per reaction
		is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Admin.ID, c.Member.ID, c.Guest.ID})
		user := evs[0].Data["user"].(map[string]any)
		is.Equal(user["user_id"], c.Member.ID)     // the reacting user
		is.Equal(user["full_name"], "King Hamlet") // with their name
		is.True(user["email"] != "")               // and API e-mail
		delete(evs[0].Data, "user")
		is.Equal(evs[0].Data, map[string]any{
			"type": "reaction", "op": "add", "user_id": c.Member.ID,
			"message_id": id, "emoji_name": "octopus", "emoji_code": "1f419", "reaction_type": "unicode_emoji",
		})
		is.Equal(evs[3].Data["emoji_name"], "thumbs_up") // the vote's name

		// Removal by name looks the code up; the type defaults to unicode_emoji.
		w.Events.Reset()
		is.NoErr(reactions.Remove(ctx, w.Svc, c.Member.ID, id, reactions.RemoveRequest{EmojiName: new("octopus")}))
		is.NoErr(reactions.Remove(ctx, w.Svc, c.Member.ID, id, reactions.RemoveRequest{EmojiCode: new("zulip"), ReactionType: new("zulip_extra_emoji")}))
		// A name the user's reaction does not carry still finds it by code.
		is.NoErr(reactions.Remove(ctx, w.Svc, c.Member.ID, id, reactions.RemoveRequest{EmojiName: new("+1")}))
		is.Equal(chattest.MessageAs(t, w.Svc, c.Member, id).Reactions, want[1:2])
		evs = w.Events.OfType("reaction", "op", "remove")
		is.Equal(len(evs), 3)
		is.Equal(evs[2].Data["emoji_name"], "thumbs_up") // the removed reaction's own name
		is.Equal(evs[1].Data["reaction_type"], "zulip_extra_emoji")
	})
}

func TestReactionErrors(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := t.Context()
		w := open(t)
		c := w.SeedCast(t)
		general := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{c.Member, c.Admin}})
		secret := w.AddChannel(t, chattest.Channel{Name: "secret", InviteOnly: true, Subscribers: []*chatcore.User{c.Admin}})
		old := w.AddChannel(t, chattest.Channel{Name: "old", Archived: true, Subscribers: []*chatcore.User{c.Member}})
		id := w.Send(t, c.Admin, general, "t", "hello")
		hidden := w.Send(t, c.Admin, secret, "t", "hush")
		archived := w.Post(t, old, "t", c.Member, "dusty")
		dm := w.DM(t, c.Admin, "psst", c.Owner)
		elsewhere := w.AddChannel(t, chattest.Channel{Name: "lear", Subscribers: []*chatcore.User{c.Stranger}})
		foreign := w.Send(t, c.Stranger, elsewhere, "t", "hi")
		add := func(user *chatcore.User, msg chatcore.MessageID, name string, code, typ *string) error {
			return reactions.Add(ctx, w.Svc, user.ID, msg, reactions.AddRequest{EmojiName: name, EmojiCode: code, ReactionType: typ})
		}
		bad := func(err error, msg string) {
			t.Helper()
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, msg)
		}
		for _, m := range []chatcore.MessageID{hidden, archived, dm, foreign, 999999} {
			bad(add(c.Member, m, "octopus", nil, nil), "Invalid message(s)")
			bad(reactions.Remove(ctx, w.Svc, c.Member.ID, m, reactions.RemoveRequest{EmojiName: new("octopus")}), "Invalid message(s)")
		}
		bad(add(c.Guest, id, "octopus", nil, nil), "Invalid message(s)") // a guest reads only channels they are subscribed to
		bad(add(c.Member, id, "no_such_emoji", nil, nil), "Emoji 'no_such_emoji' does not exist")
		bad(add(c.Member, id, "no_such_emoji", new("1f419"), nil), "Emoji 'no_such_emoji' does not exist") // the type is looked up too
		bad(add(c.Member, id, "octopus", new("1f419"), new("realm_emoji")), "Invalid custom emoji.")
		bad(add(c.Member, id, "zulip", new("1f419"), new("zulip_extra_emoji")), "Invalid emoji code.")
		bad(add(c.Member, id, "octopus", new("zulip"), new("zulip_extra_emoji")), "Invalid emoji name.")
		bad(add(c.Member, id, "octopus", new("ffff"), new("unicode_emoji")), "Invalid emoji code.")
		bad(add(c.Member, id, "smile", new("1f419"), new("unicode_emoji")), "Invalid emoji name.")
		bad(add(c.Member, id, "octopus", new("1f419"), new("emoji")), "Invalid emoji type.")
		bad(reactions.Remove(ctx, w.Svc, c.Member.ID, id, reactions.RemoveRequest{}), "At least one of the following arguments must be present: emoji_name, emoji_code")
		bad(reactions.Remove(ctx, w.Svc, c.Member.ID, id, reactions.RemoveRequest{EmojiName: new("no_such_emoji")}), "Emoji 'no_such_emoji' does not exist")

		is.NoErr(add(c.Member, id, "octopus", nil, nil))
		e := chattest.WantError(t, add(c.Member, id, "octopus", nil, nil), chatcore.CodeReactionAlreadyExists, chatcore.KindInvalid, "Reaction already exists.")
		is.True(e != nil)
		chattest.WantError(t, add(c.Member, id, "octopus", new("1f419"), new("unicode_emoji")), chatcore.CodeReactionAlreadyExists, chatcore.KindInvalid, "Reaction already exists.")
		notThere := func(req reactions.RemoveRequest) {
			t.Helper()
			chattest.WantError(t, reactions.Remove(ctx, w.Svc, c.Admin.ID, id, req), chatcore.CodeReactionDoesNotExist, chatcore.KindInvalid, "Reaction doesn't exist.")
		}
		notThere(reactions.RemoveRequest{EmojiName: new("octopus")})                                 // someone else's reaction
		notThere(reactions.RemoveRequest{EmojiName: new("zulip")})                                   // zulip's code, but of type unicode_emoji
		notThere(reactions.RemoveRequest{EmojiCode: new("1f419"), ReactionType: new("realm_emoji")}) // wrong type
		is.Equal(len(chattest.MessageAs(t, w.Svc, c.Member, id).Reactions), 1)                       // the refusals changed nothing
		is.Equal(len(w.Events.OfType("reaction")), 1)                                                // and published nothing
	})
}

func TestReactionMakesMessageHistorical(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := t.Context()
		w := open(t)
		c := w.SeedCast(t)
		general := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{c.Admin}})
		id := w.Send(t, c.Admin, general, "t", "hello")
		is.Equal(chattest.MessageAs(t, w.Svc, c.Member, id).Flags, []string{"read", "historical"}) // never received
		is.NoErr(reactions.Add(ctx, w.Svc, c.Member.ID, id, reactions.AddRequest{EmojiName: "octopus"}))
		is.Equal(chattest.MessageAs(t, w.Svc, c.Member, id).Flags, []string{"read", "historical"}) // now a stored historical row
		ev := w.Events.OfType("reaction")[0]
		is.Equal(ev.UserIDs, []chatcore.UserID{c.Admin.ID, c.Member.ID}) // the subscriber and the non-subscribed reactor
		starred, err := messages.UpdateFlags(ctx, w.Svc, c.Member.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "starred"})
		is.NoErr(err)
		is.Equal(starred.Updated, []chatcore.MessageID{id})
		is.Equal(chattest.MessageAs(t, w.Svc, c.Member, id).Flags, []string{"read", "starred", "historical"})

		// A non-subscriber who starred the message hears of reactions to it too.
		_, err = messages.UpdateFlags(ctx, w.Svc, c.Owner.ID, messages.UpdateFlagsRequest{Messages: []chatcore.MessageID{id}, Op: "add", Flag: "starred"})
		is.NoErr(err)
		is.NoErr(reactions.Add(ctx, w.Svc, c.Admin.ID, id, reactions.AddRequest{EmojiName: "tada"}))
		evs := w.Events.OfType("reaction")
		is.Equal(evs[len(evs)-1].UserIDs, []chatcore.UserID{c.Owner.ID, c.Admin.ID, c.Member.ID})

		// Protected history: a later subscriber who never received it does not.
		secret := w.AddChannel(t, chattest.Channel{Name: "secret", InviteOnly: true, Protected: true, Subscribers: []*chatcore.User{c.Admin}})
		hushed := w.Send(t, c.Admin, secret, "t", "hush")
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { // subscribed after it was sent
			return tx.PutSubscription(ctx, chatcore.Subscription{StreamID: secret.ID, UserID: c.Moderator.ID, Active: true,
				FirstVisibleMessageID: hushed + 1, SinceMessageID: hushed + 1})
		})
		is.NoErr(reactions.Add(ctx, w.Svc, c.Admin.ID, hushed, reactions.AddRequest{EmojiName: "tada"}))
		evs = w.Events.OfType("reaction")
		is.Equal(evs[len(evs)-1].UserIDs, []chatcore.UserID{c.Admin.ID})

		// A direct message: the event goes to its participants.
		dm := w.DM(t, c.Admin, "psst", c.Owner)
		is.NoErr(reactions.Add(ctx, w.Svc, c.Owner.ID, dm, reactions.AddRequest{EmojiName: "heart"}))
		evs = w.Events.OfType("reaction")
		is.Equal(evs[len(evs)-1].UserIDs, []chatcore.UserID{c.Owner.ID, c.Admin.ID}) // sorted ids
	})
}
