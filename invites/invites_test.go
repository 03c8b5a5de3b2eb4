package invites_test

import (
	"regexp"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/invites"
	"github.com/matryer/is"
)

const pw = "Correct-Horse-Battery-42"

// An invitation's link stops working once it expires; one that never
// expires keeps working.
func TestInvitationLinksExpire(t *testing.T) {
	is := is.New(t)
	w := chattest.New(t)
	realm := w.AddRealm(t, "acme")
	owner := w.AddUser(t, realm, "Olivia Owner", chatcore.RoleOwner)
	st := w.AddChannel(t, chattest.Channel{Realm: realm, Name: "general"})
	ctx := t.Context()
	short, never := &invites.Expiry{Minutes: 60}, &invites.Expiry{Never: true}
	is.NoErr(invites.Invite(ctx, w.Svc, owner.ID, invites.EmailRequest{InviteeEmails: "soon@example.test",
		Request: invites.Request{Expires: short, StreamIDs: []chatcore.StreamID{st.ID}}}))
	is.NoErr(invites.Invite(ctx, w.Svc, owner.ID, invites.EmailRequest{InviteeEmails: "later@example.test",
		Request: invites.Request{Expires: never, StreamIDs: []chatcore.StreamID{st.ID}}}))
	link, err := invites.CreateMultiUse(ctx, w.Svc, owner.ID, invites.Request{Expires: short})
	is.NoErr(err)
	linkKey := regexp.MustCompile(`/join/([a-z0-9]{24})/`)
	key := func(addr string) string {
		for _, m := range w.Mail.All() {
			if m.To == addr {
				return linkKey.FindStringSubmatch(m.Body)[1]
			}
		}
		t.Fatalf("no e-mail to %s", addr)
		return ""
	}
	soon, later := key("soon@example.test"), key("later@example.test")
	multi := linkKey.FindStringSubmatch(link)[1]
	for _, k := range []string{soon, later, multi} {
		_, err := invites.LinkInfo(ctx, w.Svc, k)
		is.NoErr(err) // every link works at first
	}
	w.Clock.Advance(61 * time.Minute)
	for _, k := range []string{soon, multi} {
		_, err := invites.LinkInfo(ctx, w.Svc, k)
		is.True(invites.IsLinkInvalid(err)) // expired
		_, err = invites.SignUp(ctx, w.Svc, k, invites.SignUpRequest{FullName: "X", Password: pw})
		is.True(invites.IsLinkInvalid(err)) // and no account
	}
	vs, err := invites.List(ctx, w.Svc, owner.ID)
	is.NoErr(err)
	is.Equal(len(vs), 1) // only the link that never expires is listed
	res, err := invites.SignUp(ctx, w.Svc, later, invites.SignUpRequest{FullName: "Late Comer", Password: pw})
	is.NoErr(err) // the never-expiring link works
	is.Equal(res.Email, "later@example.test")
	_, err = invites.SignUp(ctx, w.Svc, later, invites.SignUpRequest{FullName: "Late Comer", Password: pw})
	is.True(invites.IsLinkInvalid(err)) // once
}

// Deactivating a user revokes the invitations they sent.
func TestDeactivationRevokesInvitations(t *testing.T) {
	is := is.New(t)
	w := chattest.New(t)
	realm := w.AddRealm(t, "acme")
	owner := w.AddUser(t, realm, "Olivia Owner", chatcore.RoleOwner)
	admin := w.AddUser(t, realm, "Ada Admin", chatcore.RoleAdministrator)
	st := w.AddChannel(t, chattest.Channel{Realm: realm, Name: "general"})
	ctx := t.Context()
	is.NoErr(invites.Invite(ctx, w.Svc, admin.ID, invites.EmailRequest{InviteeEmails: "friend@example.test",
		Request: invites.Request{StreamIDs: []chatcore.StreamID{st.ID}}}))
	link, err := invites.CreateMultiUse(ctx, w.Svc, admin.ID, invites.Request{})
	is.NoErr(err)
	key := regexp.MustCompile(`/join/([a-z0-9]{24})/`).FindStringSubmatch(link)[1]
	_, err = invites.LinkInfo(ctx, w.Svc, key)
	is.NoErr(err) // works while the inviter is active
	w.Events.Reset()
	is.NoErr(accounts.DeactivateUser(ctx, w.Svc, owner.ID, admin.ID, accounts.DeactivateUserRequest{}))
	_, err = invites.LinkInfo(ctx, w.Svc, key)
	is.True(invites.IsLinkInvalid(err)) // revoked with the deactivation
	changed := w.Events.OfType("invites_changed")
	is.Equal(len(changed), 1)                                 // the administrators' invitation lists are told
	is.Equal(changed[0].UserIDs, []chatcore.UserID{owner.ID}) // the remaining administrators
	vs, err := invites.List(ctx, w.Svc, owner.ID)
	is.NoErr(err)
	is.Equal(len(vs), 0) // nothing left to accept
}
