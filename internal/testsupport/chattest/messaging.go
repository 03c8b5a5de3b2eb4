package chattest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/linkifiers"
)

// Messaging is the organisation the message tests build on: a realm with a
// member, an admin, a guest, a second member, an outgoing-webhook bot of the
// member, three channels (public, private with shared history, private with
// protected history), an archived channel, and a second realm with a user and
// a channel of its own.
type Messaging struct {
	Realm                               *chatcore.Realm
	Admin, Member, Other, Guest, Bot    *chatcore.User
	Public, Private, Protected, Archive *chatcore.Stream
	OtherRealm                          *chatcore.Realm
	Stranger                            *chatcore.User
	StrangerStream                      *chatcore.Stream
}

// NewMessaging builds a World over a memory store and stores a [Messaging]
// organisation in it.
func NewMessaging(tb testing.TB) (*World, *Messaging) {
	tb.Helper()
	w := New(tb)
	org := &Messaging{Realm: w.AddRealm(tb, "zulip")}
	org.Admin = w.AddUser(tb, org.Realm, "Iago", chatcore.RoleAdministrator)
	org.Member = w.AddUser(tb, org.Realm, "King Hamlet", chatcore.RoleMember)
	org.Other = w.AddUser(tb, org.Realm, "Othello", chatcore.RoleMember)
	org.Guest = w.AddUser(tb, org.Realm, "Polonius", chatcore.RoleGuest)
	org.Bot = w.AddUser(tb, org.Realm, "Helper Bot", chatcore.RoleMember, func(u *chatcore.User) {
		u.IsBot, u.BotType, u.BotOwnerID = true, chatcore.BotTypeOutgoingWebhook, org.Member.ID
	})
	org.Public = w.AddChannel(tb, Channel{Realm: org.Realm, Name: "Verona",
		Subscribers: []*chatcore.User{org.Admin, org.Member, org.Other}})
	org.Private = w.AddChannel(tb, Channel{Realm: org.Realm, Name: "secret", InviteOnly: true,
		Subscribers: []*chatcore.User{org.Member}})
	org.Protected = w.AddChannel(tb, Channel{Realm: org.Realm, Name: "vault", InviteOnly: true, Protected: true,
		Subscribers: []*chatcore.User{org.Member}})
	org.Archive = w.AddChannel(tb, Channel{Realm: org.Realm, Name: "old", Archived: true})
	org.OtherRealm = w.AddRealm(tb, "lear")
	org.Stranger = w.AddUser(tb, org.OtherRealm, "King Lear", chatcore.RoleAdministrator)
	org.StrangerStream = w.AddChannel(tb, Channel{Realm: org.OtherRealm, Name: "Denmark"})
	return w, org
}

// SendDM sends a direct message from one user to the others through the
// Service and fails the test on error.
func (w *World) SendDM(tb testing.TB, from *chatcore.User, content string, to ...*chatcore.User) chatcore.MessageID {
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

// JSONKeys returns the sorted top-level keys of v encoded as JSON, and the
// encoded values by key.
func JSONKeys(tb testing.TB, v any) ([]string, map[string]json.RawMessage) {
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

// AddLinkifier adds a linkifier to the realm of admin, as admin, and fails
// the test on error.
func (w *World) AddLinkifier(tb testing.TB, admin *chatcore.User, pattern, tmpl string) chatcore.LinkifierID {
	tb.Helper()
	id, err := linkifiers.Add(context.Background(), w.Svc, admin.ID, pattern, tmpl)
	if err != nil {
		tb.Fatalf("add linkifier %q: %v", pattern, err)
	}
	return id
}
