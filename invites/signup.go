package invites

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/people"
)

// ErrLinkInvalid is the refusal of an invitation link that is unknown,
// expired, revoked or (single-use) already used: 404-kind "The confirmation
// link has expired or been deactivated.", as Zulip's confirmation pages
// say it.
func errLinkInvalid() *chatcore.Error {
	return chatcore.NotFound("The confirmation link has expired or been deactivated.")
}

// IsLinkInvalid reports whether err is the refusal of a link that no longer
// works (see [LinkInfo]).
func IsLinkInvalid(err error) bool {
	e, ok := errors.AsType[*chatcore.Error](err)
	return ok && e.Kind == chatcore.KindNotFound && e.Msg == errLinkInvalid().Msg
}

// Link is what the sign-up page of an invitation shows.
type Link struct {
	RealmName string
	// Email is the invited address; "" for a multi-use link (the page asks).
	Email    string
	MultiUse bool
	InviteAs chatcore.Role
	// InviterName is who sent it ("" when unknown).
	InviterName string
}

// load returns the usable invitation with the key, or errLinkInvalid;
// chatcore.ErrRealmDeactivated when its realm was deactivated.
func load(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, key string) (*chatcore.Invite, error) {
	if len(key) == 0 || len(key) > 64 {
		return nil, errLinkInvalid()
	}
	inv, err := tx.InviteByKey(ctx, key)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, errLinkInvalid()
	}
	if err != nil {
		return nil, err
	}
	if !usable(inv, svc.Now()) {
		return nil, errLinkInvalid()
	}
	realm, err := tx.Realm(ctx, inv.RealmID)
	if err != nil {
		return nil, err
	}
	if realm.Deactivated {
		return nil, chatcore.ErrRealmDeactivated()
	}
	return inv, nil
}

// LinkInfo describes the invitation of a link key for its sign-up page.
// A key that does not work gives the error [IsLinkInvalid] recognises.
func LinkInfo(ctx context.Context, svc *chatcore.Service, key string) (Link, error) {
	var l Link
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		inv, err := load(ctx, svc, tx, key)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, inv.RealmID)
		if err != nil {
			return err
		}
		l = Link{RealmName: realm.Name, Email: inv.Email, MultiUse: inv.MultiUse, InviteAs: inv.InviteAs}
		if u, err := tx.User(ctx, inv.InviterID); err == nil {
			l.InviterName = u.FullName
		}
		return nil
	})
	return l, err
}

// SignUpRequest is what the sign-up page of an e-mail invitation posts
// (the account gets the invited address).
type SignUpRequest struct {
	FullName string
	Password string
}

// SignUpResult is the account a sign-up created.
type SignUpResult struct {
	UserID chatcore.UserID
	Email  string
	// APIKey is the new account's API key, shown once.
	APIKey    string
	RealmName string
}

// SignUp creates the account of an e-mail invitation's link (one sent by
// [Invite] or the confirmation link [RequestConfirmation] mails for a
// multi-use link), as Zulip's registration page does: the password must
// pass the Service's policy (BAD_REQUEST "The password is too weak."), the
// name Zulip's rules; the account gets the invited address and the
// invitation's role and channels, and the invitation is used up. The
// inviter gets a direct message from the notification bot when they asked
// for it. A multi-use link's key is refused (BAD_REQUEST): its accounts
// are created only from the mailed confirmation link, so that nobody
// signs up with an address they cannot read. Errors: the link refusal of
// [LinkInfo]; those of [people.CreateAccountInTx] ("Email 'X' already in
// use", ...). Events: realm_user add, the subscription events,
// invites_changed.
func SignUp(ctx context.Context, svc *chatcore.Service, key string, req SignUpRequest) (SignUpResult, error) {
	var res SignUpResult
	if err := people.CheckBounds(req.FullName, ""); err != nil {
		return res, err
	}
	if err := people.CheckPassword(svc, req.Password); err != nil {
		return res, err
	}
	// A quick look first, so that a dead link costs no password hashing.
	if l, err := LinkInfo(ctx, svc, key); err != nil {
		return res, err
	} else if l.MultiUse {
		return res, errConfirmFirst()
	}
	hash, err := svc.HashPassword(ctx, req.Password)
	if err != nil {
		return res, err
	}
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		inv, err := load(ctx, svc, tx, key)
		if err != nil {
			return err
		}
		if inv.MultiUse {
			return errConfirmFirst()
		}
		u, apiKey, err := people.CreateAccountInTx(ctx, svc, tx, fx, people.NewAccount{
			RealmID: inv.RealmID, Email: inv.Email, FullName: req.FullName, PasswordHash: hash,
			Role: inv.InviteAs, Streams: inv.StreamIDs, DefaultStreams: inv.IncludeRealmDefaultStreams, ActorID: inv.InviterID,
		})
		if err != nil {
			return err
		}
		inv.Status, inv.UsedByID = chatcore.InviteUsed, u.ID
		if err := tx.UpdateInvite(ctx, inv); err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, inv.RealmID)
		if err != nil {
			return err
		}
		if inv.NotifyReferrer && inv.InviterID != 0 {
			if err := notifyReferrer(ctx, svc, tx, fx, inv.InviterID, u); err != nil {
				return err
			}
		}
		res = SignUpResult{UserID: u.ID, Email: u.Email, APIKey: apiKey, RealmName: realm.Name}
		return invitesChanged(ctx, tx, fx, inv.RealmID, inv.InviterID)
	})
	return res, err
}

// notifyReferrer sends the inviter, when still active, the notification
// bot's direct message that the invitee joined.
func notifyReferrer(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, inviterID chatcore.UserID, u *chatcore.User) error {
	inviter, err := tx.User(ctx, inviterID)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if !inviter.IsActive || inviter.IsBot {
		return nil
	}
	bot, err := svc.NotificationBot(ctx, tx, u.RealmID)
	if err != nil {
		return err
	}
	content := fmt.Sprintf("@_**%s|%d** accepted your invitation to join Zulip!", u.FullName, u.ID)
	_, err = svc.SendInTx(ctx, tx, fx, bot, chatcore.Destination{To: []chatcore.UserID{inviter.ID}}, content, "Internal")
	return err
}
