package httpadapter_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// fixturePassword is the password of owner and member in testdata/fixture.json.
const fixturePassword = "correct horse battery staple"

// POST /fetch_api_key logs in with an e-mail and password as Zulip's
// api_fetch_api_key: a new key for the user, Zulip's refusals otherwise.
func TestFetchAPIKey(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			w, logs, logger := newWorld(t, k.Open(t), "testdata/fixture.json")
			e := startAdapter(t, w, logs, logger, httpadapter.Options{})
			// gone (deactivated) gets a password, to tell its refusal apart.
			is.New(t).NoErr(w.Svc.Update(t.Context(), func(tx chatcore.Tx, _ *chatcore.Effects) error {
				u, err := tx.User(context.Background(), 16)
				if err != nil {
					return err
				}
				u.PasswordHash = chattest.PasswordHash("gone-Secret#42")
				return tx.UpdateUser(t.Context(), u)
			}))
			login := func(kv ...string) *response {
				return e.do(t, request{method: "POST", path: "/fetch_api_key", enc: urlEncoded, params: params(kv...)})
			}
			t.Run("success", func(t *testing.T) {
				is := is.New(t)
				res := login("username", "Member@ACME.test", "password", fixturePassword)
				wantSuccess(t, res)
				key, _ := res.body["api_key"].(string)
				is.True(chatcore.ValidAPIKey(key))               // a key of Zulip's shape
				is.Equal(res.body["email"], "member@acme.test")  // the login e-mail
				is.Equal(num(t, res.body["user_id"]), int64(14)) // and id
				is.Equal(ignoredOf(res), nil)                    // every parameter read
				c := cred{"member@acme.test", key}
				me := e.do(t, request{method: "GET", path: "/users/me", auth: &c})
				wantSuccess(t, me)
				is.Equal(num(t, me.body["user_id"]), int64(14))                                   // the key works
				wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &member})) // the user's own key still works
				again := login("username", "member@acme.test", "password", fixturePassword)
				wantSuccess(t, again)
				is.True(again.body["api_key"] != key)                                        // each login a key of its own
				wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &c})) // and the first login stays signed in
				wrongUser := cred{"owner@acme.test", key}
				wantError(t, e.do(t, request{method: "GET", path: "/users/me", auth: &wrongUser}), 401, "UNAUTHORIZED", "Invalid API key") // a login key is its user's only
			})
			t.Run("a user keeps the newest logins", func(t *testing.T) {
				is := is.New(t)
				first := login("username", "owner@acme.test", "password", fixturePassword)
				wantSuccess(t, first)
				c := cred{"owner@acme.test", first.body["api_key"].(string)}
				for range accounts.MaxLoginKeys - 1 {
					wantSuccess(t, login("username", "owner@acme.test", "password", fixturePassword))
				}
				wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &c})) // still among the newest
				wantSuccess(t, login("username", "owner@acme.test", "password", fixturePassword))
				res := e.do(t, request{method: "GET", path: "/users/me", auth: &c})
				is.Equal(res.status, 401) // one login more signs the oldest out
			})
			t.Run("regenerating the key signs the logins out", func(t *testing.T) {
				is := is.New(t)
				res := login("username", "member@acme.test", "password", fixturePassword)
				wantSuccess(t, res)
				c := cred{"member@acme.test", res.body["api_key"].(string)}
				wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &c}))
				regen := e.do(t, request{method: "POST", path: "/users/me/api_key/regenerate", auth: &c})
				wantSuccess(t, regen)
				wantError(t, e.do(t, request{method: "GET", path: "/users/me", auth: &c}), 401, "UNAUTHORIZED", "Invalid API key") // the login key is gone
				fresh := cred{"member@acme.test", regen.body["api_key"].(string)}
				wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &fresh})) // the new key works
				is.True(fresh.key != c.key)
			})
			t.Run("refusals", func(t *testing.T) {
				is := is.New(t)
				wrong := "Your username or password is incorrect"
				wantError(t, login("username", "owner@acme.test", "password", "nope"), 401, "AUTHENTICATION_FAILED", wrong)
				wantError(t, login("username", "nobody@acme.test", "password", fixturePassword), 401, "AUTHENTICATION_FAILED", wrong)
				wantError(t, login("username", "admin@acme.test", "password", fixturePassword), 401, "AUTHENTICATION_FAILED", wrong) // no password
				wantError(t, login("username", "bot@acme.test", "password", fixturePassword), 401, "AUTHENTICATION_FAILED", wrong)   // bots do not log in
				wantError(t, login("username", "boss@other.test", "password", fixturePassword), 401, "AUTHENTICATION_FAILED", wrong) // another realm
				wantError(t, login("username", "gone@acme.test", "password", "wrong"), 401, "AUTHENTICATION_FAILED", wrong)          // deactivation told only to who knows the password
				wantError(t, login("username", "gone@acme.test", "password", "gone-Secret#42"), 401, "USER_DEACTIVATED", "Account is deactivated")
				wantError(t, login("username", "owner@acme.test", "password", strings.Repeat("x", 2000)), 401, "AUTHENTICATION_FAILED", wrong)
				wantError(t, login("username", "not an address", "password", "x"), 400, "BAD_REQUEST", "Enter a valid email address.")
				wantError(t, login("password", "x"), 400, "REQUEST_VARIABLE_MISSING", "Missing 'username' argument")
				wantError(t, login("username", "owner@acme.test"), 400, "REQUEST_VARIABLE_MISSING", "Missing 'password' argument")
				is.True(strings.Contains(e.log.String(), "failed login"))                        // refusals are logged
				is.True(!strings.Contains(e.log.String(), "gone-Secret"))                        // without the password
				wantSuccess(t, e.do(t, request{method: "GET", path: "/users/me", auth: &owner})) // failed logins leave the key alone
			})
		})
	}
}

// Failed logins spend the failed-authentication budget of the client and
// the address they try, so guessing passwords is throttled like guessing
// keys; the right password still logs in.
func TestFetchAPIKeyThrottled(t *testing.T) {
	is := is.New(t)
	e, _ := newThrottleEnv(t, httpadapter.Options{AuthThrottle: httpadapter.AuthThrottle{TargetFailures: 3}})
	login := func(pw string) *response {
		return e.do(t, request{method: "POST", path: "/fetch_api_key", enc: urlEncoded, params: params("username", "owner@acme.test", "password", pw)})
	}
	for range 3 {
		wantError(t, login("guess"), 401, "AUTHENTICATION_FAILED", "Your username or password is incorrect")
	}
	res := login("guess")
	is.Equal(res.status, 429)                    // throttled
	is.Equal(res.body["code"], "RATE_LIMIT_HIT") // as Zulip's rate limit
	wantSuccess(t, login(fixturePassword))       // the right password is never refused
}

// GET /server_settings advertises the login methods that work: password
// and e-mail, nothing external.
func TestServerSettingsAuthMethods(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	res := e.do(t, request{method: "GET", path: "/server_settings"})
	wantSuccess(t, res)
	methods := res.body["authentication_methods"].(map[string]any)
	for name, on := range methods {
		is.Equal(on, name == "password" || name == "email") // only what POST /fetch_api_key serves
	}
	is.Equal(len(res.body["external_authentication_methods"].([]any)), 0)
	is.Equal(res.body["email_auth_enabled"], true)
}
