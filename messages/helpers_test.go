package messages_test

// The organisation the message-reading tests build on, as the root package's
// message tests build it, and their small helpers.

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
)

// messagingOrg is the organisation of the message tests: a realm with a
// member, an admin, a guest, a second member, an outgoing-webhook bot of the
// member, three channels (public, private with shared history, private with
// protected history), an archived channel, and a second realm.
type messagingOrg struct {
	realm                               *chatcore.Realm
	admin, member, other, guest, bot    *chatcore.User
	public, private, protected, archive *chatcore.Stream
	otherRealm                          *chatcore.Realm
	stranger                            *chatcore.User
	strangerStream                      *chatcore.Stream
}

// newMessaging builds a World over a memory store and stores messagingOrg
// in it.
func newMessaging(tb testing.TB) (*chattest.World, *messagingOrg) {
	tb.Helper()
	w := chattest.New(tb)
	org := &messagingOrg{realm: w.AddRealm(tb, "zulip")}
	org.admin = w.AddUser(tb, org.realm, "Iago", chatcore.RoleAdministrator)
	org.member = w.AddUser(tb, org.realm, "King Hamlet", chatcore.RoleMember)
	org.other = w.AddUser(tb, org.realm, "Othello", chatcore.RoleMember)
	org.guest = w.AddUser(tb, org.realm, "Polonius", chatcore.RoleGuest)
	org.bot = w.AddUser(tb, org.realm, "Helper Bot", chatcore.RoleMember, func(u *chatcore.User) {
		u.IsBot, u.BotType, u.BotOwnerID = true, chatcore.BotTypeOutgoingWebhook, org.member.ID
	})
	org.public = w.AddChannel(tb, chattest.Channel{Realm: org.realm, Name: "Verona",
		Subscribers: []*chatcore.User{org.admin, org.member, org.other}})
	org.private = w.AddChannel(tb, chattest.Channel{Realm: org.realm, Name: "secret", InviteOnly: true,
		Subscribers: []*chatcore.User{org.member}})
	org.protected = w.AddChannel(tb, chattest.Channel{Realm: org.realm, Name: "vault", InviteOnly: true, Protected: true,
		Subscribers: []*chatcore.User{org.member}})
	org.archive = w.AddChannel(tb, chattest.Channel{Realm: org.realm, Name: "old", Archived: true})
	org.otherRealm = w.AddRealm(tb, "lear")
	org.stranger = w.AddUser(tb, org.otherRealm, "King Lear", chatcore.RoleAdministrator)
	org.strangerStream = w.AddChannel(tb, chattest.Channel{Realm: org.otherRealm, Name: "Denmark"})
	return w, org
}

// sendDM sends a direct message through the Service and fails the test on
// error.
func sendDM(tb testing.TB, w *chattest.World, from *chatcore.User, content string, to ...*chatcore.User) chatcore.MessageID {
	tb.Helper()
	ids := make([]string, 0, len(to))
	for _, u := range to {
		ids = append(ids, fmt.Sprint(u.ID))
	}
	id, err := w.Svc.SendMessage(context.Background(), from.ID, chatcore.SendMessageRequest{
		Type: "private", To: new("[" + strings.Join(ids, ",") + "]"), Content: content})
	if err != nil {
		tb.Fatalf("dm: %v", err)
	}
	return id
}

// jsonKeys returns the sorted top-level keys of v encoded as JSON.
func jsonKeys(tb testing.TB, v any) ([]string, map[string]json.RawMessage) {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatal(err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, m
}
