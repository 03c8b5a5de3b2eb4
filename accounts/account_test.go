package accounts_test

// Tests of the account changes made through PATCH /settings: the password
// change (its bounded hashing and failed-attempt limit), the e-mail address
// change and its confirmation link, and the full-name rules.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/internal/password"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
)

func TestUpdateSettingsPassword(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		const oldPW = "hamlet@zulip.com-Secret#42"
		tests := []struct {
			name     string
			old, new *string
			msg      string
		}{
			{"wrong old password", new("nope"), new("correct horse battery staple"), "Wrong password!"},
			{"missing old password", nil, new("correct horse battery staple"), "Wrong password!"},
			{"empty new password", new(oldPW), new(""), "New password is too weak!"},
			{"too short", new(oldPW), new("easy"), "New password is too weak!"},
			{"too guessable", new(oldPW), new("password"), "New password is too weak!"},
			{"ok", new(oldPW), new("correct horse battery staple"), ""},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				w, c := newSettingsCast(t, open)
				err := accounts.UpdateSettings(context.Background(), w.Svc, c.Member.ID, accounts.SettingsUpdate{OldPassword: tt.old, NewPassword: tt.new})
				u := w.User(t, c.Member.ID)
				if tt.msg != "" {
					chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
					is.Equal(u.PasswordHash, "plain:"+oldPW) // unchanged
					return
				}
				is.NoErr(err)                                                  // changed
				is.Equal(u.PasswordHash, "plain:correct horse battery staple") // new hash stored
				is.Equal(len(w.EditedSettings(t, c.Member.ID)), 0)             // a password is not a setting
			})
		}
	})
}

func TestUpdateSettingsPasswordWithoutStoredPassword(t *testing.T) {
	w, c := newSettingsCast(t, chattest.New)
	ctx := context.Background()
	w.UpdateUser(t, c.Member.ID, func(u *chatcore.User) { u.PasswordHash = "" }) // the user has no password
	err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{OldPassword: new(""), NewPassword: new("correct horse battery staple")})
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!")
}

func TestUpdateSettingsPasswordDefaultHasher(t *testing.T) {
	is := is.New(t)
	h := password.Default() // the hasher New installs without WithPasswordHasher
	w, c := newSettingsCast(t, chattest.New, chatcore.WithPasswordHasher(h))
	ctx := context.Background()
	oldHash, err := h.Hash("Old-Passw0rd!")
	is.NoErr(err)                                                                     // hashed
	w.UpdateUser(t, c.Member.ID, func(u *chatcore.User) { u.PasswordHash = oldHash }) // argon2id password stored
	err = accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{OldPassword: new("old-passw0rd!"), NewPassword: new("Tr0ub4dor&3-horse")})
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!") // case matters
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{OldPassword: new("Old-Passw0rd!"), NewPassword: new("Tr0ub4dor&3-horse")}))
	u := w.User(t, c.Member.ID)
	is.True(strings.HasPrefix(u.PasswordHash, "$argon2id$v=19$")) // PHC argon2id string
	ok, err := h.Verify(u.PasswordHash, "Tr0ub4dor&3-horse")
	is.NoErr(err) // well-formed
	is.True(ok)   // the new password works
	ok, err = h.Verify(u.PasswordHash, "Old-Passw0rd!")
	is.NoErr(err) // well-formed
	is.True(!ok)  // the old one does not
}

func TestUpdateSettingsPasswordPolicyOption(t *testing.T) {
	is := is.New(t)
	w, c := newSettingsCast(t, chattest.New, chatcore.WithPasswordPolicy(30, 0))
	req := accounts.SettingsUpdate{OldPassword: new("hamlet@zulip.com-Secret#42"), NewPassword: new("correct horse battery staple")}
	chattest.WantError(t, accounts.UpdateSettings(context.Background(), w.Svc, c.Member.ID, req), chatcore.CodeBadRequest, chatcore.KindInvalid, "New password is too weak!") // 28 < 30 characters
	req.NewPassword = new("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
	is.NoErr(accounts.UpdateSettings(context.Background(), w.Svc, c.Member.ID, req)) // long enough, and no guess minimum
}

func TestUpdateSettingsEmailChange(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newSettingsCast(t, open)
		ctx := context.Background()

		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{Email: new("  first@example.net ")})) // starts a change
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{Email: new("hamlet2@example.net")}))  // replaces it
		is.Equal(w.User(t, c.Member.ID).Email, "hamlet@zulip.com")                                                              // nothing changes yet
		mails := w.Mail.All()
		is.Equal(len(mails), 2)                             // one confirmation per request
		is.Equal(mails[0].To, "first@example.net")          // to the new address, stripped
		is.Equal(mails[1].To, "hamlet2@example.net")        // to the new address
		is.Equal(mails[1].From, "noreply@chat.example.com") // from the server
		m1 := confirmLinkRE.FindStringSubmatch(mails[0].Body)
		m2 := confirmLinkRE.FindStringSubmatch(mails[1].Body)
		is.True(m1 != nil && m2 != nil) // each carries a confirmation link
		is.True(m1[1] != m2[1])         // with its own key

		err := accounts.ConfirmEmailChange(ctx, w.Svc, m1[1])
		got := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindNotFound, "The confirmation link has expired or been deactivated.")
		is.Equal(got.Kind, chatcore.KindNotFound) // the older request was revoked

		is.NoErr(accounts.ConfirmEmailChange(ctx, w.Svc, m2[1]))      // the newest link works
		is.Equal(w.User(t, c.Member.ID).Email, "hamlet2@example.net") // changed
		mails = w.Mail.All()
		is.Equal(len(mails), 3)                   // plus a notice
		is.Equal(mails[2].To, "hamlet@zulip.com") // to the old address
		is.True(strings.Contains(mails[2].Body, "hamlet2@example.net"))
		evs := w.Events.OfType("realm_user")
		is.Equal(len(evs), 2)                                    // delivery_email to the user, new_email to everyone
		is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Member.ID}) // the user's own clients
		is.Equal(evs[0].Data["person"], map[string]any{"user_id": c.Member.ID, "delivery_email": "hamlet2@example.net"})

		err = accounts.ConfirmEmailChange(ctx, w.Svc, m2[1])
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindNotFound, "The confirmation link has expired or been deactivated.") // used once
	})
}

func TestUpdateSettingsEmailChangeErrors(t *testing.T) {
	tests := []struct {
		name     string
		actor    func(*chattest.Cast) chatcore.UserID
		email    string
		disabled bool
		msg      string
	}{
		{"invalid", func(c *chattest.Cast) chatcore.UserID { return c.Member.ID }, "hamlet", false, "Invalid address."},
		{"empty", func(c *chattest.Cast) chatcore.UserID { return c.Member.ID }, "  ", false, "Invalid address."},
		{"display name", func(c *chattest.Cast) chatcore.UserID { return c.Member.ID }, "Hamlet <h@example.net>", false, "Invalid address."},
		{"taken", func(c *chattest.Cast) chatcore.UserID { return c.Member.ID }, "iago@zulip.com", false, "Already has an account."},
		{"taken, other case", func(c *chattest.Cast) chatcore.UserID { return c.Member.ID }, "IAGO@zulip.com", false, "Already has an account."},
		{"deactivated owner", func(c *chattest.Cast) chatcore.UserID { return c.Member.ID }, "gone@zulip.com", false, "Account has been deactivated."},
		{"disabled for members", func(c *chattest.Cast) chatcore.UserID { return c.Member.ID }, "h@example.net", true,
			"Email address changes are disabled in this organization."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			w, c := newSettingsCast(t, chattest.New)
			ctx := context.Background()
			if tt.disabled {
				w.UpdateRealm(t, c.Realm.ID, func(r *chatcore.Realm) { r.EmailChangesDisabled = true }) // realm setting
			}
			err := accounts.UpdateSettings(ctx, w.Svc, tt.actor(c), accounts.SettingsUpdate{Email: new(tt.email)})
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
			is.Equal(len(w.Mail.All()), 0) // no mail
		})
	}
}

func TestUpdateSettingsEmailChangeEdgeCases(t *testing.T) {
	is := is.New(t)
	w, c := newSettingsCast(t, chattest.New)
	ctx := context.Background()
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{Email: new(" hamlet@zulip.com ")})) // own address
	is.Equal(len(w.Mail.All()), 0)                                                                                        // is a no-op

	w.UpdateRealm(t, c.Realm.ID, func(r *chatcore.Realm) { r.EmailChangesDisabled = true })                            // changes disabled for non-administrators
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Admin.ID, accounts.SettingsUpdate{Email: new("iago@example.net")})) // administrators may still
	is.Equal(len(w.Mail.All()), 1)                                                                                     // a confirmation

	t.Run("expired", func(t *testing.T) {
		is := is.New(t)
		w, c := newSettingsCast(t, chattest.New)
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{Email: new("h@example.net")})) // starts a change
		key := confirmLinkRE.FindStringSubmatch(w.Mail.All()[0].Body)[1]
		w.Clock.Advance(25 * time.Hour)
		chattest.WantError(t, accounts.ConfirmEmailChange(ctx, w.Svc, key), chatcore.CodeBadRequest, chatcore.KindNotFound, "The confirmation link has expired or been deactivated.")
		is.Equal(w.User(t, c.Member.ID).Email, "hamlet@zulip.com") // unchanged
	})
	t.Run("address taken meanwhile", func(t *testing.T) {
		is := is.New(t)
		w, c := newSettingsCast(t, chattest.New)
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{Email: new("h@example.net")})) // starts a change
		key := confirmLinkRE.FindStringSubmatch(w.Mail.All()[0].Body)[1]
		is.NoErr(w.Store.Update(ctx, func(tx chatcore.Tx) error {
			return tx.CreateUser(ctx, &chatcore.User{RealmID: c.Realm.ID, Email: "H@example.net", FullName: "Other", Role: chatcore.RoleMember,
				IsActive: true, Settings: chatcore.DefaultSettings()})
		})) // someone else took the address
		chattest.WantError(t, accounts.ConfirmEmailChange(ctx, w.Svc, key), chatcore.CodeBadRequest, chatcore.KindInvalid, "Already has an account.")
		is.Equal(w.User(t, c.Member.ID).Email, "hamlet@zulip.com") // unchanged
	})
	t.Run("unknown key", func(t *testing.T) {
		chattest.WantError(t, accounts.ConfirmEmailChange(ctx, w.Svc, ""), chatcore.CodeBadRequest, chatcore.KindNotFound, "The confirmation link has expired or been deactivated.")
	})
}

func TestUpdateSettingsFullName(t *testing.T) {
	tests := []struct {
		name, in, want, msg string
	}{
		{"stripped", "  Prince Hamlet \t", "Prince Hamlet", ""},
		{"one character", "H", "H", ""},
		{"unicode", "Hämlet Ølsen 王", "Hämlet Ølsen 王", ""},
		{"emoji ZWJ sequence", "Hamlet 👩‍💻", "Hamlet 👩‍💻", ""},
		{"100 characters", strings.Repeat("é", 100), strings.Repeat("é", 100), ""},
		{"pipe digits after space", "Bob|12 ", "Bob|12", ""},
		{"too long", strings.Repeat("a", 101), "", "Name too long!"},
		{"empty", "", "", "Name must not be empty!"},
		{"blank", " \t ", "", "Name must not be empty!"},
		{"NUL", "Ham\x00let", "", "Invalid characters in name!"},
		{"tab inside", "Ham\tlet", "", "Invalid characters in name!"},
		{"newline inside", "Ham\nlet", "", "Invalid characters in name!"},
		{"DEL", "Ham\x7flet", "", "Invalid characters in name!"},
		{"asterisk", "Ham*let", "", "Invalid characters in name!"},
		{"backtick", "Ham`let", "", "Invalid characters in name!"},
		{"backslash", `Ham\let`, "", "Invalid characters in name!"},
		{"greater than", "Ham>let", "", "Invalid characters in name!"},
		{"double quote", `Ham"let`, "", "Invalid characters in name!"},
		{"at sign", "Ham@let", "", "Invalid characters in name!"},
		{"pipe digits", "Hamlet|15", "", "Invalid format!"},
		{"pipe digits, newline", "Hamlet|15\n", "", "Invalid format!"},
		{"pipe non-ASCII digits", "Hamlet|٣", "", "Invalid format!"},
		{"pipe without digits", "Hamlet|", "Hamlet|", ""},
		{"ASCII separators stripped", "\x1cHamlet\x1f", "Hamlet", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			w, c := newSettingsCast(t, chattest.New)
			err := accounts.UpdateSettings(context.Background(), w.Svc, c.Member.ID, accounts.SettingsUpdate{FullName: new(tt.in)})
			if tt.msg != "" {
				chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
				is.Equal(w.User(t, c.Member.ID).FullName, "King Hamlet") // unchanged
				return
			}
			is.NoErr(err) // accepted
			u := w.User(t, c.Member.ID)
			is.Equal(u.FullName, tt.want)                      // stored stripped
			is.Equal(u.FullNameKey, chatcore.FoldKey(tt.want)) // with its fold key
			evs := w.Events.OfType("realm_user")
			is.Equal(len(evs), 1)                                                                         // one event
			is.Equal(evs[0].Data["person"], map[string]any{"user_id": c.Member.ID, "full_name": tt.want}) // the new name
			is.Equal(len(evs[0].UserIDs), 6)                                                              // to every active user and bot of the realm
		})
	}
}

func TestUpdateSettingsFullNameRealmRules(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		ctx := context.Background()
		t.Run("name changes disabled", func(t *testing.T) {
			is := is.New(t)
			w, c := newSettingsCast(t, open)
			w.UpdateRealm(t, c.Realm.ID, func(r *chatcore.Realm) { r.NameChangesDisabled = true })
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{FullName: new("New Name"), ColorScheme: new(2)})) // silently ignored
			u := w.User(t, c.Member.ID)
			is.Equal(u.FullName, "King Hamlet")                                                                    // name unchanged
			is.Equal(u.Settings.ColorScheme, 2)                                                                    // the rest applied
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{FullName: new("")})) // not even validated
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Admin.ID, accounts.SettingsUpdate{FullName: new("Iago II")}))
			is.Equal(w.User(t, c.Admin.ID).FullName, "Iago II") // administrators may
		})
		t.Run("unique names", func(t *testing.T) {
			is := is.New(t)
			w, c := newSettingsCast(t, open)
			w.UpdateRealm(t, c.Realm.ID, func(r *chatcore.Realm) { r.RequireUniqueNames = true })
			err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{FullName: new("IAGO")})
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Unique names required in this organization.")
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{FullName: new("king hamlet")})) // own name in other case
			is.Equal(w.User(t, c.Member.ID).FullName, "king hamlet")                                                          // is fine
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{FullName: new("King Lear")}))   // another realm's name is fine
		})
		t.Run("names may repeat by default", func(t *testing.T) {
			is := is.New(t)
			w, c := newSettingsCast(t, open)
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{FullName: new("Iago")})) // duplicate allowed
		})
	})
}

// passwordChange is a password change request of user from old to a strong
// new password.
func passwordChange(old string) accounts.SettingsUpdate {
	return accounts.SettingsUpdate{OldPassword: &old, NewPassword: new("correct horse battery staple 7")}
}

// gateHasher is a plainHasher that counts its calls and the most calls that
// ran at once; while gate is non-nil every call waits for it to close.
type gateHasher struct {
	gate    chan struct{}
	entered chan struct{} // receives one value per call that started
	calls   atomic.Int64
	running atomic.Int64
	peak    atomic.Int64
}

func (h *gateHasher) enter() func() {
	h.calls.Add(1)
	n := h.running.Add(1)
	for {
		p := h.peak.Load()
		if n <= p || h.peak.CompareAndSwap(p, n) {
			break
		}
	}
	if h.entered != nil {
		h.entered <- struct{}{}
	}
	if h.gate != nil {
		<-h.gate
	}
	return func() { h.running.Add(-1) }
}

func (h *gateHasher) Hash(p string) (string, error) {
	defer h.enter()()
	return plainHasher{}.Hash(p)
}

func (h *gateHasher) Verify(hash, p string) (bool, error) {
	defer h.enter()()
	return plainHasher{}.Verify(hash, p)
}

// hashSlotTaken builds newAcme allowing one password hash at a time and takes
// that slot with ann's password change (a wrong old password), held in the
// hasher until h.gate is closed; first receives that change's result. ctx
// ends 20ms after the slot is taken.
func hashSlotTaken(tb testing.TB) (w *chattest.World, org acmeOrg, h *gateHasher, first <-chan error, ctx context.Context) {
	tb.Helper()
	h = &gateHasher{gate: make(chan struct{}), entered: make(chan struct{}, 4)}
	w, org = newAcme(tb, chatcore.WithPasswordHasher(h), chatcore.WithPasswordHashConcurrency(1))
	result := make(chan error, 1)
	go func() {
		result <- accounts.UpdateSettings(context.Background(), w.Svc, org.ann, passwordChange("wrong"))
	}()
	<-h.entered // the only slot is taken
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	tb.Cleanup(cancel)
	return w, org, h, result, ctx
}

func TestPasswordHashingIsBounded(t *testing.T) {
	t.Run("at most the configured number of hashes run at once", func(t *testing.T) {
		is := is.New(t)
		h := &gateHasher{gate: make(chan struct{}), entered: make(chan struct{}, 64)}
		w, org := newAcme(t, chatcore.WithPasswordHasher(h), chatcore.WithPasswordHashConcurrency(2),
			chatcore.WithPasswordAttemptLimit())
		const n = 12
		errs := make(chan error, n)
		for range n {
			go func() { errs <- accounts.UpdateSettings(context.Background(), w.Svc, org.ann, passwordChange("wrong")) }()
		}
		<-h.entered
		<-h.entered // both slots taken
		select {
		case <-h.entered:
			t.Fatal("a third verification started while two held the slots")
		case <-time.After(50 * time.Millisecond):
		}
		close(h.gate)
		for range n {
			chattest.WantError(t, <-errs, chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!")
		}
		is.Equal(h.calls.Load(), int64(n)) // every request verified once
		is.Equal(h.peak.Load(), int64(2))  // never more than two at once
	})

	t.Run("a request waiting for a slot gives up with its context", func(t *testing.T) {
		is := is.New(t)
		w, org, h, first, ctx := hashSlotTaken(t)
		err := accounts.UpdateSettings(ctx, w.Svc, org.ben, passwordChange("Ben@acme.test-pw"))
		is.True(errors.Is(err, context.DeadlineExceeded)) // gave up waiting for the slot
		_, isAPIError := errors.AsType[*chatcore.Error](err)
		is.True(!isAPIError) // an internal (context) failure, not a user-facing error
		close(h.gate)
		chattest.WantError(t, <-first, chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!")
		is.Equal(w.User(t, org.ben).PasswordHash, "plain:Ben@acme.test-pw") // nothing changed for ben
	})

	t.Run("fixture hashing shares the bound", func(t *testing.T) {
		is := is.New(t)
		w, _, h, first, ctx := hashSlotTaken(t)
		// LoadFixture checks the fixture before hashing (an invalid one would
		// fail before the wait), so load the repository's fixture.
		f, err := os.Open("../testdata/org.json")
		is.NoErr(err) // fixture opened
		defer f.Close()
		err = fixture.Load(ctx, w.Svc, f)
		close(h.gate)
		<-first
		is.True(errors.Is(err, context.DeadlineExceeded)) // the fixture's hashing waited for the slot
	})
}

func TestPasswordAttemptLimit(t *testing.T) {
	const limited = "You're making too many attempts! Try again in 360 seconds."

	t.Run("five wrong passwords, then refused without checking", func(t *testing.T) {
		is := is.New(t)
		h := &gateHasher{}
		w, org := newAcme(t, chatcore.WithPasswordHasher(h))
		ctx := context.Background()
		for range 5 {
			chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("wrong")), chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!")
		}
		is.Equal(h.calls.Load(), int64(5)) // five verifications
		err := accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("Ann@acme.test-pw"))
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, limited) // a 400, not a 429, even with the right password
		is.Equal(h.calls.Load(), int64(5))                                                 // the limited attempt ran no hash at all
		is.Equal(w.User(t, org.ann).PasswordHash, "plain:Ann@acme.test-pw")                // unchanged

		w.Clock.Advance(100 * time.Second)
		err = accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("wrong"))
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "You're making too many attempts! Try again in 260 seconds.") // the wait counts down

		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ben, passwordChange("Ben@acme.test-pw"))) // other users are not limited

		w.Clock.Advance(260 * time.Second)
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("Ann@acme.test-pw"))) // one attempt has refilled
	})

	t.Run("a correct password clears the failures", func(t *testing.T) {
		w, org := newAcme(t)
		ctx := context.Background()
		for range 4 {
			chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("wrong")), chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!")
		}
		// Right old password, too weak a new one: the password check passed.
		weak := accounts.SettingsUpdate{OldPassword: new("Ann@acme.test-pw"), NewPassword: new("x")}
		chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, weak), chatcore.CodeBadRequest, chatcore.KindInvalid, "New password is too weak!")
		for range 5 {
			chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("wrong")), chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!")
		}
		chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("wrong")), chatcore.CodeBadRequest, chatcore.KindInvalid, limited)
	})

	t.Run("configurable and disable-able", func(t *testing.T) {
		ctx := context.Background()
		w, org := newAcme(t, chatcore.WithPasswordAttemptLimit(chatcore.RateRule{Window: time.Minute, Max: 1}))
		chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("wrong")), chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!")
		chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("wrong")), chatcore.CodeBadRequest, chatcore.KindInvalid,
			"You're making too many attempts! Try again in 60 seconds.")

		w, org = newAcme(t, chatcore.WithPasswordAttemptLimit())
		for range 20 {
			chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, passwordChange("wrong")), chatcore.CodeBadRequest, chatcore.KindInvalid, "Wrong password!")
		}
	})
}

// wantRateLimited asserts Zulip's RATE_LIMIT_HIT error with the retry-after.
func wantRateLimited(t *testing.T, err error, retryAfter int) {
	t.Helper()
	is := is.New(t)
	e := chattest.WantError(t, err, chatcore.CodeRateLimitHit, chatcore.KindRateLimited, "API usage exceeded rate limit")
	is.Equal(e.RetryAfter, time.Duration(retryAfter)*time.Second) // the wait until a request is allowed
}

func TestEmailChangeRateLimit(t *testing.T) {
	change := func(addr string) accounts.SettingsUpdate { return accounts.SettingsUpdate{Email: new(addr)} }

	t.Run("two per hour, five per day", func(t *testing.T) {
		is := is.New(t)
		w, org := newAcme(t)
		ctx := context.Background()
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a1@example.net"))) // first
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a2@example.net"))) // second
		mails := len(w.Mail.All())
		wantRateLimited(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a3@example.net")), 1800)
		is.Equal(len(w.Mail.All()), mails) // no confirmation mailed

		// The address is checked first: a bad one is refused as such and
		// does not count.
		chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, change("nora@acme")), chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid address.")
		chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, change("Ben@acme.test")), chatcore.CodeBadRequest, chatcore.KindInvalid, "Already has an account.")
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("Ann@acme.test"))) // the current address is a no-op, never limited

		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ben, change("b1@example.net"))) // other users are not limited

		w.Clock.Advance(30 * time.Minute)
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a3@example.net"))) // third, half an hour later
		w.Clock.Advance(30 * time.Minute)
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a4@example.net"))) // fourth
		w.Clock.Advance(30 * time.Minute)
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a5@example.net"))) // fifth
		w.Clock.Advance(2 * time.Hour)
		// The hourly bucket is full again, the daily one (5 tokens, one more
		// every 17280 s) is not: 5 - 2 at 0 s, -1 at 1800, 3600 and 5400 s,
		// plus the refill up to 12600 s, leaves 0.729 tokens; the missing
		// 0.271 takes 4680 s.
		err := accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a6@example.net"))
		wantRateLimited(t, err, 4680)
		pending := chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) (string, error) {
			u, err := tx.User(ctx, org.ann)
			return u.Email, err
		})
		is.Equal(pending, "Ann@acme.test") // nothing confirmed
	})

	t.Run("the newest pending change stays the one refused requests did not replace", func(t *testing.T) {
		is := is.New(t)
		w, org := newAcme(t, chatcore.WithEmailChangeLimit(chatcore.RateRule{Window: time.Hour, Max: 1}))
		ctx := context.Background()
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("kept@example.net"))) // allowed
		wantRateLimited(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, change("refused@example.net")), 3600)
		m := w.Mail.All()
		key := regexp.MustCompile(`confirm_new_email/([a-z0-9]{24})`).FindStringSubmatch(m[len(m)-1].Body)
		is.True(key != nil)                                       // the first request's link was mailed
		is.NoErr(accounts.ConfirmEmailChange(ctx, w.Svc, key[1])) // and still works
		is.Equal(w.User(t, org.ann).Email, "kept@example.net")    // the allowed address
		is.Equal(m[len(m)-1].To, "kept@example.net")              // the refused one got no mail
	})

	t.Run("disable-able", func(t *testing.T) {
		is := is.New(t)
		w, org := newAcme(t, chatcore.WithEmailChangeLimit())
		for i := range 12 {
			is.NoErr(accounts.UpdateSettings(context.Background(), w.Svc, org.ann, change(fmt.Sprintf("a%d@example.net", i)))) // never limited
		}
	})
}

func TestEmailAddressSyntax(t *testing.T) {
	for _, tt := range []struct {
		addr string
		ok   bool
	}{
		{"nora@acme.test", true},
		{"nora.b+tag@mail.acme.test", true},
		{"o'hara@acme.test", true},
		{`"nora@b"@acme.test`, true},
		{`"nora\ b"@acme.test`, true},
		{`"nora b"@acme.test`, false},
		{"nora@localhost", true},
		{"nora@[192.0.2.1]", true},
		{"nora@[IPv6:2001:db8::1]", true},
		{"nora@bücher.example", true},
		{"nora@xn--bcher-kva.example", true},
		{"nora@acme.xn--p1ai", true},
		{"nora@acme", false},
		{"nora@-acme.test", false},
		{"nora@acme-.test", false},
		{"nora@acme.t", false},
		{"nora@acme.test.", false},
		{"nora@acme..test", false},
		{"nora@.acme.test", false},
		{"nora@acme.te_st", false},
		{"nora@acme.test-", false},
		{"nora@" + longLabel(64) + ".test", false},
		{"nora@" + longLabel(63) + ".test", true},
		{"nora@[2001:db8::1]", false},
		{"nora@[IPv6:192.0.2.1]", false},
		{"nora@[example]", false},
		{"nora@localhost.", false},
		{"nóra@acme.test", false},
		{"no ra@acme.test", false},
		{"nora.@acme.test", false},
		{".nora@acme.test", false},
		{"no..ra@acme.test", false},
		{"@acme.test", false},
		{"nora@", false},
		{"nora", false},
		{"nora@acme@acme.test", false},
		{"Nora <nora@acme.test>", false},
	} {
		t.Run(tt.addr, func(t *testing.T) {
			is := is.New(t)
			w, org := newAcme(t, chatcore.WithEmailChangeLimit())
			err := accounts.UpdateSettings(context.Background(), w.Svc, org.ann, accounts.SettingsUpdate{Email: new(tt.addr)})
			if tt.ok {
				is.NoErr(err) // accepted: a confirmation link goes out
				return
			}
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid address.")
		})
	}
}

// longLabel returns a domain label of n letters.
func longLabel(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}

func TestFullNameNonCharacters(t *testing.T) {
	for _, tt := range []struct {
		r  rune
		ok bool
	}{
		{0xFDD0, false}, {0xFDE7, false}, {0xFDEF, false},
		{0xFFFE, false}, {0xFFFF, false}, {0x1FFFE, false}, {0x1FFFF, false},
		{0x2FFFF, false}, {0xEFFFE, false}, {0x10FFFE, false}, {0x10FFFF, false},
		{0xFDCF, true}, {0xFDF0, true}, {0xFFFD, true}, {0x1F600, true}, {0xE000, true},
	} {
		t.Run(fmt.Sprintf("U+%04X", tt.r), func(t *testing.T) {
			is := is.New(t)
			w, org := newAcme(t)
			name := "Ann " + string(tt.r) + " Lee"
			err := accounts.UpdateSettings(context.Background(), w.Svc, org.ann, accounts.SettingsUpdate{FullName: &name})
			if tt.ok {
				is.NoErr(err)                               // a printable character
				is.Equal(w.User(t, org.ann).FullName, name) // stored
				return
			}
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid characters in name!")
			is.Equal(w.User(t, org.ann).FullName, "Ann") // unchanged
		})
	}
}

func TestConfirmEmailChangeOfDeactivatedUser(t *testing.T) {
	is := is.New(t)
	w, org := newAcme(t)
	ctx := context.Background()
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, accounts.SettingsUpdate{Email: new("ann2@example.net")})) // change started
	m := w.Mail.All()
	key := regexp.MustCompile(`confirm_new_email/([a-z0-9]{24})`).FindStringSubmatch(m[len(m)-1].Body)
	is.True(key != nil) // link mailed
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		u, err := tx.User(ctx, org.ann)
		if err != nil {
			return err
		}
		u.IsActive = false
		return tx.UpdateUser(ctx, u)
	})
	err := accounts.ConfirmEmailChange(ctx, w.Svc, key[1])
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Account is deactivated") // a plain 400, no 401 challenge
	is.Equal(w.User(t, org.ann).Email, "Ann@acme.test")                                                 // unchanged
}

// acmeOrg is the organisation of the account tests: realm "acme" with an
// owner and three members whose e-mail is "<Name>@acme.test" and whose
// password is "<email>-pw".
type acmeOrg struct {
	realm                chatcore.RealmID
	owner, ann, ben, cat chatcore.UserID
}

// newAcme builds a World over a memory store with the clock at 2026-05-04
// 03:02:01 UTC and links under https://chat.acme.test, stores acmeOrg in it,
// and passes opts to the Service.
func newAcme(tb testing.TB, opts ...chatcore.Option) (*chattest.World, acmeOrg) {
	tb.Helper()
	return newAcmeWith(tb, chattest.With(opts...))
}

// newAcmeWith is newAcme with World options (a store wrapper, say).
func newAcmeWith(tb testing.TB, opts ...chattest.Option) (*chattest.World, acmeOrg) {
	tb.Helper()
	w := chattest.New(tb, append([]chattest.Option{
		chattest.At(time.Date(2026, 5, 4, 3, 2, 1, 0, time.UTC)), chattest.ExternalURL("https://chat.acme.test"),
	}, opts...)...)
	realm := w.AddRealm(tb, "acme", func(r *chatcore.Realm) { r.Name = "Acme" })
	var org acmeOrg
	org.realm = realm.ID
	for _, p := range []struct {
		id   *chatcore.UserID
		name string
		role chatcore.Role
	}{{&org.owner, "Olga", chatcore.RoleOwner}, {&org.ann, "Ann", chatcore.RoleMember},
		{&org.ben, "Ben", chatcore.RoleMember}, {&org.cat, "Cat", chatcore.RoleMember}} {
		email := p.name + "@acme.test"
		*p.id = w.AddUser(tb, realm, p.name, p.role, chattest.Email(email), chattest.Password(email+"-pw")).ID
	}
	return w, org
}

// cancelAfterCommitStore cancels the caller's context as soon as the inner
// Update has committed: a client hanging up right after the commit.
type cancelAfterCommitStore struct {
	chatcore.Store
	mu     sync.Mutex
	cancel context.CancelFunc
}

func (s *cancelAfterCommitStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	err := s.Store.Update(ctx, fn)
	s.mu.Lock()
	if s.cancel != nil {
		s.cancel()
	}
	s.mu.Unlock()
	return err
}

// ctxMailer and ctxSink record what they were handed and whether the context
// they got was already done.
type ctxMailer struct {
	mu    sync.Mutex
	sent  []chatcore.Email
	ctxOK []bool
}

func (m *ctxMailer) Send(ctx context.Context, e chatcore.Email) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, e)
	m.ctxOK = append(m.ctxOK, ctx.Err() == nil)
	return nil
}

type ctxSink struct {
	mu     sync.Mutex
	events []chatcore.Event
	ctxOK  []bool
}

func (s *ctxSink) Publish(ctx context.Context, evs []chatcore.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, evs...)
	s.ctxOK = append(s.ctxOK, ctx.Err() == nil)
}

func TestEffectsSurviveCancelAfterCommit(t *testing.T) {
	is := is.New(t)
	wrapper := &cancelAfterCommitStore{}
	mailer, sink := &ctxMailer{}, &ctxSink{}
	w, org := newAcmeWith(t, chattest.Wrap(func(st chatcore.Store) chatcore.Store { wrapper.Store = st; return wrapper }),
		chattest.With(chatcore.WithMailer(mailer), chatcore.WithEventSink(sink)))

	ctx, cancel := context.WithCancel(context.Background())
	wrapper.mu.Lock()
	wrapper.cancel = cancel
	wrapper.mu.Unlock()
	err := accounts.UpdateSettings(ctx, w.Svc, org.ann, accounts.SettingsUpdate{Email: new("ann2@example.net"), ColorScheme: new(2)})
	is.NoErr(err)                                   // committed before the cancellation
	is.True(ctx.Err() != nil)                       // the caller's context had ended by the time effects went out
	is.Equal(len(sink.events), 1)                   // the color_scheme event was published
	is.Equal(sink.ctxOK, []bool{true})              // with a context that was not cancelled
	is.Equal(len(mailer.sent), 1)                   // the confirmation link was mailed
	is.Equal(mailer.sent[0].To, "ann2@example.net") // to the new address
	is.Equal(mailer.ctxOK, []bool{true})            // with a context that was not cancelled
	key := regexp.MustCompile(`confirm_new_email/([a-z0-9]{24})`).FindStringSubmatch(mailer.sent[0].Body)
	is.True(key != nil) // the link is in the mail

	ctx2, cancel2 := context.WithCancel(context.Background())
	wrapper.mu.Lock()
	wrapper.cancel = cancel2
	wrapper.mu.Unlock()
	is.NoErr(accounts.ConfirmEmailChange(ctx2, w.Svc, key[1])) // confirmed, then the context ends
	is.True(ctx2.Err() != nil)                                 // cancelled right after the commit
	is.Equal(len(sink.events), 3)                              // both realm_user updates published
	is.Equal(sink.ctxOK, []bool{true, true})                   // with a live context
	is.Equal(len(mailer.sent), 2)                              // the notice to the old address was mailed
	is.Equal(mailer.sent[1].To, "Ann@acme.test")               // to the old address
	is.Equal(mailer.ctxOK, []bool{true, true})                 // with a live context
}
