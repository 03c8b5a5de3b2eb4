package accounts_test

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/wire"
	"github.com/matryer/is"
)

// orgAPIKey is the API key the repository's testdata/org.json gives the user id.
func orgAPIKey(id chatcore.UserID) string {
	return fmt.Sprintf("Key%02d", id) + strings.Repeat("x", 27)
}

// userUpdateFailStore wraps a Store; while fail is set, UpdateUser fails
// inside Update transactions.
type userUpdateFailStore struct {
	chatcore.Store
	fail bool
}

var errUserUpdateInjected = errors.New("injected failure")

// wrap makes f wrap s, for chattest.Wrap.
func (f *userUpdateFailStore) wrap(s chatcore.Store) chatcore.Store { f.Store = s; return f }

func (f *userUpdateFailStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return f.Store.Update(ctx, func(tx chatcore.Tx) error {
		if f.fail {
			return fn(userUpdateFailTx{tx})
		}
		return fn(tx)
	})
}

type userUpdateFailTx struct{ chatcore.Tx }

func (userUpdateFailTx) UpdateUser(context.Context, *chatcore.User) error {
	return errUserUpdateInjected
}

// orgNow is when the users tests run.
var orgNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// orgMessages selects the messages of the first realm of testdata/org.json.
var orgMessages = chatcore.MessageQuery{RealmID: 1}

// newOrg builds a World over a memory store at orgNow, loaded with
// testdata/org.json.
func newOrg(tb testing.TB, opts ...chattest.Option) *chattest.World {
	tb.Helper()
	is := is.New(tb)
	w := chattest.New(tb, append([]chattest.Option{chattest.At(orgNow)}, opts...)...)
	f, err := os.Open("../testdata/org.json")
	is.NoErr(err) // the org fixture exists
	defer f.Close()
	is.NoErr(fixture.Load(tb.Context(), w.Svc, f)) // the org fixture loads
	return w
}

func TestUserViews(t *testing.T) {
	w := newOrg(t)
	ctx := t.Context()
	t.Run("me", func(t *testing.T) {
		is := is.New(t)
		v, err := accounts.Me(ctx, w.Svc, 11)
		is.NoErr(err)                                                                                                    // the actor's own view
		is.Equal(v.UserID, chatcore.UserID(11))                                                                          // own id
		is.Equal(v.Email, "olivia@acme.test")                                                                            // real e-mail, visible to everyone by default
		is.Equal(*v.DeliveryEmail, "olivia@acme.test")                                                                   // delivery e-mail
		is.Equal(v.FullName, "Olivia Owner")                                                                             // name
		is.Equal(v.Role, chatcore.RoleOwner)                                                                             // role 100
		is.True(v.IsOwner && v.IsAdmin && !v.IsGuest)                                                                    // owner flags
		is.True(v.IsActive && !v.IsBot)                                                                                  // active human
		is.Equal(v.DateJoined, "2026-01-02T03:04:05+00:00")                                                              // Python isoformat of the load time
		is.Equal(v.AvatarURL, "https://secure.gravatar.com/avatar/"+md5hex("olivia@acme.test")+"?d=identicon&version=1") // gravatar
		raw, err := json.Marshal(v)
		is.NoErr(err) // marshals
		var m map[string]any
		is.NoErr(json.Unmarshal(raw, &m)) // an object
		for _, k := range []string{"user_id", "email", "delivery_email", "full_name", "role", "is_admin", "is_owner", "is_guest", "is_bot", "is_active", "timezone", "avatar_url", "date_joined"} {
			_, ok := m[k]
			is.True(ok) // every documented key is present
		}
		_, hasBotType := m["bot_type"]
		is.True(!hasBotType) // humans carry no bot_type
	})
	t.Run("bot", func(t *testing.T) {
		is := is.New(t)
		v, err := accounts.User(ctx, w.Svc, 12, 32)
		is.NoErr(err)                                         // bots are included
		is.True(v.IsBot)                                      // a bot
		is.Equal(*v.BotType, chatcore.BotTypeOutgoingWebhook) // bot_type 3
		is.Equal(*v.BotOwnerID, chatcore.UserID(14))          // owner
	})
	t.Run("deactivated user is included", func(t *testing.T) {
		is := is.New(t)
		v, err := accounts.User(ctx, w.Svc, 12, 16)
		is.NoErr(err)        // deactivated users are visible
		is.True(!v.IsActive) // marked inactive
	})
	t.Run("restricted e-mail", func(t *testing.T) {
		is := is.New(t)
		v, err := accounts.User(ctx, w.Svc, 13, 14)  // moderator looks at a member who shows e-mail to admins only
		is.NoErr(err)                                // found
		is.True(v.DeliveryEmail == nil)              // hidden from moderators
		is.Equal(v.Email, "user14@chatcore.invalid") // stand-in address
		v, err = accounts.User(ctx, w.Svc, 12, 14)
		is.NoErr(err)                               // found
		is.Equal(*v.DeliveryEmail, "max@acme.test") // administrators see it
		me, err := accounts.Me(ctx, w.Svc, 14)
		is.NoErr(err)                                // own view
		is.Equal(*me.DeliveryEmail, "max@acme.test") // users always see their own
	})
	for _, tc := range []struct {
		name string
		id   chatcore.UserID
	}{{"unknown", 999}, {"other realm", 21}} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := accounts.User(ctx, w.Svc, 11, tc.id)
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "No such user")
		})
	}
	t.Run("users lists the realm", func(t *testing.T) {
		is := is.New(t)
		vs, err := accounts.Users(ctx, w.Svc, 15)
		is.NoErr(err) // any member may list
		var ids []chatcore.UserID
		for _, v := range vs {
			ids = append(ids, v.UserID)
		}
		is.Equal(ids, []chatcore.UserID{11, 12, 13, 14, 15, 16, 17, 31, 32, 33}) // every user and bot of acme, none of globex
	})
	t.Run("deactivated actor", func(t *testing.T) {
		_, err := accounts.Me(ctx, w.Svc, 16)
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
	})
}

func TestDeactivateUserOrder(t *testing.T) {
	const (
		owner, admin, moderator, member, guest = 11, 12, 13, 14, 15
		inactive, other, bot, otherRealm       = 16, 17, 31, 21
	)
	type outcome struct {
		code chatcore.Code
		msg  string
	}
	ok := outcome{}
	noSuchUser := outcome{chatcore.CodeBadRequest, "No such user"}
	isDeactivated := outcome{chatcore.CodeBadRequest, "User is deactivated"}
	insufficient := outcome{chatcore.CodeBadRequest, "Insufficient permission"}
	mustBeOwner := outcome{chatcore.CodeUnauthorizedPrincipal, "Must be an organization owner"}
	onlyOwner := outcome{chatcore.CodeBadRequest, "Cannot deactivate the only organization owner"}

	actors := []chatcore.UserID{owner, admin, moderator, member, guest}
	targets := []chatcore.UserID{owner, admin, moderator, member, guest, other, inactive, bot, otherRealm, 999}
	want := func(a, t chatcore.UserID) outcome {
		switch {
		case t == 999 || t == otherRealm || t == bot:
			return noSuchUser
		case t == inactive:
			return isDeactivated
		case a != owner && a != admin:
			return insufficient
		case t == owner && a != owner:
			return mustBeOwner
		case t == owner:
			return onlyOwner
		}
		return ok
	}
	for _, a := range actors {
		for _, tg := range targets {
			name := fmt.Sprintf("%d→%d", a, tg)
			t.Run(name, func(t *testing.T) {
				is := is.New(t)
				w := newOrg(t)
				before := w.MessageIDs(t, orgMessages)
				err := accounts.DeactivateUser(t.Context(), w.Svc, a, tg, accounts.DeactivateUserRequest{
					Actions:                         &accounts.DeactivationActions{DeletePublicChannelMessages: true, DeleteDirectMessages: true},
					DeactivationNotificationComment: new("bye"),
				})
				expected := want(a, tg)
				if expected == ok {
					is.NoErr(err)                    // allowed
					is.True(!w.User(t, tg).IsActive) // deactivated
					is.Equal(len(w.Mail.All()), 1)   // the notice went out
					return
				}
				chattest.WantError(t, err, expected.code, chatcore.KindInvalid, expected.msg)
				is.Equal(w.MessageIDs(t, orgMessages), before) // a refused request deletes nothing
				is.Equal(len(w.Mail.All()), 0)                 // and mails nothing
				is.Equal(len(w.Events.All()), 0)               // and publishes nothing
			})
		}
	}

	t.Run("admin may deactivate themselves", func(t *testing.T) {
		is := is.New(t)
		w := newOrg(t)
		is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, admin, admin, accounts.DeactivateUserRequest{})) // self-deactivation is allowed
		is.True(!w.User(t, admin).IsActive)                                                                   // deactivated
	})
	t.Run("owner may deactivate themselves when another owner exists", func(t *testing.T) {
		is := is.New(t)
		w := newOrg(t)
		w.UpdateUser(t, other, func(u *chatcore.User) { u.Role = chatcore.RoleOwner })
		is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, owner, owner, accounts.DeactivateUserRequest{})) // two owners
		is.True(!w.User(t, owner).IsActive)                                                                   // deactivated
	})
	t.Run("owner may deactivate another owner", func(t *testing.T) {
		is := is.New(t)
		w := newOrg(t)
		w.UpdateUser(t, other, func(u *chatcore.User) { u.Role = chatcore.RoleOwner })
		is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, owner, other, accounts.DeactivateUserRequest{})) // two owners
	})
	t.Run("admin still may not deactivate an owner among several", func(t *testing.T) {
		w := newOrg(t)
		w.UpdateUser(t, other, func(u *chatcore.User) { u.Role = chatcore.RoleOwner })
		err := accounts.DeactivateUser(t.Context(), w.Svc, admin, other, accounts.DeactivateUserRequest{})
		chattest.WantError(t, err, mustBeOwner.code, chatcore.KindInvalid, mustBeOwner.msg)
	})
	t.Run("only active human owners count", func(t *testing.T) {
		w := newOrg(t)
		w.UpdateUser(t, inactive, func(u *chatcore.User) { u.Role = chatcore.RoleOwner }) // a deactivated owner
		w.UpdateUser(t, bot, func(u *chatcore.User) { u.Role = chatcore.RoleOwner })      // a bot with the owner role
		err := accounts.DeactivateUser(t.Context(), w.Svc, owner, owner, accounts.DeactivateUserRequest{})
		chattest.WantError(t, err, onlyOwner.code, chatcore.KindInvalid, onlyOwner.msg)
	})
	t.Run("deactivated actor", func(t *testing.T) {
		w := newOrg(t)
		err := accounts.DeactivateUser(t.Context(), w.Svc, inactive, member, accounts.DeactivateUserRequest{})
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
	})
	t.Run("second call", func(t *testing.T) {
		is := is.New(t)
		w := newOrg(t)
		is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, owner, member, accounts.DeactivateUserRequest{})) // first call deactivates
		err := accounts.DeactivateUser(t.Context(), w.Svc, owner, member, accounts.DeactivateUserRequest{})
		chattest.WantError(t, err, isDeactivated.code, chatcore.KindInvalid, isDeactivated.msg)
	})
}

func TestDeactivateUserBotsFirst(t *testing.T) {
	is := is.New(t)
	w := newOrg(t)
	ctx := t.Context()
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		return tx.CreateEmailChange(ctx, &chatcore.EmailChange{Key: "pending", UserID: 14, RealmID: 1,
			OldEmail: "max@acme.test", NewEmail: "max2@acme.test", CreatedAt: orgNow})
	})
	is.NoErr(accounts.DeactivateUser(ctx, w.Svc, 12, 14, accounts.DeactivateUserRequest{})) // admin deactivates a member

	for _, id := range []chatcore.UserID{14, 31, 32} {
		is.True(!w.User(t, id).IsActive) // the user and every bot they own are deactivated
	}
	is.True(!w.User(t, 33).IsActive) // another owner's bot was already inactive
	is.True(w.User(t, 17).IsActive)  // bystanders stay active

	// Events: bots first, then the user; realm_bot to the owner.
	var order []chatcore.UserID
	var botEvents []chatcore.Event
	for _, ev := range w.Events.All() {
		switch ev.Data["type"] {
		case "realm_user":
			p := ev.Data["person"].(map[string]any)
			is.Equal(p["is_active"], false) // a deactivation
			order = append(order, p["user_id"].(chatcore.UserID))
			is.Equal(ev.UserIDs, []chatcore.UserID{11, 12, 13, 15, 17}) // the realm's remaining active users
		case "realm_bot":
			botEvents = append(botEvents, ev)
		}
	}
	is.Equal(order, []chatcore.UserID{31, 32, 14}) // bots before their owner
	is.Equal(len(botEvents), 2)                    // one realm_bot event per bot
	for _, ev := range botEvents {
		is.Equal(ev.UserIDs, []chatcore.UserID{14}) // to the bot owner
	}

	err := w.Store.View(ctx, func(tx chatcore.Tx) error {
		for _, id := range []chatcore.UserID{14, 31} {
			subs, err := tx.Subscriptions(ctx, 0, id)
			if err != nil {
				return err
			}
			is.True(len(subs) > 0) // subscriptions are kept
			for _, s := range subs {
				is.True(!s.Active) // but inactive
			}
		}
		_, err := tx.EmailChange(ctx, "pending")
		is.True(errors.Is(err, chatcore.ErrNotFound)) // the pending e-mail change is gone
		return nil
	})
	is.NoErr(err) // store readable

	_, err = w.Svc.Authenticate(ctx, "max@acme.test", orgAPIKey(14))
	chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
	_, err = w.Svc.Authenticate(ctx, "echo-bot@acme.test", orgAPIKey(32))
	chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
}

func TestDeactivateUserActions(t *testing.T) {
	// Messages of testdata/org.json by member 14 and their bots 31, 32:
	// public channel: 101 102 103 113 (14), 110 (31); private channel: 105
	// (14), 111 (31); protected private channel: 106 (14); direct: 107 108
	// (14), 112 (32). Others: 104, 109, 201 (globex).
	all := []chatcore.MessageID{101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113}
	without := func(drop ...chatcore.MessageID) []chatcore.MessageID {
		return slices.DeleteFunc(slices.Clone(all), func(id chatcore.MessageID) bool { return slices.Contains(drop, id) })
	}
	for _, tc := range []struct {
		name    string
		actions accounts.DeactivationActions
		left    []chatcore.MessageID
	}{
		{"none", accounts.DeactivationActions{}, all},
		{"public", accounts.DeactivationActions{DeletePublicChannelMessages: true}, without(101, 102, 103, 113, 110)},
		{"private", accounts.DeactivationActions{DeletePrivateChannelMessages: true}, without(105, 106, 111)},
		{"direct", accounts.DeactivationActions{DeleteDirectMessages: true}, without(107, 108, 112)},
		{"all kinds", accounts.DeactivationActions{DeletePublicChannelMessages: true, DeletePrivateChannelMessages: true, DeleteDirectMessages: true},
			[]chatcore.MessageID{104, 109}},
		{"profile only", accounts.DeactivationActions{DeleteProfile: true}, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			w := newOrg(t, chattest.With(chatcore.WithTopicDeletion(2, time.Hour)))                                             // small batches
			is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, 11, 14, accounts.DeactivateUserRequest{Actions: &tc.actions})) // allowed
			is.Equal(w.MessageIDs(t, orgMessages), tc.left)                                                                     // exactly the selected kinds of the user's and their bots' messages are gone
			for _, id := range []chatcore.UserID{14, 31, 32} {
				u := w.User(t, id)
				is.True(!u.IsActive) // deactivated
				if tc.actions.DeleteProfile {
					is.Equal(u.FullName, "Deleted user") // renamed
					is.Equal(u.AvatarSource, "D")        // avatar dropped
					is.Equal(u.AvatarVersion, 2)         // one avatar change counted
				} else {
					is.True(u.FullName != "Deleted user") // name kept
				}
			}
			if tc.actions.DeleteProfile {
				v, err := accounts.User(t.Context(), w.Svc, 11, 14)
				is.NoErr(err)                                                                   // still visible
				is.Equal(v.AvatarURL, "http://127.0.0.1:9991/static/images/default-avatar.png") // default avatar
				is.Equal(w.User(t, 33).FullName, "Old Bot")                                     // another owner's bot keeps its name
			}
			globex := w.MessageIDs(t, chatcore.MessageQuery{RealmID: 2})
			is.Equal(globex, []chatcore.MessageID{201}) // other realms are untouched
		})
	}
	t.Run("delete events", func(t *testing.T) {
		is := is.New(t)
		w := newOrg(t)
		is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, 11, 14, accounts.DeactivateUserRequest{
			Actions: &accounts.DeactivationActions{DeleteDirectMessages: true}})) // allowed
		var deleted []chatcore.MessageID
		for _, ev := range w.Events.All() {
			if ev.Data["type"] == "delete_message" {
				deleted = append(deleted, ev.Data["message_ids"].([]chatcore.MessageID)...)
			}
		}
		slices.Sort(deleted)
		is.Equal(deleted, []chatcore.MessageID{107, 108, 112}) // one delete_message event per deleted message set
	})
}

func TestDeactivateUserEmail(t *testing.T) {
	for _, tc := range []struct {
		name    string
		comment *string
		mail    bool
		text    string
	}{
		{"absent", nil, false, ""},
		{"empty", new(""), true, ""},
		{"blank", new("   "), true, ""},
		{"text", new("  Thanks for everything!\nSee you.  "), true, "Thanks for everything!"},
		{"exactly 2000 characters", new(" " + strings.Repeat("é", 2000) + " "), true, strings.Repeat("é", 2000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			w := newOrg(t)
			is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, 12, 14, accounts.DeactivateUserRequest{DeactivationNotificationComment: tc.comment})) // allowed
			mails := w.Mail.All()
			if !tc.mail {
				is.Equal(len(mails), 0) // no comment, no e-mail
				return
			}
			is.Equal(len(mails), 1)                                                         // one notice
			is.Equal(mails[0].To, "max@acme.test")                                          // to the deactivated user
			is.Equal(mails[0].Subject, "Notification of account deactivation on Acme Corp") // Zulip's subject
			is.True(mails[0].From != "")                                                    // from a noreply address
			is.True(strings.Contains(mails[0].Body, "Acme Corp"))                           // names the organization
			if tc.text != "" {
				is.True(strings.Contains(mails[0].Body, tc.text)) // the comment is included
			} else {
				is.True(!strings.Contains(mails[0].Body, "message for you")) // no custom text section
			}
		})
	}
	t.Run("too long", func(t *testing.T) {
		is := is.New(t)
		w := newOrg(t)
		err := accounts.DeactivateUser(t.Context(), w.Svc, 12, 14, accounts.DeactivateUserRequest{
			DeactivationNotificationComment: new(strings.Repeat("a", 2001)),
			Actions:                         &accounts.DeactivationActions{DeleteDirectMessages: true},
		})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "deactivation_notification_comment is too long (limit: 2000 characters)")
		is.True(w.User(t, 14).IsActive)                 // nothing happened
		is.Equal(len(w.MessageIDs(t, orgMessages)), 13) // nothing deleted
		is.Equal(len(w.Mail.All()), 0)                  // no mail
	})
	t.Run("no mail or events when the transaction fails", func(t *testing.T) {
		is := is.New(t)
		fails := &userUpdateFailStore{}
		w := newOrg(t, chattest.Wrap(fails.wrap))
		fails.fail = true
		err := accounts.DeactivateUser(t.Context(), w.Svc, 12, 14, accounts.DeactivateUserRequest{DeactivationNotificationComment: new("bye")})
		is.True(errors.Is(err, errUserUpdateInjected)) // the store failure comes back
		fails.fail = false
		is.Equal(len(w.Mail.All()), 0)   // no mail for an uncommitted deactivation
		is.Equal(len(w.Events.All()), 0) // and no events
		is.True(w.User(t, 14).IsActive)  // the user is still active
		is.True(w.User(t, 31).IsActive)  // and so are their bots
		// A retry after the failure completes.
		is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, 12, 14, accounts.DeactivateUserRequest{DeactivationNotificationComment: new("bye")})) // retry works
		is.Equal(len(w.Mail.All()), 1)                                                                                                             // now mailed once
	})
}

func TestDeactivateUserEventsAfterCommit(t *testing.T) {
	is := is.New(t)
	w := newOrg(t)
	var seen []bool
	w.Events.OnPublish = func([]chatcore.Event) {
		// The store must already show the deactivation when events go out.
		_ = w.Store.View(context.Background(), func(tx chatcore.Tx) error {
			u, err := tx.User(context.Background(), 14)
			if err == nil {
				seen = append(seen, u.IsActive)
			}
			return err
		})
	}
	is.NoErr(accounts.DeactivateUser(t.Context(), w.Svc, 12, 14, accounts.DeactivateUserRequest{})) // allowed
	is.Equal(seen, []bool{false})                                                                   // one publication, after the commit
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestDeactivateUserRequestDecoding(t *testing.T) {
	is := is.New(t)
	var req accounts.DeactivateUserRequest
	ignored, err := wire.DecodeParams(url.Values{
		"actions":                           {`{"delete_profile": true, "delete_direct_messages": true}`},
		"deactivation_notification_comment": {`"quoted"`},
		"dont_block":                        {"true"},
	}, &req)
	is.NoErr(err)                                                                                         // wire parameters decode
	is.Equal(ignored, []string{"dont_block"})                                                             // unknown parameters are reported
	is.Equal(*req.Actions, accounts.DeactivationActions{DeleteProfile: true, DeleteDirectMessages: true}) // the actions object
	is.Equal(*req.DeactivationNotificationComment, `"quoted"`)                                            // the comment is taken literally

	var bad accounts.DeactivateUserRequest
	_, err = wire.DecodeParams(url.Values{"actions": {`{"delete_profile": "yes"}`}}, &bad)
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, `actions["delete_profile"] is not a boolean`)
}

func BenchmarkAuthenticate(b *testing.B) {
	for _, k := range chattest.Stores {
		b.Run(k.Name, func(b *testing.B) {
			w := newOrg(b, chattest.OnStore(k.Open(b)))
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := w.Svc.Authenticate(ctx, "max@acme.test", orgAPIKey(14)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
