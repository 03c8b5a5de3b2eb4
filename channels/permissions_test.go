package channels_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/edits"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// permsWorld is a realm with an administrator, three members, a bot of
// Ann's, a public and a private channel and a user group holding Ann.
type permsWorld struct {
	w                   *chattest.World
	admin, ann, bob, cy *chatcore.User
	bot                 *chatcore.User
	public, private     *chatcore.Stream
	group               chatcore.GroupID
}

func newPermsWorld(t *testing.T, open chattest.Open) *permsWorld {
	t.Helper()
	is := is.New(t)
	w := open(t)
	realm := w.AddRealm(t, "acme")
	p := &permsWorld{w: w}
	p.admin = w.AddUser(t, realm, "Iago", chatcore.RoleAdministrator)
	p.ann = w.AddUser(t, realm, "Ann", chatcore.RoleMember)
	p.bob = w.AddUser(t, realm, "Bob", chatcore.RoleMember)
	p.cy = w.AddUser(t, realm, "Cy", chatcore.RoleMember)
	p.bot = w.AddBot(t, realm, "Ann's bot", p.ann)
	p.public = w.AddChannel(t, chattest.Channel{Realm: realm, Name: "general", Subscribers: []*chatcore.User{p.admin, p.ann, p.bob, p.cy}})
	p.private = w.AddChannel(t, chattest.Channel{Realm: realm, Name: "secret", InviteOnly: true, Subscribers: []*chatcore.User{p.admin}})
	gid, err := groups.Create(context.Background(), w.Svc, p.admin.ID, groups.CreateRequest{Name: "crew", Members: []chatcore.UserID{p.ann.ID}})
	is.NoErr(err)
	p.group = gid
	return p
}

// set stores a channel group setting as PATCH /streams/{stream_id} does.
func (p *permsWorld) set(t *testing.T, st *chatcore.Stream, name string, v chatcore.GroupSettingValue) {
	t.Helper()
	val := groups.Value{GroupSettingValue: v}
	is.New(t).NoErr(channels.Update(context.Background(), p.w.Svc, p.admin.ID, st.ID, channels.UpdateRequest{
		Settings: map[string]groups.Change{name: {New: &val}}}))
}

// join adds u to the group.
func (p *permsWorld) join(t *testing.T, u *chatcore.User) {
	t.Helper()
	is.New(t).NoErr(groups.UpdateMembers(context.Background(), p.w.Svc, p.admin.ID, p.group, groups.MembersChange{Add: []chatcore.UserID{u.ID}}))
}

// TestChannelSendPermission: can_send_message_group decides who may post
// in a channel (a bot through its owner too), and follows the group.
func TestChannelSendPermission(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		p := newPermsWorld(t, open)
		send := func(u *chatcore.User) error {
			_, err := p.w.Svc.SendMessage(ctx, u.ID, chatcore.SendMessageRequest{Type: "stream", To: new("general"), Topic: new("t"), Content: "hi"})
			return err
		}
		is.NoErr(send(p.bob)) // role:everyone by default
		p.set(t, p.public, "can_send_message_group", chatcore.GroupSettingValue{GroupID: p.group})
		const denied = "You do not have permission to post in this channel."
		chattest.WantError(t, send(p.bob), chatcore.CodeBadRequest, chatcore.KindInvalid, denied)
		chattest.WantError(t, send(p.admin), chatcore.CodeBadRequest, chatcore.KindInvalid, denied) // administrators too
		is.NoErr(send(p.ann))                                                                       // in the group
		is.NoErr(send(p.bot))                                                                       // its owner is
		p.join(t, p.bob)
		is.NoErr(send(p.bob)) // the rule followed the group
		p.set(t, p.public, "can_send_message_group", chatcore.GroupSettingValue{DirectMembers: []chatcore.UserID{p.cy.ID}})
		is.NoErr(send(p.cy))
		chattest.WantError(t, send(p.ann), chatcore.CodeBadRequest, chatcore.KindInvalid, denied)
	})
}

// TestChannelSubscribePermissions: can_subscribe_group and
// can_add_subscribers_group open a private channel to their members, and
// the realm's and channel's can_add_subscribers_group decide who
// subscribes others.
func TestChannelSubscribePermissions(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		p := newPermsWorld(t, open)
		subscribe := func(u *chatcore.User, name string, others ...chatcore.UserID) error {
			_, err := channels.Subscribe(ctx, p.w.Svc, u.ID, channels.SubscribeRequest{Subscriptions: []channels.NewChannel{{Name: name}},
				Principals: channels.Principals{IDs: others}})
			return err
		}
		chattest.WantError(t, subscribe(p.ann, "secret"), chatcore.CodeBadRequest, chatcore.KindInvalid, "Unable to access channel (secret).")
		p.set(t, p.private, "can_subscribe_group", chatcore.GroupSettingValue{GroupID: p.group})
		is.NoErr(subscribe(p.ann, "secret")) // in can_subscribe_group
		chattest.WantError(t, subscribe(p.bob, "secret"), chatcore.CodeBadRequest, chatcore.KindInvalid, "Unable to access channel (secret).")

		// Subscribing others: role:members by default; a realm setting of
		// nobody leaves administrators and the channel's groups.
		is.NoErr(subscribe(p.bob, "general", p.cy.ID))
		nobody := chattest.Read(t, p.w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Group, error) {
			gs, err := tx.Groups(ctx, p.ann.RealmID)
			for i := range gs {
				if gs[i].Name == string(chatcore.GroupNobody) {
					return &gs[i], err
				}
			}
			return nil, err
		})
		p.w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			return tx.PutGroupSetting(ctx, chatcore.GroupSetting{RealmID: p.ann.RealmID, Kind: chatcore.SettingOfRealm, ObjectID: int64(p.ann.RealmID),
				Name: "can_add_subscribers_group", Value: chatcore.GroupSettingValue{GroupID: nobody.ID}})
		})
		chattest.WantError(t, subscribe(p.bob, "general", p.admin.ID), chatcore.CodeBadRequest, chatcore.KindInvalid, "Insufficient permission")
		p.set(t, p.public, "can_add_subscribers_group", chatcore.GroupSettingValue{GroupID: p.group})
		chattest.WantError(t, subscribe(p.bob, "general", p.admin.ID), chatcore.CodeBadRequest, chatcore.KindInvalid, "Insufficient permission")
		p.join(t, p.bob)
		_, err := channels.Unsubscribe(ctx, p.w.Svc, p.cy.ID, []string{"general"}, channels.Principals{})
		is.NoErr(err)
		is.NoErr(subscribe(p.bob, "general", p.cy.ID)) // the channel's group now holds Bob
	})
}

// TestChannelUnsubscribeOthers: can_remove_subscribers_group and
// can_administer_channel_group decide who removes others.
func TestChannelUnsubscribeOthers(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		p := newPermsWorld(t, open)
		remove := func(u, who *chatcore.User) error {
			_, err := channels.Unsubscribe(ctx, p.w.Svc, u.ID, []string{"general"}, channels.Principals{IDs: []chatcore.UserID{who.ID}})
			return err
		}
		chattest.WantError(t, remove(p.ann, p.cy), chatcore.CodeBadRequest, chatcore.KindInvalid, "Insufficient permission") // role:administrators by default
		p.set(t, p.public, "can_remove_subscribers_group", chatcore.GroupSettingValue{GroupID: p.group})
		is.NoErr(remove(p.ann, p.cy)) // in the group
		chattest.WantError(t, remove(p.cy, p.bob), chatcore.CodeBadRequest, chatcore.KindInvalid, "Insufficient permission")
		p.set(t, p.public, "can_administer_channel_group", chatcore.GroupSettingValue{DirectMembers: []chatcore.UserID{p.cy.ID}})
		is.NoErr(remove(p.cy, p.bob)) // channel administrators may
	})
}

// TestChannelMessagePermissions: the channel's delete, move and resolve
// groups let their members do what the realm's settings do not.
func TestChannelMessagePermissions(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		p := newPermsWorld(t, open)
		p.w.UpdateRealm(t, p.ann.RealmID, func(r *chatcore.Realm) {
			r.Messages.DeleteOwn, r.Messages.MoveBetweenTopics, r.Messages.ResolveTopics = chatcore.GroupNobody, chatcore.GroupNobody, chatcore.GroupNobody
			r.Messages.MoveBetweenChannels = chatcore.GroupNobody
		})
		mine := p.w.Post(t, p.public, "t", p.ann, "mine")
		bobs := p.w.Post(t, p.public, "t", p.bob, "bob's")
		const noDelete = "You don't have permission to delete this message"
		chattest.WantError(t, edits.Delete(ctx, p.w.Svc, p.ann.ID, mine), chatcore.CodeBadRequest, chatcore.KindInvalid, noDelete)
		p.set(t, p.public, "can_delete_own_message_group", chatcore.GroupSettingValue{GroupID: p.group})
		is.NoErr(edits.Delete(ctx, p.w.Svc, p.ann.ID, mine)) // the channel lets her
		chattest.WantError(t, edits.Delete(ctx, p.w.Svc, p.ann.ID, bobs), chatcore.CodeBadRequest, chatcore.KindInvalid, noDelete)
		p.set(t, p.public, "can_delete_any_message_group", chatcore.GroupSettingValue{GroupID: p.group})
		is.NoErr(edits.Delete(ctx, p.w.Svc, p.ann.ID, bobs)) // any message now

		m := p.w.Post(t, p.public, "t", p.bob, "to move")
		topic := func(u *chatcore.User, to string) error {
			return edits.Update(ctx, p.w.Svc, u.ID, m, edits.Request{Topic: &to, PropagateMode: new(edits.PropagateOne)})
		}
		chattest.WantError(t, topic(p.ann, "elsewhere"), chatcore.CodeBadRequest, chatcore.KindInvalid, "You don't have permission to edit this message")
		p.set(t, p.public, "can_move_messages_within_channel_group", chatcore.GroupSettingValue{GroupID: p.group})
		is.NoErr(topic(p.ann, "elsewhere"))
		chattest.WantError(t, topic(p.ann, "✔ elsewhere"), chatcore.CodeBadRequest, chatcore.KindInvalid, "You don't have permission to resolve topics in this channel.")
		p.set(t, p.public, "can_resolve_topics_group", chatcore.GroupSettingValue{GroupID: p.group})
		is.NoErr(topic(p.ann, "✔ elsewhere"))

		other := p.w.AddChannel(t, chattest.Channel{Realm: p.w.Realm(t, p.ann.RealmID), Name: "other", Subscribers: []*chatcore.User{p.ann}})
		move := func(u *chatcore.User) error {
			return edits.Update(ctx, p.w.Svc, u.ID, m, edits.Request{StreamID: &other.ID, PropagateMode: new(edits.PropagateOne)})
		}
		chattest.WantError(t, move(p.ann), chatcore.CodeBadRequest, chatcore.KindInvalid, "You don't have permission to move this message")
		p.set(t, p.public, "can_move_messages_out_of_channel_group", chatcore.GroupSettingValue{GroupID: p.group})
		is.NoErr(move(p.ann))
		is.Equal(p.w.Message(t, m).StreamID, other.ID) // moved
	})
}
