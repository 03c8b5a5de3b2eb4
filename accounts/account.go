package accounts

// Account changes made through PATCH /settings and the e-mail confirmation
// link: the password change, the e-mail address change (started, then
// confirmed), and Zulip's full-name rules.

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/emailaddr"
	"github.com/chatcore/chatcore/internal/ratelimit"
)

// emailChangeValidity is how long an e-mail change confirmation link works.
const emailChangeValidity = 24 * time.Hour

// maxFullNameLength is Zulip's limit on full names, in characters.
const maxFullNameLength = 100

// fullNameInvalidChars may not appear in a full name (Zulip's NAME_INVALID_CHARS).
const fullNameInvalidChars = "*`\\>\"@"

func errConfirmationLink() *chatcore.Error {
	return chatcore.NotFound("The confirmation link has expired or been deactivated.")
}

// passwordChange is a verified password change, prepared outside the write
// transaction so the deliberately slow hashing never holds the store's writer.
type passwordChange struct {
	oldHash string // the stored hash the old password was verified against
	newHash string
}

// preparePasswordChange checks the request as far as the password step
// (actor, bot, then invalid, the request's validation error), verifies the
// old password and hashes the new one.
func preparePasswordChange(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req *SettingsUpdate, invalid error) (*passwordChange, error) {
	var stored string
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := settingsActor(ctx, svc, tx, actorID)
		if err != nil {
			return err
		}
		if invalid != nil {
			return invalid
		}
		stored = u.PasswordHash
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Every attempt counts against the user's failed-attempt limit (Zulip's
	// authenticate_by_username) before any hashing; a correct password clears
	// the count. Zulip reports this limit as a plain 400, not a 429.
	if wait, ok := svc.TakePasswordAttempt(actorID); !ok {
		return nil, chatcore.BadRequestf("You're making too many attempts! Try again in %d seconds.", ratelimit.Seconds(wait))
	}
	ok := false
	if req.OldPassword != nil && stored != "" {
		ok, err = svc.VerifyPassword(ctx, stored, *req.OldPassword)
		if err != nil {
			return nil, fmt.Errorf("chatcore: verifying the password of user %d: %w", actorID, err)
		}
	}
	if !ok {
		return nil, chatcore.BadRequest("Wrong password!")
	}
	svc.ForgetPasswordAttempts(actorID)
	if !svc.PasswordStrongEnough(*req.NewPassword) {
		return nil, chatcore.BadRequest("New password is too weak!")
	}
	h, err := svc.HashPassword(ctx, *req.NewPassword)
	if err != nil {
		return nil, fmt.Errorf("chatcore: hashing a password: %w", err)
	}
	return &passwordChange{oldHash: stored, newHash: h}, nil
}

// CheckFullName applies Zulip's full-name rules (as a name change does) and
// returns the name as stored, without surrounding whitespace. A refused name
// is a BAD_REQUEST [*chatcore.Error] with Zulip's message, such as "Name too long!".
func CheckFullName(name string) (string, error) { return checkFullName(name) }

// checkFullName applies Zulip's full-name rules and returns the stripped name.
func checkFullName(raw string) (string, error) {
	name := strings.TrimFunc(raw, isPythonSpace)
	if !utf8.ValidString(name) {
		return "", chatcore.BadRequest("Invalid characters in name!")
	}
	if utf8.RuneCountInString(name) > maxFullNameLength {
		return "", chatcore.BadRequest("Name too long!")
	}
	if name == "" {
		return "", chatcore.BadRequest("Name must not be empty!")
	}
	for _, r := range name {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cs, r) || isNonCharacter(r) ||
			strings.ContainsRune(fullNameInvalidChars, r) {
			return "", chatcore.BadRequest("Invalid characters in name!")
		}
	}
	if endsWithPipeDigits(raw) {
		return "", chatcore.BadRequest("Invalid format!")
	}
	return name, nil
}

// isNonCharacter reports whether r is one of Unicode's 66 non-characters
// (U+FDD0-U+FDEF and the last two code points of every plane), which Zulip's
// printability check refuses along with control characters and surrogates.
func isNonCharacter(r rune) bool {
	return (r >= 0xFDD0 && r <= 0xFDEF) || (r >= 0 && r <= unicode.MaxRune && r&0xFFFE == 0xFFFE)
}

// isPythonSpace reports whether Python's str.strip would remove r (Unicode
// white space plus the ASCII separators U+001C-U+001F), as Zulip strips names.
func isPythonSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// endsWithPipeDigits reports whether s ends in "|" followed by digits (and at
// most one newline), the syntax of a mention that names a user id; it matches
// where Zulip's regular expression `\|\d+$` does.
func endsWithPipeDigits(s string) bool {
	s = strings.TrimSuffix(s, "\n")
	body := strings.TrimRightFunc(s, unicode.IsDigit)
	return len(body) < len(s) && strings.HasSuffix(body, "|")
}

// checkUniqueName refuses a name another user of the realm already has.
func checkUniqueName(ctx context.Context, tx chatcore.Tx, u *chatcore.User, name string) error {
	others, err := tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, FullNameKey: chatcore.FoldKey(name)})
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.ID != u.ID {
			return chatcore.BadRequest("Unique names required in this organization.")
		}
	}
	return nil
}

// checkEmailAvailable refuses an address another account of the realm uses.
func checkEmailAvailable(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, addr string) error {
	other, err := tx.UserByEmail(ctx, realm, addr)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if other.IsActive {
		return chatcore.BadRequest("Already has an account.")
	}
	return chatcore.BadRequest("Account has been deactivated.")
}

// startEmailChange records a pending change of u's address to addr (replacing
// older ones) and mails the confirmation link to addr. The same address is a
// no-op.
func startEmailChange(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, realm *chatcore.Realm, u *chatcore.User, addr string) error {
	if addr == u.Email {
		return nil
	}
	if realm.EmailChangesDisabled && !u.Role.IsAdmin() {
		return chatcore.BadRequest("Email address changes are disabled in this organization.")
	}
	if !emailaddr.Valid(addr) {
		return chatcore.BadRequest("Invalid address.")
	}
	if err := checkEmailAvailable(ctx, tx, realm.ID, addr); err != nil {
		return err
	}
	// Checked after the address, as Zulip does: a refused address costs
	// nothing. A request refused later in the transaction still counts.
	if wait, ok := svc.TakeEmailChange(fx, u.ID); !ok {
		return errRateLimited(wait)
	}
	if err := tx.DeleteEmailChanges(ctx, u.ID); err != nil {
		return err
	}
	key, err := confirmationKey()
	if err != nil {
		return err
	}
	c := &chatcore.EmailChange{Key: key, UserID: u.ID, RealmID: u.RealmID, OldEmail: u.Email, NewEmail: addr, CreatedAt: svc.Now()}
	if err := tx.CreateEmailChange(ctx, c); err != nil {
		return err
	}
	link := strings.TrimRight(svc.ExternalURL(), "/") + "/accounts/confirm_new_email/" + key
	fx.Mail(chatcore.Email{
		To:      addr,
		From:    noreplyAddress(svc),
		Subject: "Verify your new email address for " + realm.Name,
		Body: fmt.Sprintf("Hello %s,\n\n"+
			"Someone asked to change the email address of your account in %s from %s to %svc.\n"+
			"To confirm the change, open this link within %d hours:\n\n%s\n\n"+
			"If you did not ask for this, ignore this message; nothing changes until the link is opened.\n",
			u.FullName, realm.Name, u.Email, addr, int(emailChangeValidity/time.Hour), link),
	})
	return nil
}

// noreplyAddress is the sender of chatcore's e-mails: noreply@ the host of the
// external URL.
func noreplyAddress(svc *chatcore.Service) string {
	host := "localhost"
	if u, err := url.Parse(svc.ExternalURL()); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "noreply@" + host
}

// confirmationKey returns a random 24-character key of lower-case letters and
// digits (about 124 bits), the shape of Zulip's confirmation keys.
func confirmationKey() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("chatcore: confirmation key: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

// ConfirmEmailChange completes the pending e-mail change with the key from a
// confirmation link: the user's address becomes the new one, the pending
// change is deleted, the old address is mailed a notice, and realm_user
// update events are published after the commit.
//
// Errors (all [*chatcore.Error]): 404-kind BAD_REQUEST "The confirmation link has
// expired or been deactivated." for an unknown, expired (older than 24 hours)
// or superseded key; BAD_REQUEST "Account is deactivated" (a plain 400: the
// link is opened without authentication) when the user was deactivated
// meanwhile; BAD_REQUEST "Email address changes are disabled in
// this organization.", "Already has an account." or "Account has been
// deactivated." when the change is no longer allowed. Any other error is an
// internal failure.
func ConfirmEmailChange(ctx context.Context, svc *chatcore.Service, key string) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		c, err := tx.EmailChange(ctx, key)
		if errors.Is(err, chatcore.ErrNotFound) {
			return errConfirmationLink()
		}
		if err != nil {
			return err
		}
		if svc.Now().Sub(c.CreatedAt) > emailChangeValidity {
			return errConfirmationLink()
		}
		u, err := chatcore.UserInRealm(ctx, tx, c.RealmID, c.UserID)
		if errors.Is(err, chatcore.ErrNotFound) {
			return errConfirmationLink()
		}
		if err != nil {
			return err
		}
		if u.Email != c.OldEmail {
			return errConfirmationLink()
		}
		if !u.IsActive {
			// The link is opened by a browser that has not authenticated:
			// a plain 400, never a 401 challenge.
			return chatcore.BadRequest("Account is deactivated")
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if realm.EmailChangesDisabled && !u.Role.IsAdmin() {
			return chatcore.BadRequest("Email address changes are disabled in this organization.")
		}
		if err := checkEmailAvailable(ctx, tx, realm.ID, c.NewEmail); err != nil {
			return err
		}
		u.Email = c.NewEmail
		if err := tx.UpdateUser(ctx, u); err != nil {
			if errors.Is(err, chatcore.ErrConflict) {
				return chatcore.BadRequest("Already has an account.")
			}
			return err
		}
		if err := tx.DeleteEmailChanges(ctx, u.ID); err != nil {
			return err
		}
		everyone, err := chatcore.ActiveUserIDs(ctx, tx, u.RealmID)
		if err != nil {
			return err
		}
		fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "delivery_email": u.Email},
		})
		fx.Event(u.RealmID, everyone, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "new_email": u.Email},
		})
		fx.Mail(chatcore.Email{
			To:      c.OldEmail,
			From:    noreplyAddress(svc),
			Subject: "Email address changed for " + realm.Name,
			Body: fmt.Sprintf("Hello %s,\n\n"+
				"The email address of your account in %s (%s) was changed from %s to %svc.\n"+
				"If you did not make this change, contact the organization's administrators right away.\n",
				u.FullName, realm.Name, svc.ExternalURL(), c.OldEmail, c.NewEmail),
		})
		return nil
	})
}
