package invites_test

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/invites"
	"github.com/matryer/is"
)

// A multi-use link creates no account by itself: the address must be
// confirmed through the mailed single-use link, whose sign-up creates the
// account with the multi-use link's role and channels.
func TestMultiUseLinkConfirmsTheAddress(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w := open(t)
		realm := w.AddRealm(t, "acme")
		owner := w.AddUser(t, realm, "Olivia Owner", chatcore.RoleOwner)
		w.AddUser(t, realm, "Ed Existing", chatcore.RoleMember, func(u *chatcore.User) { u.Email = "ed@example.test" })
		st := w.AddChannel(t, chattest.Channel{Realm: realm, Name: "general"})
		ctx := t.Context()
		link, err := invites.CreateMultiUse(ctx, w.Svc, owner.ID, invites.Request{
			InviteAs: new(chatcore.RoleModerator), StreamIDs: []chatcore.StreamID{st.ID}})
		is.NoErr(err)
		linkKey := regexp.MustCompile(`/join/([a-z0-9]{24})/`)
		multi := linkKey.FindStringSubmatch(link)[1]
		userByEmail := func(addr string) (*chatcore.User, error) {
			var u *chatcore.User
			err := w.Svc.View(ctx, func(tx chatcore.Tx) error {
				var err error
				u, err = tx.UserByEmail(ctx, realm.ID, addr)
				return err
			})
			return u, err
		}

		// Signing up straight from the multi-use link is refused.
		_, err = invites.SignUp(ctx, w.Svc, multi, invites.SignUpRequest{FullName: "Mallory", Password: pw})
		is.True(err != nil && !invites.IsLinkInvalid(err)) // refused, the link still alive

		// Asking for a confirmation creates no account, but mails a link.
		is.NoErr(invites.RequestConfirmation(ctx, w.Svc, multi, "new@example.test"))
		_, err = userByEmail("new@example.test")
		is.True(errors.Is(err, chatcore.ErrNotFound)) // no account yet
		mails := w.Mail.All()
		is.Equal(len(mails), 1)
		is.Equal(mails[0].To, "new@example.test") // mailed to the address given
		m := linkKey.FindStringSubmatch(mails[0].Body)
		is.True(m != nil && m[1] != multi) // a link of its own
		confirm := m[1]
		l, err := invites.LinkInfo(ctx, w.Svc, confirm)
		is.NoErr(err)
		is.Equal(l.MultiUse, false)                  // single-use
		is.Equal(l.Email, "new@example.test")        // for that address
		is.Equal(l.InviteAs, chatcore.RoleModerator) // with the link's role

		// Asking again at once mails nothing more.
		is.NoErr(invites.RequestConfirmation(ctx, w.Svc, multi, "new@example.test"))
		is.Equal(len(w.Mail.All()), 1) // throttled
		// An address with an account gets no mail, and the same answer.
		is.NoErr(invites.RequestConfirmation(ctx, w.Svc, multi, "ed@example.test"))
		is.Equal(len(w.Mail.All()), 1) // nothing sent
		// A malformed address is refused.
		err = invites.RequestConfirmation(ctx, w.Svc, multi, "not-an-address")
		is.True(err != nil)

		// The mailed link creates the account, once.
		res, err := invites.SignUp(ctx, w.Svc, confirm, invites.SignUpRequest{FullName: "Nina New", Password: pw})
		is.NoErr(err)
		is.Equal(res.Email, "new@example.test")
		u, err := userByEmail("new@example.test")
		is.NoErr(err)
		is.Equal(u.Role, chatcore.RoleModerator) // the link's role
		is.NoErr(w.Svc.View(ctx, func(tx chatcore.Tx) error {
			_, err := tx.Subscription(ctx, st.ID, u.ID)
			return err
		})) // and channels
		_, err = invites.SignUp(ctx, w.Svc, confirm, invites.SignUpRequest{FullName: "Nina New", Password: pw})
		is.True(invites.IsLinkInvalid(err)) // used up

		// The confirmation link is short-lived.
		is.NoErr(invites.RequestConfirmation(ctx, w.Svc, multi, "slow@example.test"))
		slow := linkKey.FindStringSubmatch(w.Mail.All()[1].Body)[1]
		w.Clock.Advance(invites.ConfirmationValidity + time.Minute)
		_, err = invites.SignUp(ctx, w.Svc, slow, invites.SignUpRequest{FullName: "Slow", Password: pw})
		is.True(invites.IsLinkInvalid(err)) // expired

		// A revoked multi-use link mails nothing.
		vs, err := invites.List(ctx, w.Svc, owner.ID)
		is.NoErr(err)
		for _, v := range vs {
			if v.IsMultiuse {
				is.NoErr(invites.RevokeMultiUse(ctx, w.Svc, owner.ID, v.ID))
			}
		}
		err = invites.RequestConfirmation(ctx, w.Svc, multi, "late@example.test")
		is.True(invites.IsLinkInvalid(err)) // refused
		is.Equal(len(w.Mail.All()), 2)      // and nothing sent
	})
}

// The confirmations a multi-use link mails count against the realm's
// daily invitation limit, so a public link cannot mail without bound.
func TestMultiUseConfirmationDailyLimit(t *testing.T) {
	is := is.New(t)
	w := chattest.New(t)
	realm := w.AddRealm(t, "acme")
	owner := w.AddUser(t, realm, "Olivia Owner", chatcore.RoleOwner)
	st := w.AddChannel(t, chattest.Channel{Realm: realm, Name: "general"})
	ctx := t.Context()
	link, err := invites.CreateMultiUse(ctx, w.Svc, owner.ID, invites.Request{})
	is.NoErr(err)
	multi := regexp.MustCompile(`/join/([a-z0-9]{24})/`).FindStringSubmatch(link)[1]
	for batch := range 3 {
		var addrs []string
		for i := range invites.DailyLimit/3 - 1 {
			addrs = append(addrs, fmt.Sprintf("bulk%d-%d@example.test", batch, i))
		}
		is.NoErr(invites.Invite(ctx, w.Svc, owner.ID, invites.EmailRequest{InviteeEmails: strings.Join(addrs, ","),
			Request: invites.Request{StreamIDs: []chatcore.StreamID{st.ID}}}))
	}
	for i := range 3 {
		is.NoErr(invites.RequestConfirmation(ctx, w.Svc, multi, fmt.Sprintf("c%d@example.test", i))) // up to the limit
	}
	sent := len(w.Mail.All())
	err = invites.RequestConfirmation(ctx, w.Svc, multi, "one-too-many@example.test")
	e := chattest.WantError(t, err, "INVITATION_FAILED", chatcore.KindInvalid,
		"To protect users, Zulip limits the number of invitations you can send in one day. "+
			"Because you have reached the limit, no invitations were sent.")
	is.Equal(e.Data["daily_limit_reached"], true)
	is.Equal(len(w.Mail.All()), sent) // nothing mailed
	w.Clock.Advance(25 * time.Hour)
	is.NoErr(invites.RequestConfirmation(ctx, w.Svc, multi, "one-too-many@example.test")) // a day later it works
}
