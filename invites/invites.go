// Package invites holds invitations to join a realm as Zulip's REST API
// has them: e-mail invitations (POST /invites, listed, revoked and resent),
// multi-use links (POST /invites/multiuse, revoked), Zulip's daily limit
// on invitations, and the sign-up an invitation link opens ([LinkInfo],
// [SignUp]), which creates the account with the invitation's role and
// channels. As in Zulip, a multi-use link creates no account itself: its
// page asks for an address and [RequestConfirmation] mails that address a
// single-use confirmation link, whose sign-up creates the account. Every operation is one store transaction; e-mails go through
// the Service's mailer and invites_changed events through the event log,
// both after the commit.
package invites

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/internal/emailaddr"
	"github.com/chatcore/chatcore/people"
)

// Bounds and defaults.
const (
	// DailyLimit is how many invitations a realm may send in a day
	// (Zulip's INVITES_DEFAULT_REALM_DAILY_MAX).
	DailyLimit = 3000
	// MaxInvitees bounds the addresses of one request.
	MaxInvitees = 1000
	// MaxInviteeEmailsLength bounds invitee_emails, in bytes.
	MaxInviteeEmailsLength = 256 * 1024
	// MaxStreams bounds stream_ids.
	MaxStreams = 1000
	// DefaultExpiresInMinutes is how long a link works when the request
	// does not say (Zulip's INVITATION_LINK_VALIDITY_MINUTES, 10 days).
	DefaultExpiresInMinutes = 10 * 24 * 60
	// MaxExpiresInMinutes bounds invite_expires_in_minutes (a year).
	MaxExpiresInMinutes = 365 * 24 * 60
)

// Expiry is invite_expires_in_minutes: a number of minutes, or Never.
type Expiry struct {
	// Minutes is the lifetime; ignored when Never.
	Minutes int
	// Never makes the link work until it is revoked (the parameter was null).
	Never bool
}

// Request holds what POST /invites and POST /invites/multiuse share.
type Request struct {
	// Expires is nil for Zulip's default of ten days.
	Expires *Expiry
	// InviteAs is the role of the new accounts (default member).
	InviteAs *chatcore.Role
	// StreamIDs are the channels the new accounts join.
	StreamIDs []chatcore.StreamID
	// IncludeRealmDefaultStreams asks for the realm's default channels too.
	// chatcore has no default channels yet: it only counts as naming
	// channels for the "at least one channel" rule.
	IncludeRealmDefaultStreams bool
}

// EmailRequest is POST /invites: Request plus the addresses.
type EmailRequest struct {
	Request
	// InviteeEmails are the addresses, separated by commas or newlines;
	// "Name <address>" is accepted.
	InviteeEmails string
	// NotifyReferrerOnJoin (default true) sends the inviter a direct
	// message from the notification bot when an invitee signs up.
	NotifyReferrerOnJoin *bool
}

// errInvitation is Zulip's InvitationError: code INVITATION_FAILED with
// the refused addresses ([address, reason, deactivated] triples) and
// whether any invitation went out.
func errInvitation(msg string, refused [][]any, sent, daily bool) *chatcore.Error {
	if refused == nil {
		refused = [][]any{}
	}
	return &chatcore.Error{Code: "INVITATION_FAILED", Kind: chatcore.KindInvalid, Msg: msg, Data: map[string]any{
		"errors": refused, "sent_invitations": sent, "license_limit_reached": false, "daily_limit_reached": daily,
	}}
}

// requireMemberOrAdmin is Zulip's @require_member_or_admin.
func requireMemberOrAdmin(u *chatcore.User) error {
	if u.Role == chatcore.RoleGuest {
		return chatcore.BadRequest("Not allowed for guest users")
	}
	return chatcore.Authorize(u, chatcore.AccessHuman)
}

// validRole reports whether r is a role an invitation can give.
func validRole(r chatcore.Role) bool {
	switch r {
	case chatcore.RoleOwner, chatcore.RoleAdministrator, chatcore.RoleModerator, chatcore.RoleMember, chatcore.RoleGuest:
		return true
	}
	return false
}

// checkRequest validates what needs no store.
func (r *Request) check() error {
	if r.InviteAs != nil && !validRole(*r.InviteAs) {
		return chatcore.BadRequest("Invalid invite_as")
	}
	if len(r.StreamIDs) > MaxStreams {
		return chatcore.TooLongError("stream_ids", MaxStreams)
	}
	if e := r.Expires; e != nil && !e.Never && (e.Minutes < 1 || e.Minutes > MaxExpiresInMinutes) {
		return chatcore.BadRequest("Invalid invite_expires_in_minutes")
	}
	return nil
}

func (r *Request) role() chatcore.Role {
	if r.InviteAs == nil {
		return chatcore.RoleMember
	}
	return *r.InviteAs
}

func (r *Request) expiresAt(now time.Time) time.Time {
	switch {
	case r.Expires == nil:
		return now.Add(DefaultExpiresInMinutes * time.Minute)
	case r.Expires.Never:
		return time.Time{}
	}
	return now.Add(time.Duration(r.Expires.Minutes) * time.Minute)
}

// checkRoleGrant applies Zulip's rules on who may invite as what: only
// owners invite owners, only administrators invite administrators and
// moderators.
func checkRoleGrant(a *chatcore.User, role chatcore.Role) error {
	switch {
	case role == chatcore.RoleOwner && a.Role != chatcore.RoleOwner:
		return chatcore.ErrMustBeOwner()
	case (role == chatcore.RoleAdministrator || role == chatcore.RoleModerator) && !a.Role.IsAdmin():
		return chatcore.ErrMustBeAdmin()
	}
	return nil
}

// checkStreams resolves the invitation's channels: each must be one the
// inviter can access ("Invalid channel ID N. No invites were sent.") and
// may add subscribers to (see checkMaySubscribe).
func checkStreams(ctx context.Context, tx chatcore.Tx, a *chatcore.User, ids []chatcore.StreamID) ([]chatcore.StreamID, error) {
	var out []chatcore.StreamID
	var chans []*chatcore.Stream
	seen := map[chatcore.StreamID]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		st, err := chatcore.StreamInRealm(ctx, tx, a.RealmID, id)
		if err == nil && st.IsArchived {
			err = chatcore.ErrNotFound
		}
		if err == nil && !a.Role.IsAdmin() {
			var acc chatcore.StreamAccess
			acc, err = chatcore.StreamAccessFor(ctx, tx, a, st)
			if err == nil && !acc.OK {
				err = chatcore.ErrNotFound
			}
		}
		if errors.Is(err, chatcore.ErrNotFound) {
			return nil, chatcore.BadRequestf("Invalid channel ID %d. No invites were sent.", id)
		}
		if err != nil {
			return nil, err
		}
		out, chans = append(out, id), append(chans, st)
	}
	if err := checkMaySubscribe(ctx, tx, a, chans); err != nil {
		return nil, err
	}
	return out, nil
}

// checkMaySubscribe refuses an invitation into channels whose subscribers
// the inviter may not add, as Zulip's
// get_streams_to_which_user_cannot_add_subscribers with default channels
// allowed: "You do not have permission to subscribe other users to
// channels."
func checkMaySubscribe(ctx context.Context, tx chatcore.Tx, a *chatcore.User, chans []*chatcore.Stream) error {
	if len(chans) == 0 || a.Role.IsAdmin() {
		return nil
	}
	p, err := chatcore.LoadPermissions(ctx, tx, a.RealmID)
	if err != nil {
		return err
	}
	defaults, err := tx.DefaultStreams(ctx, a.RealmID)
	if err != nil {
		return err
	}
	for _, st := range chans {
		if !slices.Contains(defaults, st.ID) && !channels.MayAddSubscribers(p, a, st) {
			return chatcore.BadRequest("You do not have permission to subscribe other users to channels.")
		}
	}
	return nil
}

// parseEmails is Zulip's get_invitee_emails_set: addresses separated by
// commas or newlines, each possibly "Name <address>", without blanks and
// repeats.
func parseEmails(raw string) []string {
	var out []string
	seen := map[string]bool{}
	for _, part := range strings.FieldsFunc(raw, func(r rune) bool { return r == ',' || r == '\n' }) {
		e := strings.TrimSpace(part)
		if i, j := strings.LastIndex(e, "<"), strings.LastIndex(e, ">"); i >= 0 && j > i {
			e = strings.TrimSpace(e[i+1 : j])
		}
		if e == "" || seen[chatcore.FoldKey(e)] {
			continue
		}
		seen[chatcore.FoldKey(e)] = true
		out = append(out, e)
	}
	return out
}

// newKey returns a random 24-character link key of lower-case letters and
// digits, the shape of Zulip's confirmation keys.
func newKey() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("chatcore: invitation key: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

// LinkURL is the sign-up page of an invitation key: <external URL>/join/<key>/.
func LinkURL(svc *chatcore.Service, key string) string {
	return strings.TrimRight(svc.ExternalURL(), "/") + "/join/" + key + "/"
}

// noreply is the sender of invitation e-mails: noreply@ the external URL's host.
func noreply(svc *chatcore.Service) string {
	host := "localhost"
	if u, err := url.Parse(svc.ExternalURL()); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "noreply@" + host
}

// inviteMail is the invitation e-mail of inv.
func inviteMail(svc *chatcore.Service, realm *chatcore.Realm, inviter *chatcore.User, inv *chatcore.Invite) chatcore.Email {
	expiry := "The link does not expire."
	if !inv.ExpiresAt.IsZero() {
		expiry = "The link works until " + inv.ExpiresAt.UTC().Format("2006-01-02 15:04 UTC") + "."
	}
	return chatcore.Email{
		To:      inv.Email,
		From:    noreply(svc),
		Subject: inviter.FullName + " invited you to join " + realm.Name,
		Body: fmt.Sprintf("Hello,\n\n%s invited you to join %s (%s).\n"+
			"To create your account, open this link:\n\n%s\n\n%s\n",
			inviter.FullName, realm.Name, svc.ExternalURL(), LinkURL(svc, inv.Key), expiry),
	}
}

// invitesChanged queues Zulip's invites_changed event to the realm's
// administrators and the inviter.
func invitesChanged(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, realm chatcore.RealmID, inviter chatcore.UserID) error {
	ids, err := chatcore.ActiveAdminIDs(ctx, tx, realm)
	if err != nil {
		return err
	}
	if inviter != 0 {
		ids = chatcore.IncludeUser(ids, &chatcore.User{ID: inviter})
	}
	fx.Event(realm, ids, map[string]any{"type": "invites_changed"})
	return nil
}

// checkDailyLimit refuses n more invitations when the realm's invitations
// of the last day would exceed DailyLimit.
func checkDailyLimit(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, realm chatcore.RealmID, n int) error {
	recent, err := tx.Invites(ctx, chatcore.InviteFilter{RealmID: realm, CreatedSince: svc.Now().Add(-24 * time.Hour), Limit: DailyLimit + 1})
	if err != nil {
		return err
	}
	count := 0
	for _, inv := range recent {
		if !inv.MultiUse {
			count++
		}
	}
	if count+n > DailyLimit {
		return errInvitation("To protect users, Zulip limits the number of invitations you can send in one day. "+
			"Because you have reached the limit, no invitations were sent.", nil, false, true)
	}
	return nil
}

// Invite sends e-mail invitations, as POST /invites. Rules, in Zulip's
// order (BAD_REQUEST unless said): "Not allowed for guest users" and "This
// endpoint does not accept bot requests."; "Invalid invite_as",
// "Invalid invite_expires_in_minutes"; "Insufficient permission" for one
// outside the realm's can_invite_users_group; UNAUTHORIZED_PRINCIPAL "Must be an
// organization owner" / "Must be an organization administrator" for
// invitations as owner / as administrator or moderator; "You must specify
// at least one email address."; "You must specify at least one channel for
// invitees to join."; "Invalid channel ID N. No invites were sent."; "You
// do not have permission to subscribe other users to channels.";
// INVITATION_FAILED for the daily limit, for addresses that are not ones
// ("Some emails did not validate, so we didn't send any invitations."), for
// addresses that all have accounts ("We weren't able to invite anyone.")
// and, after sending the others, for some that do ("Some of those
// addresses are already using Zulip, ... We did send invitations to
// everyone else!"). An address with a pending invitation gets another.
func Invite(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req EmailRequest) error {
	if len(req.InviteeEmails) > MaxInviteeEmailsLength {
		return chatcore.BadRequestf("invitee_emails is too long (limit: %d characters)", MaxInviteeEmailsLength)
	}
	if err := req.check(); err != nil {
		return err
	}
	emails := parseEmails(req.InviteeEmails)
	if len(emails) > MaxInvitees {
		return chatcore.TooLongError("invitee_emails", MaxInvitees)
	}
	var partial error
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		partial = nil
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := requireMemberOrAdmin(a); err != nil {
			return err
		}
		if err := groups.RequireRealmPermission(ctx, tx, a, "can_invite_users_group"); err != nil {
			return err
		}
		role := req.role()
		if err := checkRoleGrant(a, role); err != nil {
			return err
		}
		if len(emails) == 0 {
			return chatcore.BadRequest("You must specify at least one email address.")
		}
		if len(req.StreamIDs) == 0 && !req.IncludeRealmDefaultStreams {
			return chatcore.BadRequest("You must specify at least one channel for invitees to join.")
		}
		streams, err := checkStreams(ctx, tx, a, req.StreamIDs)
		if err != nil {
			return err
		}
		if err := checkDailyLimit(ctx, svc, tx, a.RealmID, len(emails)); err != nil {
			return err
		}
		var invalid, skipped [][]any
		var send []string
		for _, e := range emails {
			if len(e) > people.MaxEmailLength || !emailaddr.Valid(e) {
				invalid = append(invalid, []any{e, "Invalid address.", false})
				continue
			}
			u, err := tx.UserByEmail(ctx, a.RealmID, e)
			switch {
			case err == nil && u.IsActive:
				skipped = append(skipped, []any{e, "Already has an account.", false})
			case err == nil:
				skipped = append(skipped, []any{e, "Account has been deactivated.", true})
			case errors.Is(err, chatcore.ErrNotFound):
				send = append(send, e)
			default:
				return err
			}
		}
		if len(invalid) > 0 {
			return errInvitation("Some emails did not validate, so we didn't send any invitations.", invalid, false, false)
		}
		if len(send) == 0 {
			return errInvitation("We weren't able to invite anyone.", skipped, false, false)
		}
		realm, err := tx.Realm(ctx, a.RealmID)
		if err != nil {
			return err
		}
		notify := req.NotifyReferrerOnJoin == nil || *req.NotifyReferrerOnJoin
		for _, e := range send {
			key, err := newKey()
			if err != nil {
				return err
			}
			inv := &chatcore.Invite{RealmID: a.RealmID, Key: key, Email: e, InviterID: a.ID, InviteAs: role,
				StreamIDs: streams, IncludeRealmDefaultStreams: req.IncludeRealmDefaultStreams, NotifyReferrer: notify,
				CreatedAt: svc.Now(), ExpiresAt: req.expiresAt(svc.Now())}
			if err := tx.CreateInvite(ctx, inv); err != nil {
				return err
			}
			fx.Mail(inviteMail(svc, realm, a, inv))
		}
		if len(skipped) > 0 {
			partial = errInvitation("Some of those addresses are already using Zulip, so we didn't send them an invitation. "+
				"We did send invitations to everyone else!", skipped, true, false)
		}
		return invitesChanged(ctx, tx, fx, a.RealmID, a.ID)
	})
	if err != nil {
		return err
	}
	return partial
}

// CreateMultiUse creates a multi-use invitation link, as POST
// /invites/multiuse, and returns its URL. The members of the realm's
// create_multiuse_invite_group (its administrators by default) create them:
// BAD_REQUEST "Insufficient permission" for others after the guest and bot
// refusals;
// the role and channel rules are Invite's.
func CreateMultiUse(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req Request) (string, error) {
	if err := req.check(); err != nil {
		return "", err
	}
	key, err := newKey()
	if err != nil {
		return "", err
	}
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := requireMemberOrAdmin(a); err != nil {
			return err
		}
		if err := groups.RequireRealmPermission(ctx, tx, a, "create_multiuse_invite_group"); err != nil {
			return err
		}
		role := req.role()
		if err := checkRoleGrant(a, role); err != nil {
			return err
		}
		streams, err := checkStreams(ctx, tx, a, req.StreamIDs)
		if err != nil {
			return err
		}
		inv := &chatcore.Invite{RealmID: a.RealmID, Key: key, MultiUse: true, InviterID: a.ID, InviteAs: role,
			StreamIDs: streams, IncludeRealmDefaultStreams: req.IncludeRealmDefaultStreams,
			CreatedAt: svc.Now(), ExpiresAt: req.expiresAt(svc.Now())}
		if err := tx.CreateInvite(ctx, inv); err != nil {
			return err
		}
		return invitesChanged(ctx, tx, fx, a.RealmID, a.ID)
	})
	if err != nil {
		return "", err
	}
	return LinkURL(svc, key), nil
}

// View is one invitation of GET /invites, as Zulip shows it.
type View struct {
	ID               chatcore.InviteID `json:"id"`
	InvitedByUserID  chatcore.UserID   `json:"invited_by_user_id"`
	Invited          int64             `json:"invited"`
	ExpiryDate       *int64            `json:"expiry_date"`
	InvitedAs        chatcore.Role     `json:"invited_as"`
	IsMultiuse       bool              `json:"is_multiuse"`
	Email            string            `json:"email,omitempty"`
	LinkURL          string            `json:"link_url,omitempty"`
	NotifyReferrerOn *bool             `json:"notify_referrer_on_join,omitempty"`
}

// usable reports whether inv can still be accepted at now.
func usable(inv *chatcore.Invite, now time.Time) bool {
	return inv.Status == chatcore.InviteActive && (inv.ExpiresAt.IsZero() || now.Before(inv.ExpiresAt))
}

// List answers GET /invites: the usable invitations the actor controls
// (administrators: the realm's; others: their own), by id. Guests and
// bots are refused as by Invite.
func List(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) ([]View, error) {
	out := []View{}
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		out = out[:0]
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := requireMemberOrAdmin(a); err != nil {
			return err
		}
		f := chatcore.InviteFilter{RealmID: a.RealmID, Status: new(chatcore.InviteActive)}
		if !a.Role.IsAdmin() {
			f.InviterID = a.ID
		}
		invs, err := tx.Invites(ctx, f)
		if err != nil {
			return err
		}
		now := svc.Now()
		for i := range invs {
			inv := &invs[i]
			if !usable(inv, now) {
				continue
			}
			v := View{ID: inv.ID, InvitedByUserID: inv.InviterID, Invited: inv.CreatedAt.Unix(), InvitedAs: inv.InviteAs, IsMultiuse: inv.MultiUse}
			if !inv.ExpiresAt.IsZero() {
				v.ExpiryDate = new(inv.ExpiresAt.Unix())
			}
			if inv.MultiUse {
				v.LinkURL = LinkURL(svc, inv.Key)
			} else {
				v.Email = inv.Email
				v.NotifyReferrerOn = new(inv.NotifyReferrer)
			}
			out = append(out, v)
		}
		return nil
	})
	return out, err
}

// controlled loads invitation id for a change by a: missing, another
// realm's, of the other kind or no longer usable gives missing; another
// user's needs an administrator (an owner for an owner invitation).
func controlled(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, a *chatcore.User, id chatcore.InviteID, multi bool, missing *chatcore.Error) (*chatcore.Invite, error) {
	inv, err := tx.Invite(ctx, id)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, missing
	}
	if err != nil {
		return nil, err
	}
	if inv.RealmID != a.RealmID || inv.MultiUse != multi {
		return nil, missing
	}
	if inv.InviterID != a.ID {
		if inv.InviteAs == chatcore.RoleOwner && a.Role != chatcore.RoleOwner {
			return nil, chatcore.ErrMustBeOwner()
		}
		if !a.Role.IsAdmin() {
			return nil, chatcore.ErrMustBeAdmin()
		}
	}
	if inv.Status == chatcore.InviteRevoked && multi {
		return nil, chatcore.BadRequest("Invitation has already been revoked")
	}
	if inv.Status != chatcore.InviteActive {
		return nil, missing
	}
	return inv, nil
}

// Revoke revokes an e-mail invitation, as DELETE /invites/{id}: its link
// stops working. Errors: the guest and bot refusals; BAD_REQUEST "No such
// invitation" for a missing, used or revoked one, another realm's or a
// multi-use link's id; UNAUTHORIZED_PRINCIPAL "Must be an organization
// administrator" for another user's invitation ("Must be an organization
// owner" when it invites an owner).
func Revoke(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.InviteID) error {
	return revoke(ctx, svc, actorID, id, false, chatcore.BadRequest("No such invitation"))
}

// RevokeMultiUse revokes a multi-use link, as DELETE /invites/multiuse/{id}.
// Errors are Revoke's, with BAD_REQUEST "Invalid invitation ID." for a
// missing one and "Invitation has already been revoked" for a revoked one.
func RevokeMultiUse(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.InviteID) error {
	return revoke(ctx, svc, actorID, id, true, chatcore.BadRequest("Invalid invitation ID."))
}

func revoke(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.InviteID, multi bool, missing *chatcore.Error) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := requireMemberOrAdmin(a); err != nil {
			return err
		}
		inv, err := controlled(ctx, svc, tx, a, id, multi, missing)
		if err != nil {
			return err
		}
		inv.Status = chatcore.InviteRevoked
		if err := tx.UpdateInvite(ctx, inv); err != nil {
			return err
		}
		return invitesChanged(ctx, tx, fx, a.RealmID, inv.InviterID)
	})
}

// Resend sends an e-mail invitation again, as POST /invites/{id}/resend:
// the link gets a fresh lifetime of the same length (one that never
// expires stays so) and counts against the daily limit. Errors are
// Revoke's, and INVITATION_FAILED for the daily limit.
func Resend(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.InviteID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := requireMemberOrAdmin(a); err != nil {
			return err
		}
		inv, err := controlled(ctx, svc, tx, a, id, false, chatcore.BadRequest("No such invitation"))
		if err != nil {
			return err
		}
		if !usable(inv, svc.Now()) {
			return chatcore.BadRequest("No such invitation")
		}
		if err := checkDailyLimit(ctx, svc, tx, a.RealmID, 1); err != nil {
			return err
		}
		if !inv.ExpiresAt.IsZero() {
			inv.ExpiresAt = svc.Now().Add(inv.ExpiresAt.Sub(inv.CreatedAt))
		}
		inv.CreatedAt = svc.Now()
		if err := tx.UpdateInvite(ctx, inv); err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, a.RealmID)
		if err != nil {
			return err
		}
		inviter := a
		if inv.InviterID != a.ID {
			if u, err := tx.User(ctx, inv.InviterID); err == nil {
				inviter = u
			}
		}
		fx.Mail(inviteMail(svc, realm, inviter, inv))
		return invitesChanged(ctx, tx, fx, a.RealmID, inv.InviterID)
	})
}
