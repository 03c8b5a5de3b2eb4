package accounts

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/emailaddr"
)

// Login is a successful password login (POST /fetch_api_key): the user's
// new API key, their login e-mail and id.
type Login struct {
	APIKey string          `json:"api_key"`
	Email  string          `json:"email"`
	UserID chatcore.UserID `json:"user_id"`
}

// MaxLoginPasswordLength bounds the password a login checks, in bytes: a
// longer one is refused as a wrong password before any store access (no
// password can be set that long: Zulip's password_max_length is 100).
const MaxLoginPasswordLength = 1000

// The refusals of a login, as Zulip's AuthenticationFailedError and its
// subclasses (HTTP 401).
func errLoginFailed() *chatcore.Error {
	return &chatcore.Error{Code: CodeAuthenticationFailed, Kind: chatcore.KindUnauthenticated,
		Msg: "Your username or password is incorrect"}
}

// CodeAuthenticationFailed is Zulip's code for a wrong login e-mail or
// password.
const CodeAuthenticationFailed chatcore.Code = "AUTHENTICATION_FAILED"

// dummyHashes holds, per Service, the hash a login without a stored hash
// verifies against (made once, with the Service's hasher), so that it costs
// what a wrong password costs.
var dummyHashes sync.Map // *chatcore.Service → string

// PasswordLogin checks a password login to the realm with string id realm
// (the realm with the lowest id when realm is "") as Zulip's
// api_fetch_api_key does, and on success gives the user a new API key and
// returns it with the user's e-mail and id.
//
// chatcore stores only the hash of an API key, so it cannot hand out the
// key a user already has, as Zulip does: each login gets a key of its own
// (a [chatcore.LoginKey]) that [chatcore.Service.Authenticate] accepts
// beside the user's own key, which stays valid. A user keeps the
// [MaxLoginKeys] newest.
//
// Errors: BAD_REQUEST "Enter a valid email address." when username is not
// an e-mail address (checked before any store access, as Zulip's
// validate_login_email); 401 AUTHENTICATION_FAILED "Your username or
// password is incorrect" for an unknown address, a bot, a user without a
// password or a wrong password (the same answer, after the same password
// check, so the answer tells nothing about which); 401 USER_DEACTIVATED
// "Account is deactivated" for a deactivated user whose password is right
// (Zulip tells this before checking the password; chatcore only to who
// knows it). Other errors are internal (store, context, hasher). Throttling
// failed logins is the transport's (the HTTP adapter's failed-login
// throttle). Safe for concurrent use.
func PasswordLogin(ctx context.Context, svc *chatcore.Service, realm, username, password string) (Login, error) {
	username = strings.TrimSpace(username)
	if !emailaddr.Valid(username) {
		return Login{}, chatcore.BadRequest("Enter a valid email address.")
	}
	if len(password) > MaxLoginPasswordLength || password == "" {
		return Login{}, errLoginFailed()
	}
	var u *chatcore.User
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		r, err := loginRealm(ctx, tx, realm)
		if err != nil || r == nil {
			return err
		}
		if r.Deactivated {
			return chatcore.ErrRealmDeactivated()
		}
		u, err = tx.UserByEmail(ctx, r.ID, username)
		if errors.Is(err, chatcore.ErrNotFound) {
			u = nil
			return nil
		}
		return err
	})
	if err != nil {
		return Login{}, err
	}
	stored := ""
	if u != nil && !u.IsBot {
		stored = u.PasswordHash
	}
	ok, err := verifyLoginPassword(ctx, svc, stored, password)
	if err != nil {
		return Login{}, err
	}
	if !ok {
		return Login{}, errLoginFailed()
	}
	if !u.IsActive {
		return Login{}, &chatcore.Error{Code: chatcore.CodeUserDeactivated, Kind: chatcore.KindUnauthenticated, Msg: "Account is deactivated"}
	}
	key, err := NewAPIKey()
	if err != nil {
		return Login{}, err
	}
	var out Login
	err = svc.Update(ctx, func(tx chatcore.Tx, _ *chatcore.Effects) error {
		cur, err := tx.User(ctx, u.ID)
		if errors.Is(err, chatcore.ErrNotFound) {
			return errLoginFailed()
		}
		if err != nil {
			return err
		}
		if cur.PasswordHash != u.PasswordHash {
			// The password changed since it was checked.
			return errLoginFailed()
		}
		if !cur.IsActive {
			return &chatcore.Error{Code: chatcore.CodeUserDeactivated, Kind: chatcore.KindUnauthenticated, Msg: "Account is deactivated"}
		}
		if err := tx.AddLoginKey(ctx, &chatcore.LoginKey{Hash: chatcore.HashAPIKey(key), UserID: cur.ID, Created: svc.Now()}); err != nil {
			return err
		}
		if _, err := tx.TrimLoginKeys(ctx, cur.ID, MaxLoginKeys); err != nil {
			return err
		}
		out = Login{APIKey: key, Email: cur.Email, UserID: cur.ID}
		return nil
	})
	if err != nil {
		return Login{}, err
	}
	return out, nil
}

// MaxLoginKeys bounds the keys password logins keep per user: a login past
// it signs out the device that logged in the longest ago.
const MaxLoginKeys = 100

// verifyLoginPassword checks password against the stored hash; with no hash
// (no such user, a bot, no password) it verifies against a hash of another
// password, so that every failed login costs the same.
func verifyLoginPassword(ctx context.Context, svc *chatcore.Service, stored, password string) (bool, error) {
	if stored == "" {
		dummy, ok := dummyHashes.Load(svc)
		if !ok {
			h, err := svc.HashPassword(ctx, "chatcore: no such password")
			if err != nil {
				return false, fmt.Errorf("chatcore: hashing a password: %w", err)
			}
			dummy, _ = dummyHashes.LoadOrStore(svc, h)
		}
		if _, err := svc.VerifyPassword(ctx, dummy.(string), password); err != nil {
			return false, fmt.Errorf("chatcore: verifying a password: %w", err)
		}
		return false, nil
	}
	ok, err := svc.VerifyPassword(ctx, stored, password)
	if err != nil {
		return false, fmt.Errorf("chatcore: verifying a password: %w", err)
	}
	return ok, nil
}

// loginRealm returns the realm with string id realm, or the realm with the
// lowest id when realm is ""; nil when there is none.
func loginRealm(ctx context.Context, tx chatcore.Tx, realm string) (*chatcore.Realm, error) {
	if realm != "" {
		r, err := tx.RealmByStringID(ctx, realm)
		if errors.Is(err, chatcore.ErrNotFound) {
			return nil, nil
		}
		return r, err
	}
	realms, err := tx.Realms(ctx)
	if err != nil || len(realms) == 0 {
		return nil, err
	}
	return &realms[0], nil
}

// NewAPIKey returns a new random API key: 32 ASCII letters and digits
// (about 190 bits), the shape of Zulip's keys ([chatcore.ValidAPIKey]).
func NewAPIKey() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, 32)
	for i := 0; i < len(b); {
		var c [64]byte
		if _, err := rand.Read(c[:]); err != nil {
			return "", fmt.Errorf("chatcore: API key: %w", err)
		}
		for _, x := range c {
			// 62*4 = 248: rejecting 248..255 keeps every letter equally likely.
			if x < 248 && i < len(b) {
				b[i] = alphabet[x%62]
				i++
			}
		}
	}
	return string(b), nil
}
