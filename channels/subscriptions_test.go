package channels_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

func TestSubscriptionsLifecycle(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w := open(t)
		ctx := t.Context()
		realm := w.AddRealm(t, "acme")
		owner := w.AddUser(t, realm, "Olivia Owner", chatcore.RoleOwner)
		ann := w.AddUser(t, realm, "Ann", chatcore.RoleMember)
		bob := w.AddUser(t, realm, "Bob", chatcore.RoleMember)
		guest := w.AddUser(t, realm, "Gus", chatcore.RoleGuest)
		general := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{owner, ann}})
		w.Post(t, general, "old", ann, "before bob")

		res, err := channels.Subscribe(ctx, w.Svc, ann.ID, channels.SubscribeRequest{
			Subscriptions: []channels.NewChannel{{Name: "secret"}, {Name: "general"}},
			Principals:    channels.Principals{IDs: []chatcore.UserID{ann.ID, bob.ID}},
			InviteOnly:    true,
		})
		is.NoErr(err) // a private channel created, bob added to both
		is.Equal(res.Subscribed[uid(ann.ID)], []string{"secret"})
		is.Equal(res.Subscribed[uid(bob.ID)], []string{"secret", "general"})
		is.Equal(res.AlreadySubscribed[uid(ann.ID)], []string{"general"})
		secret := chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Stream, error) {
			return tx.StreamByName(ctx, realm.ID, "secret")
		})
		is.True(secret.InviteOnly && !secret.HistoryPublicToSubscribers) // private, protected history by default
		is.Equal(secret.CreatorID, ann.ID)                               // its creator

		created := w.Events.OfType("stream", "op", "create")
		is.Equal(len(created), 1)                                 // one stream create event
		is.Equal(created[0].UserIDs, []chatcore.UserID{owner.ID}) // to the administrators of a private channel
		adds := w.Events.OfType("subscription", "op", "add")
		is.Equal(len(adds), 3) // ann+bob to secret, bob to general
		peers := w.Events.Take("subscription", "op", "peer_add")
		is.Equal(len(peers), 2) // one per channel
		is.Equal(peers[1].Data["user_ids"], []chatcore.UserID{bob.ID})
		is.Equal(peers[1].UserIDs, []chatcore.UserID{owner.ID, ann.ID}) // public channel: every non-guest but the new one

		// Bob joined general after "before bob": the subscription starts at the next message.
		subs, err := channels.Subscriptions(ctx, w.Svc, bob.ID, true)
		is.NoErr(err)
		is.Equal(len(subs), 2)
		is.Equal(subs[0].Name, "general")                                           // by name
		is.Equal(*subs[0].Subscribers, []chatcore.UserID{owner.ID, ann.ID, bob.ID}) // active subscribers
		is.True(subs[0].Color != subs[1].Color)                                     // distinct palette colours

		err = channels.UpdateProperties(ctx, w.Svc, bob.ID, []channels.PropertyChange{
			{StreamID: general.ID, Property: "is_muted", Value: true},
			{StreamID: general.ID, Property: "wildcard_mentions_notify", Value: false},
		})
		is.NoErr(err)
		ups := w.Events.Take("subscription", "op", "update")
		is.Equal(len(ups), 3) // is_muted, its in_home_view twin, wildcard_mentions_notify
		is.Equal(ups[1].Data["property"], "in_home_view")
		is.Equal(ups[1].Data["value"], false)
		err = channels.UpdateProperties(ctx, w.Svc, guest.ID, []channels.PropertyChange{{StreamID: general.ID, Property: "pin_to_top", Value: true}})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid channel ID") // a guest cannot reach an unsubscribed channel
		err = channels.UpdateProperties(ctx, w.Svc, owner.ID, []channels.PropertyChange{{StreamID: secret.ID, Property: "pin_to_top", Value: true}})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid channel ID")
		w.Events.Reset()
		err = channels.UpdateProperties(ctx, w.Svc, owner.ID, []channels.PropertyChange{
			{StreamID: general.ID, Property: "pin_to_top", Value: true},
			{StreamID: 9999, Property: "pin_to_top", Value: true},
		})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid channel ID")
		is.Equal(len(w.Events.All()), 0) // the failed request changed nothing and published nothing

		un, err := channels.Unsubscribe(ctx, w.Svc, bob.ID, []string{"general"}, channels.Principals{})
		is.NoErr(err)
		is.Equal(un.Removed, []string{"general"})
		is.Equal(len(w.Events.OfType("subscription", "op", "remove")), 1)
		is.Equal(len(w.Events.Take("subscription", "op", "peer_remove")), 1)
		again, err := channels.Subscribe(ctx, w.Svc, bob.ID, channels.SubscribeRequest{Subscriptions: []channels.NewChannel{{Name: "general"}}})
		is.NoErr(err)
		is.Equal(again.Subscribed[uid(bob.ID)], []string{"general"})
		subs, err = channels.Subscriptions(ctx, w.Svc, bob.ID, false)
		is.NoErr(err)
		is.True(subs[0].IsMuted) // a returning subscriber keeps their settings
		is.True(subs[0].Subscribers == nil)

		st := registerState(t, w, guest.ID, true)
		is.Equal(len(st.Subscribed), 0)      // the guest has none
		is.Equal(len(st.NeverSubscribed), 0) // and sees no channel it is not in
		st = registerState(t, w, owner.ID, false)
		is.Equal(len(st.NeverSubscribed), 1) // an administrator sees the private channel
		is.Equal(st.NeverSubscribed[0].Name, "secret")
		is.True(st.NeverSubscribed[0].Personal == nil) // no personal settings there
	})
}

// registerState reads the POST /register subscription section of the user.
func registerState(t *testing.T, w *chattest.World, id chatcore.UserID, withSubscribers bool) *channels.State {
	t.Helper()
	var st *channels.State
	err := w.Svc.View(t.Context(), func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(t.Context(), tx, id)
		if err != nil {
			return err
		}
		st, err = channels.SubscriptionState(t.Context(), w.Svc, tx, u, nil, withSubscribers)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func uid(id chatcore.UserID) string { return strconv.FormatInt(int64(id), 10) }
