package people

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/emailaddr"
	"github.com/chatcore/chatcore/internal/slicex"
)

// Bounds on what a request carries, checked before any store access.
const (
	// MaxEmailLength bounds an e-mail address (RFC 5321's 254).
	MaxEmailLength = 254
	// MaxPasswordLength bounds a password, in bytes.
	MaxPasswordLength = 1024
)

// NewAPIKey returns a fresh random API key: 32 ASCII letters and digits,
// as [chatcore.ValidAPIKey] wants.
func NewAPIKey() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("chatcore: api key: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

// NewAccount describes an account [CreateAccountInTx] creates.
type NewAccount struct {
	RealmID  chatcore.RealmID
	Email    string
	FullName string
	// PasswordHash is the Service's hash of the password ([chatcore.Service.HashPassword],
	// computed before the transaction: hashing is slow); "" for none.
	PasswordHash string
	Role         chatcore.Role
	// Streams are the channels the account is subscribed to (those that
	// no longer exist or are archived are skipped).
	Streams []chatcore.StreamID
	// DefaultStreams adds the realm's default channels to Streams, as
	// Zulip's account creation does unless an invitation leaves them out.
	DefaultStreams bool
	// ActorID is who creates the account (an administrator, or the
	// inviter of a sign-up); zero: the new user themselves.
	ActorID chatcore.UserID
}

// checkNewEmail applies the address checks of account creation: BAD_REQUEST
// "Bad name or username" for an address that is not one, "Email 'X' already
// in use" for an address an account of the realm has.
func checkNewEmail(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, email string) error {
	if len(email) > MaxEmailLength || !emailaddr.Valid(email) {
		return chatcore.BadRequest("Bad name or username")
	}
	_, err := tx.UserByEmail(ctx, realm, email)
	if err == nil {
		return chatcore.BadRequestf("Email '%s' already in use", email)
	}
	if !errors.Is(err, chatcore.ErrNotFound) {
		return err
	}
	return nil
}

// checkNewName applies Zulip's full-name rules and, in a realm requiring
// unique names, refuses a name someone has.
func checkNewName(ctx context.Context, tx chatcore.Tx, realm *chatcore.Realm, name string, self chatcore.UserID) (string, error) {
	name, err := accounts.CheckFullName(name)
	if err != nil {
		return "", err
	}
	if realm.RequireUniqueNames {
		others, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm.ID, FullNameKey: chatcore.FoldKey(name)})
		if err != nil {
			return "", err
		}
		for _, o := range others {
			if o.ID != self {
				return "", chatcore.BadRequest("Unique names required in this organization.")
			}
		}
	}
	return name, nil
}

// CreateAccountInTx creates the human account a describes inside the
// caller's transaction, with the realm's defaults for new accounts
// (PATCH /realm/user_settings_defaults) and its language, subscribes it to a.Streams (and the realm's
// default channels with a.DefaultStreams), queues the realm_user
// add events (each viewer sees the address as email_address_visibility
// lets them) and returns the user with the new API key, shown once: only
// its hash is stored. Errors (BAD_REQUEST): "Bad name or username", "Email
// 'X' already in use", the full-name refusals of
// [accounts.CheckFullName] and "Unique names required in this
// organization.".
func CreateAccountInTx(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, a NewAccount) (*chatcore.User, string, error) {
	realm, err := tx.Realm(ctx, a.RealmID)
	if err != nil {
		return nil, "", err
	}
	if err := checkNewEmail(ctx, tx, realm.ID, a.Email); err != nil {
		return nil, "", err
	}
	name, err := checkNewName(ctx, tx, realm, a.FullName, 0)
	if err != nil {
		return nil, "", err
	}
	key, err := NewAPIKey()
	if err != nil {
		return nil, "", err
	}
	defaults, err := tx.RealmUserDefaults(ctx, realm.ID)
	if err != nil {
		return nil, "", err
	}
	if realm.DefaultLanguage != "" {
		defaults.DefaultLanguage = realm.DefaultLanguage
	}
	u := &chatcore.User{
		RealmID: realm.ID, Email: a.Email, FullName: name, FullNameKey: chatcore.FoldKey(name),
		Role: a.Role, IsActive: true, APIKeyHash: chatcore.HashAPIKey(key), PasswordHash: a.PasswordHash,
		AvatarSource: "G", DateJoined: svc.Now(), Settings: defaults,
	}
	if err := tx.CreateUser(ctx, u); err != nil {
		if errors.Is(err, chatcore.ErrConflict) {
			return nil, "", chatcore.BadRequestf("Email '%s' already in use", a.Email)
		}
		return nil, "", err
	}
	if err := userAddEvents(ctx, svc, tx, fx, u); err != nil {
		return nil, "", err
	}
	streams := a.Streams
	if a.DefaultStreams {
		defaults, err := tx.DefaultStreams(ctx, realm.ID)
		if err != nil {
			return nil, "", err
		}
		streams = slicex.SortedSet(append(slices.Clone(streams), defaults...))
	}
	if len(streams) > 0 {
		var sts []*chatcore.Stream
		for _, id := range streams {
			st, err := chatcore.StreamInRealm(ctx, tx, realm.ID, id)
			if errors.Is(err, chatcore.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, "", err
			}
			if !st.IsArchived {
				sts = append(sts, st)
			}
		}
		actor := u
		if a.ActorID != 0 {
			if inviter, err := tx.User(ctx, a.ActorID); err == nil {
				actor = inviter
			}
		}
		if err := channels.SubscribeInTx(ctx, svc, tx, fx, actor, sts, []*chatcore.User{u}); err != nil {
			return nil, "", err
		}
	}
	return u, key, nil
}

// userAddEvents queues realm_user add events for u to every active user of
// its realm: those who may see u's real address get it as delivery_email,
// the others null (and the stand-in address as email when u hides it).
func userAddEvents(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User) error {
	viewers, err := tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, Active: new(true)})
	if err != nil {
		return err
	}
	var seeing, blind []chatcore.UserID
	var seen, hidden chatcore.UserView
	for i := range viewers {
		v := svc.ViewUser(&viewers[i], u, true)
		if v.DeliveryEmail != nil {
			seeing, seen = append(seeing, viewers[i].ID), v
		} else {
			blind, hidden = append(blind, viewers[i].ID), v
		}
	}
	if len(seeing) > 0 {
		fx.Event(u.RealmID, seeing, map[string]any{"type": "realm_user", "op": "add", "person": seen})
	}
	if len(blind) > 0 {
		fx.Event(u.RealmID, blind, map[string]any{"type": "realm_user", "op": "add", "person": hidden})
	}
	return nil
}

// userUpdateEvent queues a realm_user update of u's fields to every active
// user of the realm.
func userUpdateEvent(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User, fields map[string]any) error {
	everyone, err := chatcore.ActiveUserIDs(ctx, tx, u.RealmID)
	if err != nil {
		return err
	}
	person := map[string]any{"user_id": u.ID}
	for k, v := range fields {
		person[k] = v
	}
	fx.Event(u.RealmID, everyone, map[string]any{"type": "realm_user", "op": "update", "person": person})
	return nil
}

// botDomain is the domain of bot addresses: the host of the Service's
// external URL when it is a domain name, else "chatcore.invalid" (as the
// stand-in addresses of hidden e-mails).
func botDomain(svc *chatcore.Service) string {
	if u, err := url.Parse(svc.ExternalURL()); err == nil {
		h := strings.ToLower(u.Hostname())
		if strings.Contains(h, ".") && net.ParseIP(h) == nil {
			return h
		}
	}
	return "chatcore.invalid"
}

// checkPassword bounds a password and applies the Service's policy:
// BAD_REQUEST "The password is too weak." as Zulip's PASSWORD_TOO_WEAK_ERROR.
func checkPassword(svc *chatcore.Service, pw string) error {
	if len(pw) > MaxPasswordLength || !utf8.ValidString(pw) {
		return chatcore.BadRequest("The password is too weak.")
	}
	if !svc.PasswordStrongEnough(pw) {
		return chatcore.BadRequest("The password is too weak.")
	}
	return nil
}

// CheckPassword applies the Service's password policy as account creation
// does: nil, or BAD_REQUEST "The password is too weak.".
func CheckPassword(svc *chatcore.Service, pw string) error { return checkPassword(svc, pw) }

// maxNameBytes bounds a full name before any store access: Zulip's 100
// characters of at most four bytes each ([accounts.CheckFullName] then
// counts the characters).
const maxNameBytes = 400

// CheckBounds refuses, before any store access, a name or address longer
// than any account can have: BAD_REQUEST "Name too long!" or "Bad name or
// username".
func CheckBounds(fullName, email string) error {
	if len(fullName) > maxNameBytes {
		return chatcore.BadRequest("Name too long!")
	}
	if len(email) > MaxEmailLength {
		return chatcore.BadRequest("Bad name or username")
	}
	return nil
}
