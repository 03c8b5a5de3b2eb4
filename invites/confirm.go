package invites

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/emailaddr"
	"github.com/chatcore/chatcore/people"
)

// ConfirmationValidity is how long the confirmation link a multi-use
// link mails works (Zulip's one-day confirmation links); never past the
// multi-use link's own expiry.
const ConfirmationValidity = 24 * time.Hour

// ConfirmationInterval is how soon after a confirmation link went out to
// an address the multi-use page mails that address another one: requests
// in between get the same answer and no mail, so a public link cannot be
// used to flood someone's mailbox.
const ConfirmationInterval = 5 * time.Minute

// errConfirmFirst refuses creating an account straight from a multi-use
// link: the address must be confirmed through [RequestConfirmation] first.
func errConfirmFirst() *chatcore.Error {
	return chatcore.BadRequest("Enter your e-mail address first: we will mail you a link to create your account.")
}

// RequestConfirmation is the e-mail step of a multi-use link, as Zulip's
// page for such a link: it mails email a single-use confirmation link
// (an e-mail invitation with the multi-use link's role and channels and
// inviter, working for [ConfirmationValidity]), whose sign-up page
// ([SignUp]) creates the account. No account is created here. An address
// that already has an account in the realm (active or deactivated) gets
// no link, with the same nil answer, so the caller's page does not tell
// who has an account. Neither does an address invited less than
// [ConfirmationInterval] ago. The confirmation counts against the realm's
// [DailyLimit] and is listed by [List] like any e-mail invitation.
// Errors: the link refusal of [LinkInfo] (also for a key that is not a
// multi-use link's); BAD_REQUEST "Enter a valid email address." for a
// malformed or over-long address; INVITATION_FAILED for the daily limit.
// Events: invites_changed when a link goes out.
func RequestConfirmation(ctx context.Context, svc *chatcore.Service, key, email string) error {
	if len(email) > people.MaxEmailLength || !emailaddr.Valid(email) {
		return chatcore.BadRequest("Enter a valid email address.")
	}
	confirmKey, err := newKey()
	if err != nil {
		return err
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		link, err := load(ctx, svc, tx, key)
		if err != nil {
			return err
		}
		if !link.MultiUse {
			return errLinkInvalid()
		}
		switch _, err := tx.UserByEmail(ctx, link.RealmID, email); {
		case err == nil:
			return nil // has an account: nothing to confirm, and nothing said
		case !errors.Is(err, chatcore.ErrNotFound):
			return err
		}
		now := svc.Now()
		recent, err := tx.Invites(ctx, chatcore.InviteFilter{RealmID: link.RealmID, Email: email,
			CreatedSince: now.Add(-ConfirmationInterval), Limit: 1})
		if err != nil {
			return err
		}
		if len(recent) > 0 {
			return nil // one went out moments ago: not another
		}
		if err := checkDailyLimit(ctx, svc, tx, link.RealmID, 1); err != nil {
			return err
		}
		expires := now.Add(ConfirmationValidity)
		if !link.ExpiresAt.IsZero() && link.ExpiresAt.Before(expires) {
			expires = link.ExpiresAt
		}
		inv := &chatcore.Invite{RealmID: link.RealmID, Key: confirmKey, Email: email, InviterID: link.InviterID,
			InviteAs: link.InviteAs, StreamIDs: link.StreamIDs, IncludeRealmDefaultStreams: link.IncludeRealmDefaultStreams,
			CreatedAt: now, ExpiresAt: expires}
		if err := tx.CreateInvite(ctx, inv); err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, link.RealmID)
		if err != nil {
			return err
		}
		fx.Mail(confirmMail(svc, realm, inv))
		return invitesChanged(ctx, tx, fx, link.RealmID, link.InviterID)
	})
}

// confirmMail is the confirmation e-mail of a multi-use link's sign-up.
func confirmMail(svc *chatcore.Service, realm *chatcore.Realm, inv *chatcore.Invite) chatcore.Email {
	return chatcore.Email{
		To:      inv.Email,
		From:    noreply(svc),
		Subject: "Confirm your e-mail address for " + realm.Name,
		Body: fmt.Sprintf("Hello,\n\nSomeone (hopefully you) asked to join %s (%s) with this e-mail address.\n"+
			"To confirm it and create your account, open this link:\n\n%s\n\n"+
			"The link works until %s. If you did not ask for this, ignore this e-mail.\n",
			realm.Name, svc.ExternalURL(), LinkURL(svc, inv.Key), inv.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC")),
	}
}
