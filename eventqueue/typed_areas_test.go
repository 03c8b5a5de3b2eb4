package eventqueue_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/alertwords"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/drafts"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/invites"
	"github.com/chatcore/chatcore/mutedusers"
	"github.com/chatcore/chatcore/people"
	"github.com/chatcore/chatcore/realmemoji"
	"github.com/chatcore/chatcore/realms"
	"github.com/chatcore/chatcore/store/filestore"
	"github.com/chatcore/chatcore/submessages"
	"github.com/chatcore/chatcore/uploads"
	"github.com/chatcore/chatcore/userstatus"
	"github.com/chatcore/chatcore/usertopics"
	"github.com/matryer/is"
)

// TestDecodeTypedAreaEvents is TestDecodeTypedEvents for the events of the
// realm, group and personal-settings areas: each is produced through its
// real operation, decoded with eventqueue.Decode, and decoded again with
// unknown fields refused, so a field added to one of these events fails
// here until its struct has it.
func TestDecodeTypedAreaEvents(t *testing.T) {
	chattest.EachStore(t, testDecodeTypedAreaEvents)
}

func testDecodeTypedAreaEvents(t *testing.T, open chattest.Open) {
	is := is.New(t)
	ctx := context.Background()
	files, err := filestore.OpenDir(filepath.Join(t.TempDir(), "up"))
	is.NoErr(err)
	t.Cleanup(func() { _ = files.Close() })
	e := newEventsWorld(t, open, chattest.With(chatcore.WithFileStorage(files)))
	c, svc := e.c, e.w.Svc
	member := register(t, e.w, c.Member, eventqueue.QueueOptions{})
	admin := register(t, e.w, c.Admin, eventqueue.QueueOptions{})

	// Realm settings: one property ("update") and one of the dict
	// ("update_dict").
	is.NoErr(realms.Update(ctx, svc, c.Owner.ID, realms.UpdateRequest{Name: new("Renamed"), AllowMessageEditing: new(false)}))
	is.NoErr(channels.SetDefault(ctx, svc, c.Admin.ID, e.general.ID, true))
	// The channel's access changes (a stream update with its extras).
	is.NoErr(channels.Update(ctx, svc, c.Admin.ID, e.general.ID, channels.UpdateRequest{IsPrivate: new(true), Description: new("**food**")}))

	// Groups: add, update, members and subgroups.
	sub, err := groups.Create(ctx, svc, c.Admin.ID, groups.CreateRequest{Name: "leads", Description: "x"})
	is.NoErr(err)
	g, err := groups.Create(ctx, svc, c.Admin.ID, groups.CreateRequest{Name: "crew", Description: "y", Members: []chatcore.UserID{c.Admin.ID}})
	is.NoErr(err)
	is.NoErr(groups.Update(ctx, svc, c.Admin.ID, g, groups.UpdateRequest{Description: new("z")}))
	is.NoErr(groups.UpdateMembers(ctx, svc, c.Admin.ID, g, groups.MembersChange{Add: []chatcore.UserID{c.Member.ID}}))
	is.NoErr(groups.UpdateMembers(ctx, svc, c.Admin.ID, g, groups.MembersChange{Delete: []chatcore.UserID{c.Member.ID}}))
	is.NoErr(groups.UpdateSubgroups(ctx, svc, c.Admin.ID, g, []chatcore.GroupID{sub}, nil))
	is.NoErr(groups.UpdateSubgroups(ctx, svc, c.Admin.ID, g, nil, []chatcore.GroupID{sub}))
	is.NoErr(groups.Deactivate(ctx, svc, c.Admin.ID, sub))

	// The member's own settings and data.
	is.NoErr(userstatus.Update(ctx, svc, c.Member.ID, userstatus.UpdateRequest{StatusText: new("lunch"), EmojiName: new("smile"), Away: new(true)}))
	is.NoErr(usertopics.Set(ctx, svc, c.Member.ID, usertopics.SetRequest{StreamID: &e.general.ID, Topic: new("lunch"), VisibilityPolicy: new(1)}))
	is.NoErr(mutedusers.Mute(ctx, svc, c.Member.ID, c.Moderator.ID))
	_, err = alertwords.Add(ctx, svc, c.Member.ID, alertwords.Request{AlertWords: []string{"pizza"}})
	is.NoErr(err)
	ids, err := drafts.Create(ctx, svc, c.Member.ID, []drafts.Request{{Type: new("stream"), To: &[]int64{int64(e.general.ID)}, Topic: new("t"), Content: new("draft")}})
	is.NoErr(err)
	is.NoErr(drafts.Edit(ctx, svc, c.Member.ID, ids[0], drafts.Request{Type: new(""), To: &[]int64{}, Topic: new(""), Content: new("edited")}))
	is.NoErr(drafts.Delete(ctx, svc, c.Member.ID, ids[0]))

	// A widget's submessage, a custom emoji, an upload, an invitation.
	id := e.w.Send(t, c.Owner, e.general, "poll", "/poll Lunch?")
	_, err = submessages.Add(ctx, svc, c.Member.ID, submessages.Request{MessageID: &id, MsgType: new("widget"), Content: new(`{"type":"vote","key":"canned,0","vote":1}`)})
	is.NoErr(err)
	var img bytes.Buffer
	is.NoErr(png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 4, 4))))
	is.NoErr(realmemoji.Add(ctx, svc, c.Member, "parrot", &img))
	is.NoErr(realmemoji.Remove(ctx, svc, c.Member, "parrot"))
	up, err := uploads.Upload(ctx, svc, c.Member, "a.txt", "", 5, strings.NewReader("hello"))
	is.NoErr(err)
	is.NoErr(uploads.Delete(ctx, svc, c.Member, up.Attachment.ID))
	_, err = invites.CreateMultiUse(ctx, svc, c.Admin.ID, invites.Request{StreamIDs: []chatcore.StreamID{e.general.ID}})
	is.NoErr(err)

	seen := map[string]bool{}
	ops := map[string]bool{}
	for _, q := range []*chattest.Queue{member, admin} {
		res, err := q.Hub.GetEvents(ctx, q.User.ID, eventqueue.EventsRequest{QueueID: q.ID, LastEventID: new(int64(-1))})
		is.NoErr(err)
		for _, qe := range res.Events {
			ev := decodeStrict(t, qe)
			if ev == nil {
				continue
			}
			seen[qe.Type] = true
			var head struct{ Op string }
			is.NoErr(json.Unmarshal(qe.JSON, &head))
			ops[qe.Type+"/"+head.Op] = true
		}
	}
	for _, want := range []string{"realm", "default_streams", "stream", "user_group", "user_status", "user_topic", "muted_topics",
		"muted_users", "alert_words", "drafts", "submessage", "realm_emoji", "attachment", "invites_changed"} {
		if !seen[want] {
			t.Errorf("no %q event was produced: the test no longer covers it", want)
		}
	}
	for _, want := range []string{"realm/update", "realm/update_dict", "user_group/add", "user_group/update", "user_group/add_members",
		"user_group/remove_members", "user_group/add_subgroups", "user_group/remove_subgroups", "drafts/add", "drafts/update",
		"drafts/remove", "attachment/add", "attachment/remove", "stream/update"} {
		if !ops[want] {
			t.Errorf("no %s event was produced: the test no longer covers it", want)
		}
	}
}

// decodeStrict decodes qe with eventqueue.Decode and again with unknown
// fields refused, reporting an event without a Go type, a key its type
// lacks or a header that differs; it returns the typed event (nil after a
// failure).
func decodeStrict(t *testing.T, qe eventqueue.QueueEvent) eventqueue.Event {
	t.Helper()
	ev, err := eventqueue.Decode(qe)
	if err != nil {
		t.Errorf("%s: %v in %s", qe.Type, err, qe.JSON)
		return nil
	}
	if _, unknown := ev.(*eventqueue.UnknownEvent); unknown {
		t.Errorf("event type %q has no Go type: %s", qe.Type, qe.JSON)
		return nil
	}
	if ev.EventID() != qe.ID || ev.EventType() != qe.Type {
		t.Errorf("%s: header %d %q, want %d %q", qe.Type, ev.EventID(), ev.EventType(), qe.ID, qe.Type)
	}
	strict := reflect.New(reflect.TypeOf(ev).Elem()).Interface()
	dec := json.NewDecoder(bytes.NewReader(qe.JSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(strict); err != nil {
		t.Errorf("%s: %v in %s", qe.Type, err, qe.JSON)
		return nil
	}
	return ev
}

// TestDecodeTypedPeopleEvents does the same for subscriptions, accounts,
// bots and presence: subscription add, peer_add, update, remove and
// peer_remove, stream create, realm_user add, realm_bot add and update,
// presence.
func TestDecodeTypedPeopleEvents(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		e := newEventsWorld(t, open)
		c, svc := e.c, e.w.Svc
		admin := register(t, e.w, c.Admin, eventqueue.QueueOptions{})
		member := register(t, e.w, c.Member, eventqueue.QueueOptions{})

		_, err := channels.Subscribe(ctx, svc, c.Admin.ID, channels.SubscribeRequest{
			Subscriptions: []channels.NewChannel{{Name: "fresh"}}, Principals: channels.Principals{IDs: []chatcore.UserID{c.Admin.ID, c.Member.ID}},
		})
		is.NoErr(err)
		_, err = channels.Subscribe(ctx, svc, c.Admin.ID, channels.SubscribeRequest{
			Subscriptions: []channels.NewChannel{{Name: "fresh"}}, Principals: channels.Principals{IDs: []chatcore.UserID{c.Moderator.ID}},
		})
		is.NoErr(err)
		is.NoErr(channels.UpdateProperties(ctx, svc, c.Member.ID, []channels.PropertyChange{{StreamID: e.general.ID, Property: "is_muted", Value: true}}))
		_, err = channels.Unsubscribe(ctx, svc, c.Member.ID, []string{"fresh"}, channels.Principals{})
		is.NoErr(err)
		_, err = people.CreateUser(ctx, svc, c.Admin.ID, people.CreateUserRequest{Email: new("new@zulip.com"), Password: new("a long enough password 1"), FullName: new("Newcomer")})
		is.NoErr(err)
		bot, err := people.CreateBot(ctx, svc, c.Admin.ID, people.CreateBotRequest{FullName: new("Helper"), ShortName: new("helper")})
		is.NoErr(err)
		_, err = people.UpdateBot(ctx, svc, c.Admin.ID, bot.UserID, people.UpdateBotRequest{FullName: new("Helper Two")})
		is.NoErr(err)
		is.NoErr(people.DeactivateBot(ctx, svc, c.Admin.ID, bot.UserID))
		var fresh *chatcore.Stream
		is.NoErr(svc.View(ctx, func(tx chatcore.Tx) (err error) { fresh, err = tx.StreamByName(ctx, c.Realm.ID, "fresh"); return err }))
		is.NoErr(channels.Archive(ctx, svc, c.Admin.ID, fresh.ID))
		svc.ReportPresence(c.Owner, e.w.Clock.Current(), true)
		is.NoErr(svc.FlushPresence(ctx))

		ops := map[string]bool{}
		for _, q := range []*chattest.Queue{admin, member} {
			res, err := q.Hub.GetEvents(ctx, q.User.ID, eventqueue.EventsRequest{QueueID: q.ID, LastEventID: new(int64(-1))})
			is.NoErr(err)
			for _, qe := range res.Events {
				if decodeStrict(t, qe) == nil {
					continue
				}
				var head struct{ Op string }
				is.NoErr(json.Unmarshal(qe.JSON, &head))
				ops[qe.Type+"/"+head.Op] = true
			}
		}
		for _, want := range []string{"subscription/add", "subscription/peer_add", "subscription/update", "subscription/remove",
			"subscription/peer_remove", "stream/create", "realm_user/add", "realm_bot/add", "realm_bot/update", "stream/delete", "presence/"} {
			if !ops[want] {
				t.Errorf("no %s event was produced: the test no longer covers it (saw %v)", want, ops)
			}
		}
	})
}
