package channels_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// botMessages returns the contents of the notification bot's messages in
// the channel's "channel events" topic, oldest first.
func botMessages(t *testing.T, w *chattest.World, st *chatcore.Stream) []string {
	t.Helper()
	topic := channels.ChannelEventsTopic
	var out []string
	for _, id := range w.ChannelMessageIDs(t, st, &topic) {
		m := w.Message(t, id)
		if w.User(t, m.SenderID).FullName == chatcore.NotificationBotName {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestChannelAdministration(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		w := open(t)
		realm := w.AddRealm(t, "acme")
		admin := w.AddUser(t, realm, "Iago", chatcore.RoleAdministrator)
		ann := w.AddUser(t, realm, "Ann", chatcore.RoleMember)
		bob := w.AddUser(t, realm, "Bob", chatcore.RoleMember)
		guest := w.AddUser(t, realm, "Gus", chatcore.RoleGuest)
		general := w.AddChannel(t, chattest.Channel{Realm: realm, Name: "general", Subscribers: []*chatcore.User{admin, ann}})
		w.AddChannel(t, chattest.Channel{Realm: realm, Name: "taken"})

		err := channels.Update(ctx, w.Svc, ann.ID, general.ID, channels.UpdateRequest{Description: new("x")})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "You do not have permission to administer this channel.")
		err = channels.Update(ctx, w.Svc, admin.ID, general.ID, channels.UpdateRequest{NewName: new("taken")})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Channel 'taken' already exists")
		err = channels.Update(ctx, w.Svc, admin.ID, 99999, channels.UpdateRequest{NewName: new("x")})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid channel ID")

		w.Events.Reset()
		is.NoErr(channels.Update(ctx, w.Svc, admin.ID, general.ID, channels.UpdateRequest{NewName: new("lobby"), Description: new("Say **hi**")}))
		st := w.Stream(t, general.ID)
		is.Equal(st.Name, "lobby")                                         // renamed
		is.Equal(st.Description, "Say **hi**")                             // described
		is.Equal(st.RenderedDescription, "<p>Say <strong>hi</strong></p>") // rendered
		var props []string
		for _, ev := range w.Events.All() {
			if ev.Data["type"] == "stream" && ev.Data["op"] == "update" {
				props = append(props, ev.Data["property"].(string))
				is.Equal(ev.UserIDs, []chatcore.UserID{admin.ID, ann.ID, bob.ID}) // everyone who may know of a public channel but guests
			}
		}
		is.Equal(props, []string{"name", "description"})
		msgs := botMessages(t, w, st)
		is.Equal(len(msgs), 2)
		is.Equal(msgs[0], "@_**Iago|"+itoa(admin.ID)+"** renamed channel **general** to **lobby**.")

		// Making it private tells the channel, and only its subscribers and
		// administrators hear of later changes.
		is.NoErr(channels.Update(ctx, w.Svc, admin.ID, general.ID, channels.UpdateRequest{IsPrivate: new(true)}))
		st = w.Stream(t, general.ID)
		is.True(st.InviteOnly && st.HistoryPublicToSubscribers) // private, history kept public
		msgs = botMessages(t, w, st)
		is.Equal(msgs[2], "@_**Iago|"+itoa(admin.ID)+"** changed the [access permissions](/help/channel-permissions) for this channel from **Public** to **Private, shared history**.")

		// A group-based permission: Bob administers the channel once he is in
		// a group that can_administer_channel_group names.
		gid, err := groups.Create(ctx, w.Svc, ann.ID, groups.CreateRequest{Name: "stewards"})
		is.NoErr(err)
		sub := func() error {
			return channels.Update(ctx, w.Svc, bob.ID, general.ID, channels.UpdateRequest{Description: new("bob's")})
		}
		v := groups.Value{GroupSettingValue: chatcore.GroupSettingValue{GroupID: gid}}
		is.NoErr(channels.Update(ctx, w.Svc, admin.ID, general.ID, channels.UpdateRequest{
			IsPrivate: new(false), Settings: map[string]groups.Change{"can_administer_channel_group": {New: &v}}}))
		chattest.WantError(t, sub(), chatcore.CodeBadRequest, chatcore.KindInvalid, "You do not have permission to administer this channel.")
		is.NoErr(groups.UpdateMembers(ctx, w.Svc, ann.ID, gid, groups.MembersChange{Add: []chatcore.UserID{bob.ID}}))
		is.NoErr(sub()) // the rule followed the group
		is.Equal(w.Stream(t, general.ID).Description, "bob's")

		// Members and archiving.
		_, err = channels.Members(ctx, w.Svc, guest.ID, general.ID)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid channel ID") // guests see only their channels
		ids, err := channels.Members(ctx, w.Svc, bob.ID, general.ID)
		is.NoErr(err)
		is.Equal(ids, []chatcore.UserID{admin.ID, ann.ID})
		w.Events.Reset()
		is.NoErr(channels.Archive(ctx, w.Svc, admin.ID, general.ID))
		is.True(w.Stream(t, general.ID).IsArchived) // archived
		ops := []string{}
		for _, ev := range w.Events.All() {
			if ev.Data["type"] == "stream" {
				ops = append(ops, ev.Data["op"].(string))
			}
		}
		is.Equal(ops, []string{"delete", "update"})
		msgs = botMessages(t, w, st)
		is.Equal(msgs[len(msgs)-1], "Channel #**lobby** has been archived.")
		err = channels.Archive(ctx, w.Svc, admin.ID, general.ID)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Channel is already deactivated")
		_, err = w.Svc.SendMessage(ctx, ann.ID, chatcore.SendMessageRequest{Type: "stream", To: new("lobby"), Topic: new("t"), Content: "hi"})
		is.True(err != nil) // an archived channel takes no messages
	})
}

func itoa(id chatcore.UserID) string { return uid(id) }

// TestChannelCreationFollowsRealmGroup: can_create_public_channel_group
// decides who may create channels, and changing it changes who may.
func TestChannelCreationFollowsRealmGroup(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	w, org := chattest.NewMessaging(t)
	create := func(u *chatcore.User, name string) error {
		_, err := channels.Subscribe(ctx, w.Svc, u.ID, channels.SubscribeRequest{Subscriptions: []channels.NewChannel{{Name: name}}})
		return err
	}
	is.NoErr(create(org.Member, "one")) // role:members by default
	gid, err := groups.Create(ctx, w.Svc, org.Member.ID, groups.CreateRequest{Name: "creators", Members: []chatcore.UserID{org.Other.ID}})
	is.NoErr(err)
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		return tx.PutGroupSetting(ctx, chatcore.GroupSetting{RealmID: org.Realm.ID, Kind: chatcore.SettingOfRealm, ObjectID: int64(org.Realm.ID),
			Name: "can_create_public_channel_group", Value: chatcore.GroupSettingValue{GroupID: gid}})
	})
	chattest.WantError(t, create(org.Member, "two"), chatcore.CodeBadRequest, chatcore.KindInvalid, "Insufficient permission")
	is.NoErr(create(org.Other, "three")) // in the group
	// The creator of a channel administers it by default.
	three := chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) (*chatcore.Stream, error) {
		return tx.StreamByName(ctx, org.Realm.ID, "three")
	})
	is.NoErr(channels.Update(ctx, w.Svc, org.Other.ID, three.ID, channels.UpdateRequest{Description: new("mine")}))
	err = channels.Update(ctx, w.Svc, org.Member.ID, three.ID, channels.UpdateRequest{Description: new("not mine")})
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "You do not have permission to administer this channel.")
}

// TestStoredChannelSettingsShown: a channel's permission group set through
// PATCH /streams/{stream_id} is what GET /streams shows, and the default
// channels are marked.
func TestStoredChannelSettingsShown(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	w, org := chattest.NewMessaging(t)
	v := groups.Value{GroupSettingValue: chatcore.GroupSettingValue{DirectMembers: []chatcore.UserID{org.Other.ID}}}
	is.NoErr(channels.Update(ctx, w.Svc, org.Admin.ID, org.Public.ID, channels.UpdateRequest{
		Settings: map[string]groups.Change{"can_administer_channel_group": {New: &v}}}))
	is.NoErr(channels.SetDefault(ctx, w.Svc, org.Admin.ID, org.Public.ID, true))
	got, err := channels.Get(ctx, w.Svc, org.Member.ID, org.Public.ID)
	is.NoErr(err)
	is.Equal(got.CanAdministerChannelGroup.DirectMembers, []chatcore.UserID{org.Other.ID}) // the stored value
	list, err := channels.List(ctx, w.Svc, org.Member.ID, channels.ListRequest{IncludeDefault: new(true)})
	is.NoErr(err)
	for _, c := range list {
		is.Equal(*c.IsDefault, c.StreamID == org.Public.ID) // only the default channel is marked
	}
	is.NoErr(channels.Update(ctx, w.Svc, org.Other.ID, org.Public.ID, channels.UpdateRequest{Description: new("by Othello")})) // and it holds
	err = channels.SetDefault(ctx, w.Svc, org.Admin.ID, org.Private.ID, true)
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Private channels cannot be made default.")
}
