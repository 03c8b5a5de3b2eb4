package chatcore

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

	"github.com/chatcore/chatcore/internal/emailaddr"
	"github.com/chatcore/chatcore/internal/ratelimit"
)

// emailChangeValidity is how long an e-mail change confirmation link works.
const emailChangeValidity = 24 * time.Hour

// maxFullNameLength is Zulip's limit on full names, in characters.
const maxFullNameLength = 100

// fullNameInvalidChars may not appear in a full name (Zulip's NAME_INVALID_CHARS).
const fullNameInvalidChars = "*`\\>\"@"

func errConfirmationLink() *Error {
	return NotFound("The confirmation link has expired or been deactivated.")
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
func (s *Service) preparePasswordChange(ctx context.Context, actorID UserID, req *SettingsUpdate, invalid error) (*passwordChange, error) {
	var stored string
	err := s.View(ctx, func(tx Tx) error {
		u, err := s.settingsActor(ctx, tx, actorID)
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
	if r := s.passwordAttempts.Take(actorID, s.clock.Now()); !r.Allowed {
		return nil, BadRequestf("You're making too many attempts! Try again in %d seconds.", ratelimit.Seconds(r.Wait))
	}
	ok := false
	if req.OldPassword != nil && stored != "" {
		ok, err = s.hashing.Verify(ctx, stored, *req.OldPassword)
		if err != nil {
			return nil, fmt.Errorf("chatcore: verifying the password of user %d: %w", actorID, err)
		}
	}
	if !ok {
		return nil, BadRequest("Wrong password!")
	}
	s.passwordAttempts.Forget(actorID)
	if !s.passwordStrongEnough(*req.NewPassword) {
		return nil, BadRequest("New password is too weak!")
	}
	h, err := s.hashing.Hash(ctx, *req.NewPassword)
	if err != nil {
		return nil, fmt.Errorf("chatcore: hashing a password: %w", err)
	}
	return &passwordChange{oldHash: stored, newHash: h}, nil
}

// CheckFullName applies Zulip's full-name rules (as a name change does) and
// returns the name as stored, without surrounding whitespace. A refused name
// is a BAD_REQUEST [*Error] with Zulip's message, such as "Name too long!".
func CheckFullName(name string) (string, error) { return checkFullName(name) }

// checkFullName applies Zulip's full-name rules and returns the stripped name.
func checkFullName(raw string) (string, error) {
	name := strings.TrimFunc(raw, isPythonSpace)
	if !utf8.ValidString(name) {
		return "", BadRequest("Invalid characters in name!")
	}
	if utf8.RuneCountInString(name) > maxFullNameLength {
		return "", BadRequest("Name too long!")
	}
	if name == "" {
		return "", BadRequest("Name must not be empty!")
	}
	for _, r := range name {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cs, r) || isNonCharacter(r) ||
			strings.ContainsRune(fullNameInvalidChars, r) {
			return "", BadRequest("Invalid characters in name!")
		}
	}
	if endsWithPipeDigits(raw) {
		return "", BadRequest("Invalid format!")
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
func checkUniqueName(ctx context.Context, tx Tx, u *User, name string) error {
	others, err := tx.Users(ctx, UserFilter{RealmID: u.RealmID, FullNameKey: FoldKey(name)})
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.ID != u.ID {
			return BadRequest("Unique names required in this organization.")
		}
	}
	return nil
}

// checkEmailAvailable refuses an address another account of the realm uses.
func checkEmailAvailable(ctx context.Context, tx Tx, realm RealmID, addr string) error {
	other, err := tx.UserByEmail(ctx, realm, addr)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if other.IsActive {
		return BadRequest("Already has an account.")
	}
	return BadRequest("Account has been deactivated.")
}

// startEmailChange records a pending change of u's address to addr (replacing
// older ones) and mails the confirmation link to addr. The same address is a
// no-op.
func (s *Service) startEmailChange(ctx context.Context, tx Tx, fx *Effects, realm *Realm, u *User, addr string) error {
	if addr == u.Email {
		return nil
	}
	if realm.EmailChangesDisabled && !u.Role.IsAdmin() {
		return BadRequest("Email address changes are disabled in this organization.")
	}
	if !emailaddr.Valid(addr) {
		return BadRequest("Invalid address.")
	}
	if err := checkEmailAvailable(ctx, tx, realm.ID, addr); err != nil {
		return err
	}
	// Checked after the address, as Zulip does: a refused address costs
	// nothing. A request refused later in the transaction still counts.
	if wait, ok := fx.take(s.emailChanges, u.ID, s.clock.Now()); !ok {
		return errRateLimited(wait)
	}
	if err := tx.DeleteEmailChanges(ctx, u.ID); err != nil {
		return err
	}
	key, err := confirmationKey()
	if err != nil {
		return err
	}
	c := &EmailChange{Key: key, UserID: u.ID, RealmID: u.RealmID, OldEmail: u.Email, NewEmail: addr, CreatedAt: s.clock.Now()}
	if err := tx.CreateEmailChange(ctx, c); err != nil {
		return err
	}
	link := strings.TrimRight(s.externalURL, "/") + "/accounts/confirm_new_email/" + key
	fx.Mail(Email{
		To:      addr,
		From:    s.noreplyAddress(),
		Subject: "Verify your new email address for " + realm.Name,
		Body: fmt.Sprintf("Hello %s,\n\n"+
			"Someone asked to change the email address of your account in %s from %s to %s.\n"+
			"To confirm the change, open this link within %d hours:\n\n%s\n\n"+
			"If you did not ask for this, ignore this message; nothing changes until the link is opened.\n",
			u.FullName, realm.Name, u.Email, addr, int(emailChangeValidity/time.Hour), link),
	})
	return nil
}

// noreplyAddress is the sender of chatcore's e-mails: noreply@ the host of the
// external URL.
func (s *Service) noreplyAddress() string {
	host := "localhost"
	if u, err := url.Parse(s.externalURL); err == nil && u.Hostname() != "" {
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
// Errors (all [*Error]): 404-kind BAD_REQUEST "The confirmation link has
// expired or been deactivated." for an unknown, expired (older than 24 hours)
// or superseded key; BAD_REQUEST "Account is deactivated" (a plain 400: the
// link is opened without authentication) when the user was deactivated
// meanwhile; BAD_REQUEST "Email address changes are disabled in
// this organization.", "Already has an account." or "Account has been
// deactivated." when the change is no longer allowed. Any other error is an
// internal failure.
func (s *Service) ConfirmEmailChange(ctx context.Context, key string) error {
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		c, err := tx.EmailChange(ctx, key)
		if errors.Is(err, ErrNotFound) {
			return errConfirmationLink()
		}
		if err != nil {
			return err
		}
		if s.clock.Now().Sub(c.CreatedAt) > emailChangeValidity {
			return errConfirmationLink()
		}
		u, err := UserInRealm(ctx, tx, c.RealmID, c.UserID)
		if errors.Is(err, ErrNotFound) {
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
			return BadRequest("Account is deactivated")
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if realm.EmailChangesDisabled && !u.Role.IsAdmin() {
			return BadRequest("Email address changes are disabled in this organization.")
		}
		if err := checkEmailAvailable(ctx, tx, realm.ID, c.NewEmail); err != nil {
			return err
		}
		u.Email = c.NewEmail
		if err := tx.UpdateUser(ctx, u); err != nil {
			if errors.Is(err, ErrConflict) {
				return BadRequest("Already has an account.")
			}
			return err
		}
		if err := tx.DeleteEmailChanges(ctx, u.ID); err != nil {
			return err
		}
		everyone, err := activeUserIDs(ctx, tx, u.RealmID)
		if err != nil {
			return err
		}
		fx.Event(u.RealmID, []UserID{u.ID}, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "delivery_email": u.Email},
		})
		fx.Event(u.RealmID, everyone, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "new_email": u.Email},
		})
		fx.Mail(Email{
			To:      c.OldEmail,
			From:    s.noreplyAddress(),
			Subject: "Email address changed for " + realm.Name,
			Body: fmt.Sprintf("Hello %s,\n\n"+
				"The email address of your account in %s (%s) was changed from %s to %s.\n"+
				"If you did not make this change, contact the organization's administrators right away.\n",
				u.FullName, realm.Name, s.externalURL, c.OldEmail, c.NewEmail),
		})
		return nil
	})
}
