package chatcore_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// settingsEnv is a Service over a memory store with one realm ("zulip") of users of
// every role, a bot, a deactivated user, and a second realm with one user.
type settingsEnv struct {
	svcEnv

	owner, admin, moderator, member, guest, bot, gone chatcore.UserID
	otherRealmUser                                    chatcore.UserID
}

func newSettingsEnv(tb testing.TB, opts ...chatcore.Option) *settingsEnv {
	tb.Helper()
	return newSettingsEnvOn(tb, memory.New(), opts...)
}

// settingsEnvMaker builds a settingsEnv over one kind of store.
type settingsEnvMaker = func(tb testing.TB, opts ...chatcore.Option) *settingsEnv

// settingsEachStore runs body over the memory store and over a SQLite store,
// so the Service's settings behaviour is checked on both implementations.
func settingsEachStore(t *testing.T, body func(t *testing.T, newSettingsEnv settingsEnvMaker)) {
	eachStore(t, newSettingsEnvOn, body)
}

// newSettingsEnvOn builds the fixture over store.
func newSettingsEnvOn(tb testing.TB, store chatcore.Store, opts ...chatcore.Option) *settingsEnv {
	tb.Helper()
	is := is.New(tb)
	e := &settingsEnv{svcEnv: newSvcEnv(store, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), "https://chat.example.com/", opts...)}
	err := e.store.Update(context.Background(), func(tx chatcore.Tx) error {
		ctx := context.Background()
		r := &chatcore.Realm{StringID: "zulip", Name: "Zulip Dev"}
		if err := tx.CreateRealm(ctx, r); err != nil {
			return err
		}
		e.realm = r.ID
		var err error
		mk := func(email, name string, role chatcore.Role, mod func(*chatcore.User)) chatcore.UserID {
			if err != nil {
				return 0
			}
			u := &chatcore.User{RealmID: r.ID, Email: email, FullName: name, Role: role, IsActive: true,
				PasswordHash: "plain:" + email + "-Secret#42", Settings: chatcore.DefaultSettings()}
			if mod != nil {
				mod(u)
			}
			err = tx.CreateUser(ctx, u)
			return u.ID
		}
		e.owner = mk("desdemona@zulip.com", "Desdemona", chatcore.RoleOwner, nil)
		e.admin = mk("iago@zulip.com", "Iago", chatcore.RoleAdministrator, nil)
		e.moderator = mk("shiva@zulip.com", "Shiva", chatcore.RoleModerator, nil)
		e.member = mk("hamlet@zulip.com", "King Hamlet", chatcore.RoleMember, nil)
		e.guest = mk("polonius@zulip.com", "Polonius", chatcore.RoleGuest, nil)
		e.bot = mk("bot@zulip.com", "Welcome Bot", chatcore.RoleMember, func(u *chatcore.User) {
			u.IsBot, u.BotType, u.PasswordHash = true, chatcore.BotTypeGeneric, ""
		})
		e.gone = mk("gone@zulip.com", "Gone User", chatcore.RoleMember, func(u *chatcore.User) { u.IsActive = false })
		if err != nil {
			return err
		}
		r2 := &chatcore.Realm{StringID: "lear", Name: "Lear & Co."}
		if err := tx.CreateRealm(ctx, r2); err != nil {
			return err
		}
		o := &chatcore.User{RealmID: r2.ID, Email: "king@lear.org", FullName: "King Lear", Role: chatcore.RoleMember,
			IsActive: true, Settings: chatcore.DefaultSettings()}
		if err := tx.CreateUser(ctx, o); err != nil {
			return err
		}
		e.otherRealmUser = o.ID
		return nil
	})
	is.NoErr(err) // fixture created
	return e
}

// edited returns the settings the user changed themselves.
func (e *settingsEnv) edited(tb testing.TB, id chatcore.UserID) []string {
	tb.Helper()
	return readStore(tb, e.store, func(ctx context.Context, tx chatcore.Tx) ([]string, error) { return tx.EditedSettings(ctx, id) })
}

func TestUpdateSettingsOwnChangesOnlyDifferentValues(t *testing.T) {
	settingsEachStore(t, func(t *testing.T, newSettingsEnv settingsEnvMaker) {
		is := is.New(t)
		e := newSettingsEnv(t)
		ctx := context.Background()
		err := e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{
			ColorScheme: new(2),
			EnterSends:  new(false), // the default: unchanged
			Emojiset:    new("text"),
		})
		is.NoErr(err) // valid update
		u := e.user(t, e.member)
		is.Equal(u.Settings.ColorScheme, 2)                                   // stored
		is.Equal(u.Settings.Emojiset, "text")                                 // stored
		is.Equal(e.edited(t, e.member), []string{"color_scheme", "emojiset"}) // only changed settings count as edited
		evs := e.events.ofType("user_settings")
		is.Equal(len(evs), 2) // one event per changed setting
		is.Equal(evs[0].UserIDs, []chatcore.UserID{e.member})
		is.Equal(evs[0].Data, map[string]any{"type": "user_settings", "op": "update", "property": "color_scheme", "value": 2})
		is.Equal(evs[1].Data["property"], "emojiset") // in declaration order
		is.Equal(evs[1].Data["value"], "text")        // the new value

		e.events.reset()
		is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{ColorScheme: new(2)})) // same value again
		is.Equal(len(e.events.all()), 0)                                                            // nothing changed, nothing published
	})
}

func TestUpdateSettingsEveryRoleMayEditOwnSettings(t *testing.T) {
	e := newSettingsEnv(t)
	for _, id := range []chatcore.UserID{e.owner, e.admin, e.moderator, e.member, e.guest} {
		is := is.New(t)
		is.NoErr(e.svc.UpdateSettings(context.Background(), id, chatcore.SettingsUpdate{TwentyFourHourTime: new(true)})) // allowed
		is.Equal(e.user(t, id).Settings.TwentyFourHourTime, true)                                                        // applied
	}
}

func TestUpdateSettingsDefaultLanguageEvent(t *testing.T) {
	is := is.New(t)
	e := newSettingsEnv(t)
	is.NoErr(e.svc.UpdateSettings(context.Background(), e.member, chatcore.SettingsUpdate{DefaultLanguage: new("de")})) // German exists
	evs := e.events.ofType("user_settings", "property", "default_language")
	is.Equal(len(evs), 1)                             // one event
	is.Equal(evs[0].Data["value"], "de")              // the code
	is.Equal(evs[0].Data["language_name"], "Deutsch") // plus the language name
}

func TestUpdateSettingsRefusals(t *testing.T) {
	e := newSettingsEnv(t)
	ctx := context.Background()
	t.Run("bot", func(t *testing.T) {
		err := e.svc.UpdateSettings(ctx, e.bot, chatcore.SettingsUpdate{ColorScheme: new(9)})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "This endpoint does not accept bot requests.")
	})
	t.Run("deactivated actor", func(t *testing.T) {
		err := e.svc.UpdateSettings(ctx, e.gone, chatcore.SettingsUpdate{ColorScheme: new(2)})
		got := wantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
		is := is.New(t)
		is.Equal(got.Kind, chatcore.KindUnauthenticated) // 401
	})
	t.Run("unknown actor", func(t *testing.T) {
		err := e.svc.UpdateSettings(ctx, 9999, chatcore.SettingsUpdate{ColorScheme: new(2)})
		wantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Invalid API key")
	})
	t.Run("invalid value", func(t *testing.T) {
		err := e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{ColorScheme: new(9)})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid color_scheme: Value error, Not in the list of possible values")
	})
}

func TestUpdateSettingsAllOrNothing(t *testing.T) {
	settingsEachStore(t, func(t *testing.T, newSettingsEnv settingsEnvMaker) {
		tests := []struct {
			name string
			req  chatcore.SettingsUpdate
			msg  string
		}{
			{"bad full name after settings", chatcore.SettingsUpdate{ColorScheme: new(2), Timezone: new("Asia/Tokyo"), FullName: new("  ")},
				"Name must not be empty!"},
			{"good password, bad e-mail", chatcore.SettingsUpdate{OldPassword: new("hamlet@zulip.com-Secret#42"),
				NewPassword: new("correct horse battery staple"), Email: new("not an address"), ColorScheme: new(3)},
				"Invalid address."},
			{"good settings, bad sound", chatcore.SettingsUpdate{EnterSends: new(true), EnableDraftsSynchronization: new(false),
				NotificationSound: new("klaxon")}, "Invalid notification sound 'klaxon'"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				e := newSettingsEnv(t)
				ctx := context.Background()
				is.NoErr(e.store.Update(ctx, func(tx chatcore.Tx) error {
					return tx.CreateDraft(ctx, &chatcore.Draft{UserID: e.member, Content: "keep me"})
				})) // a draft to keep
				before := e.user(t, e.member)
				err := e.svc.UpdateSettings(ctx, e.member, tt.req)
				wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
				after := e.user(t, e.member)
				is.Equal(after, before)                 // nothing changed
				is.Equal(len(e.edited(t, e.member)), 0) // no edits recorded
				is.Equal(len(e.events.all()), 0)        // no events
				is.Equal(len(e.mail.all()), 0)          // no mail
				var drafts []chatcore.Draft
				is.NoErr(e.store.View(ctx, func(tx chatcore.Tx) error {
					var err error
					drafts, err = tx.Drafts(ctx, e.member)
					return err
				})) // drafts readable
				is.Equal(len(drafts), 1) // drafts kept
			})
		}
	})
}

func TestUpdateSettingsEventsAfterCommit(t *testing.T) {
	is := is.New(t)
	e := newSettingsEnv(t)
	ctx := context.Background()
	var seen []int
	e.events.OnPublish = func([]chatcore.Event) {
		// Publish runs outside the transaction, after it committed: a new
		// transaction sees the change.
		_ = e.store.View(ctx, func(tx chatcore.Tx) error {
			u, err := tx.User(ctx, e.member)
			if err == nil {
				seen = append(seen, u.Settings.ColorScheme)
			}
			return err
		})
	}
	is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{ColorScheme: new(3)})) // valid
	is.Equal(seen, []int{3})                                                                    // published once, after the commit
}

// confirmLinkRE extracts the confirmation key from a confirmation e-mail.
var confirmLinkRE = regexp.MustCompile(`https://chat\.example\.com/accounts/confirm_new_email/([a-z0-9]{24})\b`)

func TestUpdateSettingsTimezone(t *testing.T) {
	settingsEachStore(t, func(t *testing.T, newSettingsEnv settingsEnvMaker) {
		is := is.New(t)
		e := newSettingsEnv(t)
		ctx := context.Background()
		is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{Timezone: new("America/Montreal")})) // a backward link
		u := e.user(t, e.member)
		is.Equal(u.Settings.Timezone, "America/Toronto")      // stored canonically
		is.Equal(e.edited(t, e.member), []string{"timezone"}) // counts as the user's own edit
		own := e.events.ofType("user_settings", "property", "timezone")
		is.Equal(len(own), 1)                             // the user's clients learn the value
		is.Equal(own[0].Data["value"], "America/Toronto") // canonical
		others := e.events.ofType("realm_user")
		is.Equal(len(others), 1) // and everyone sees the profile change
		is.Equal(others[0].Data["person"], map[string]any{"user_id": e.member, "email": "hamlet@zulip.com", "timezone": "America/Toronto"})

		e.events.reset()
		is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{Timezone: new("America/Toronto")})) // the same zone
		is.Equal(len(e.events.all()), 0)                                                                         // no change, no event

		err := e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{Timezone: new("")})
		wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid timezone: Value error, Not a recognized time zone")
	})
}

func TestUpdateSettingsDraftsSynchronization(t *testing.T) {
	settingsEachStore(t, func(t *testing.T, newSettingsEnv settingsEnvMaker) {
		is := is.New(t)
		e := newSettingsEnv(t)
		ctx := context.Background()
		drafts := func(id chatcore.UserID) int {
			var n int
			is.NoErr(e.store.View(ctx, func(tx chatcore.Tx) error {
				d, err := tx.Drafts(ctx, id)
				n = len(d)
				return err
			})) // drafts readable
			return n
		}
		is.NoErr(e.store.Update(ctx, func(tx chatcore.Tx) error {
			for _, id := range []chatcore.UserID{e.member, e.member, e.admin} {
				if err := tx.CreateDraft(ctx, &chatcore.Draft{UserID: id, Content: "draft"}); err != nil {
					return err
				}
			}
			return nil
		})) // drafts exist
		is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{EnableDraftsSynchronization: new(true)})) // unchanged
		is.Equal(drafts(e.member), 2)                                                                                  // kept
		is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{EnableDraftsSynchronization: new(false)}))
		is.Equal(drafts(e.member), 0) // turning synchronization off deletes the user's drafts
		is.Equal(drafts(e.admin), 1)  // and nobody else's
	})
}

func TestUpdateSettingsConfiguredSets(t *testing.T) {
	is := is.New(t)
	e := newSettingsEnv(t, chatcore.WithLanguages([]string{"en", "tlh"}), chatcore.WithNotificationSounds([]string{"beep"}))
	ctx := context.Background()
	wantError(t, e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{DefaultLanguage: new("de")}), chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid default_language")
	wantError(t, e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{NotificationSound: new("zulip")}), chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid notification sound 'zulip'")
	is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{DefaultLanguage: new("tlh"), NotificationSound: new("beep")})) // configured values
	is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{NotificationSound: new("none")}))                              // "none" always works
	evs := e.events.ofType("user_settings", "property", "default_language")
	is.Equal(evs[0].Data["language_name"], "tlh") // unknown languages are named by their code
}

func TestTypingRecipients(t *testing.T) {
	settingsEachStore(t, func(t *testing.T, newSettingsEnv settingsEnvMaker) {
		is := is.New(t)
		e := newSettingsEnv(t)
		ctx := context.Background()
		is.NoErr(e.svc.UpdateSettings(ctx, e.guest, chatcore.SettingsUpdate{ReceivesTypingNotifications: new(false)})) // opts out
		got, err := e.svc.TypingRecipients(ctx, []chatcore.UserID{e.member, e.guest, e.gone, 9999, e.admin, e.member})
		is.NoErr(err)                                       // readable
		is.Equal(got, []chatcore.UserID{e.admin, e.member}) // active, opted in, sorted, unique
		got, err = e.svc.TypingRecipients(ctx, nil)
		is.NoErr(err)         // nothing to filter
		is.Equal(len(got), 0) // nobody
	})
}

// bulkSettingsEnv adds groups to settingsEnv: outer (member) ⊃ inner (guest, moderator), and
// makes the member's color_scheme an own edit.
func bulkSettingsEnv(tb testing.TB, newSettingsEnv settingsEnvMaker) (*settingsEnv, chatcore.GroupID, chatcore.GroupID) {
	tb.Helper()
	is := is.New(tb)
	e := newSettingsEnv(tb)
	ctx := context.Background()
	var outer, inner chatcore.GroupID
	is.NoErr(e.store.Update(ctx, func(tx chatcore.Tx) error {
		in := &chatcore.Group{RealmID: e.realm, Name: "inner", Members: []chatcore.UserID{e.guest, e.moderator, e.bot}}
		if err := tx.CreateGroup(ctx, in); err != nil {
			return err
		}
		out := &chatcore.Group{RealmID: e.realm, Name: "outer", Members: []chatcore.UserID{e.member}, Subgroups: []chatcore.GroupID{in.ID}}
		if err := tx.CreateGroup(ctx, out); err != nil {
			return err
		}
		inner, outer = in.ID, out.ID
		return nil
	})) // groups created
	is.NoErr(e.svc.UpdateSettings(ctx, e.member, chatcore.SettingsUpdate{ColorScheme: new(3)})) // the member's own choice
	e.events.reset()
	return e, outer, inner
}

func TestUpdateSettingsBulk(t *testing.T) {
	settingsEachStore(t, func(t *testing.T, newSettingsEnv settingsEnvMaker) {
		ctx := context.Background()
		t.Run("users and nested groups", func(t *testing.T) {
			is := is.New(t)
			e, outer, _ := bulkSettingsEnv(t, newSettingsEnv)
			err := e.svc.UpdateSettings(ctx, e.admin, chatcore.SettingsUpdate{
				TargetUsers: &chatcore.TargetUsers{UserIDs: []chatcore.UserID{e.owner, e.bot, e.gone}, GroupIDs: []chatcore.GroupID{outer},
					SkipIfAlreadyEdited: new(false)},
				ColorScheme:     new(2),
				WebFontSizePx:   new(20),
				FullName:        new("ignored in bulk mode"),
				OldPassword:     new("ignored too"),
				DefaultLanguage: new("de"),
			})
			is.NoErr(err) // administrators may edit in bulk
			for _, id := range []chatcore.UserID{e.owner, e.gone, e.member, e.guest, e.moderator} {
				u := e.user(t, id)
				is.Equal(u.Settings.ColorScheme, 2)        // explicit users, nested group members, deactivated users included
				is.Equal(u.Settings.WebFontSizePx, 20)     // every requested setting
				is.Equal(u.Settings.DefaultLanguage, "de") // every requested setting
			}
			is.Equal(e.user(t, e.bot).Settings.ColorScheme, 1)   // bots are never edited
			is.Equal(e.user(t, e.admin).Settings.ColorScheme, 1) // the admin was not targeted
			is.Equal(e.user(t, e.admin).FullName, "Iago")        // full_name is ignored in bulk mode
			is.Equal(len(e.edited(t, e.owner)), 0)               // bulk edits are not the users' own edits
			evs := e.events.ofType("user_settings", "property", "color_scheme")
			is.Equal(len(evs), 1)                                                                        // one event per setting
			is.Equal(evs[0].UserIDs, []chatcore.UserID{e.owner, e.moderator, e.member, e.guest, e.gone}) // for every changed user
			lang := e.events.ofType("user_settings", "property", "default_language")
			is.Equal(lang[0].Data["language_name"], "Deutsch") // with the language name
		})
		t.Run("skip users who edited the setting themselves", func(t *testing.T) {
			is := is.New(t)
			e, outer, _ := bulkSettingsEnv(t, newSettingsEnv)
			err := e.svc.UpdateSettings(ctx, e.owner, chatcore.SettingsUpdate{
				TargetUsers: &chatcore.TargetUsers{GroupIDs: []chatcore.GroupID{outer}, SkipIfAlreadyEdited: new(true)},
				ColorScheme: new(2),
				EnterSends:  new(true),
			})
			is.NoErr(err)                                           // owners count as administrators
			is.Equal(e.user(t, e.member).Settings.ColorScheme, 3)   // kept the member's own choice
			is.Equal(e.user(t, e.member).Settings.EnterSends, true) // but other settings apply
			is.Equal(e.user(t, e.guest).Settings.ColorScheme, 2)    // others changed
			evs := e.events.ofType("user_settings", "property", "color_scheme")
			is.Equal(evs[0].UserIDs, []chatcore.UserID{e.moderator, e.guest}) // only changed users hear about it
		})
		t.Run("override own edits", func(t *testing.T) {
			is := is.New(t)
			e, outer, _ := bulkSettingsEnv(t, newSettingsEnv)
			err := e.svc.UpdateSettings(ctx, e.admin, chatcore.SettingsUpdate{
				TargetUsers: &chatcore.TargetUsers{GroupIDs: []chatcore.GroupID{outer}, SkipIfAlreadyEdited: new(false)},
				ColorScheme: new(2),
			})
			is.NoErr(err)                                         // allowed
			is.Equal(e.user(t, e.member).Settings.ColorScheme, 2) // overridden
		})
		t.Run("drafts of changed users", func(t *testing.T) {
			is := is.New(t)
			e, _, _ := bulkSettingsEnv(t, newSettingsEnv)
			is.NoErr(e.store.Update(ctx, func(tx chatcore.Tx) error {
				return tx.CreateDraft(ctx, &chatcore.Draft{UserID: e.guest, Content: "x"})
			})) // a draft
			is.NoErr(e.svc.UpdateSettings(ctx, e.admin, chatcore.SettingsUpdate{
				TargetUsers:                 &chatcore.TargetUsers{UserIDs: []chatcore.UserID{e.guest}, SkipIfAlreadyEdited: new(false)},
				EnableDraftsSynchronization: new(false),
			})) // synchronization off for the guest
			var n int
			is.NoErr(e.store.View(ctx, func(tx chatcore.Tx) error {
				d, err := tx.Drafts(ctx, e.guest)
				n = len(d)
				return err
			})) // readable
			is.Equal(n, 0) // deleted
		})
	})
}

func TestUpdateSettingsBulkErrors(t *testing.T) {
	settingsEachStore(t, func(t *testing.T, newSettingsEnv settingsEnvMaker) {
		tests := []struct {
			name  string
			actor func(*settingsEnv) chatcore.UserID
			req   func(*settingsEnv, chatcore.GroupID) chatcore.SettingsUpdate
			code  chatcore.Code
			msg   string
		}{
			{"not an administrator", func(e *settingsEnv) chatcore.UserID { return e.moderator },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: bulkTargets(e.member), ColorScheme: new(2)}
				}, chatcore.CodeUnauthorizedPrincipal, "Must be an organization administrator"},
			{"no ids", func(e *settingsEnv) chatcore.UserID { return e.admin },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: &chatcore.TargetUsers{SkipIfAlreadyEdited: new(true)}, ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "Either user_ids or group_ids must be provided."},
			{"unknown user", func(e *settingsEnv) chatcore.UserID { return e.admin },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: bulkTargets(e.member, 9999), ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "Invalid user ID: 9999"},
			{"user of another realm", func(e *settingsEnv) chatcore.UserID { return e.admin },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: bulkTargets(e.otherRealmUser, e.member), ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "Invalid user ID: %d"},
			{"unknown group", func(e *settingsEnv) chatcore.UserID { return e.admin },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: &chatcore.TargetUsers{UserIDs: []chatcore.UserID{9999},
						GroupIDs: []chatcore.GroupID{g, 77}, SkipIfAlreadyEdited: new(true)}, ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "Invalid user group ID: 77"},
			{"language checked in bulk mode too", func(e *settingsEnv) chatcore.UserID { return e.admin },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: bulkTargets(e.member), ColorScheme: new(2), DefaultLanguage: new("xx")}
				}, chatcore.CodeBadRequest, "Invalid default_language"},
			{"batching period checked in bulk mode too", func(e *settingsEnv) chatcore.UserID { return e.admin },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: bulkTargets(e.member), EmailNotificationsBatchingPeriodSeconds: new(0)}
				}, chatcore.CodeBadRequest, "Invalid email batching period: 0 seconds"},
			{"value sets before permissions", func(e *settingsEnv) chatcore.UserID { return e.member },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: bulkTargets(e.member), ColorScheme: new(7)}
				}, chatcore.CodeBadRequest, "Invalid color_scheme: Value error, Not in the list of possible values"},
			{"bot", func(e *settingsEnv) chatcore.UserID { return e.bot },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					return chatcore.SettingsUpdate{TargetUsers: bulkTargets(e.member), ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "This endpoint does not accept bot requests."},
		}
		forbidden := map[string]func(*chatcore.SettingsUpdate){
			"email":                             func(u *chatcore.SettingsUpdate) { u.Email = new("x@example.net") },
			"new_password":                      func(u *chatcore.SettingsUpdate) { u.NewPassword = new("correct horse battery staple") },
			"timezone":                          func(u *chatcore.SettingsUpdate) { u.Timezone = new("Europe/Berlin") },
			"allow_private_data_export":         func(u *chatcore.SettingsUpdate) { u.AllowPrivateDataExport = new(true) },
			"email_address_visibility":          func(u *chatcore.SettingsUpdate) { u.EmailAddressVisibility = new(2) },
			"enable_digest_emails":              func(u *chatcore.SettingsUpdate) { u.EnableDigestEmails = new(false) },
			"enable_login_emails":               func(u *chatcore.SettingsUpdate) { u.EnableLoginEmails = new(false) },
			"enable_marketing_emails":           func(u *chatcore.SettingsUpdate) { u.EnableMarketingEmails = new(false) },
			"presence_enabled":                  func(u *chatcore.SettingsUpdate) { u.PresenceEnabled = new(false) },
			"send_private_typing_notifications": func(u *chatcore.SettingsUpdate) { u.SendPrivateTypingNotifications = new(false) },
			"send_read_receipts":                func(u *chatcore.SettingsUpdate) { u.SendReadReceipts = new(false) },
			"send_stream_typing_notifications":  func(u *chatcore.SettingsUpdate) { u.SendStreamTypingNotifications = new(false) },
		}
		for name, set := range forbidden {
			tests = append(tests, struct {
				name  string
				actor func(*settingsEnv) chatcore.UserID
				req   func(*settingsEnv, chatcore.GroupID) chatcore.SettingsUpdate
				code  chatcore.Code
				msg   string
			}{"forbidden " + name, func(e *settingsEnv) chatcore.UserID { return e.admin },
				func(e *settingsEnv, g chatcore.GroupID) chatcore.SettingsUpdate {
					u := chatcore.SettingsUpdate{TargetUsers: bulkTargets(e.member), ColorScheme: new(2)}
					set(&u)
					return u
				}, chatcore.CodeBadRequest, "Cannot change this setting for other users."})
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				e, outer, _ := bulkSettingsEnv(t, newSettingsEnv)
				before := map[chatcore.UserID]*chatcore.User{}
				for _, id := range []chatcore.UserID{e.member, e.guest, e.moderator, e.admin} {
					before[id] = e.user(t, id)
				}
				msg := tt.msg
				if strings.Contains(msg, "%d") {
					msg = fmt.Sprintf(msg, e.otherRealmUser)
				}
				err := e.svc.UpdateSettings(context.Background(), tt.actor(e), tt.req(e, outer))
				wantError(t, err, tt.code, chatcore.KindInvalid, msg)
				for id, u := range before {
					is.Equal(e.user(t, id), u) // nothing changed
				}
				is.Equal(len(e.events.all()), 0) // nothing published
			})
		}
	})
}

func bulkTargets(ids ...chatcore.UserID) *chatcore.TargetUsers {
	return &chatcore.TargetUsers{UserIDs: ids, SkipIfAlreadyEdited: new(false)}
}

func TestDefaultSettingsMatchZulip(t *testing.T) {
	is := is.New(t)
	d := chatcore.DefaultSettings()
	is.Equal(d.ColorScheme, 1)                                       // automatic
	is.Equal(d.Emojiset, "google")                                   // Zulip's default emoji set
	is.Equal(d.WebHomeView, "inbox")                                 // inbox
	is.Equal(d.DefaultLanguage, "en")                                // English
	is.Equal(d.NotificationSound, "zulip")                           // Zulip's sound
	is.Equal(d.EmailNotificationsBatchingPeriodSeconds, 120)         // two minutes
	is.Equal(d.WebFontSizePx, 16)                                    // WEB_FONT_SIZE_PX_DEFAULT
	is.Equal(d.WebLineHeightPercent, 140)                            // WEB_LINE_HEIGHT_PERCENT_DEFAULT
	is.Equal(d.WebAnimateImagePreviews, "on_hover")                  // on hover
	is.Equal(d.EnterSends, false)                                    // off
	is.Equal(d.TwentyFourHourTime, false)                            // off
	is.Equal(d.UserListStyle, 3)                                     // with avatar and status
	is.Equal(d.WebChannelDefaultView, 1)                             // top topic
	is.Equal(d.AutomaticallyUnmuteTopicsInMutedStreamsPolicy, 2)     // on send
	is.Equal(d.AutomaticallyFollowTopicsPolicy, 3)                   // on initiation
	is.Equal(d.WebLeftSidebarUnreadsCountSummary, true)              // shown
	is.Equal(d.ResolvedTopicNoticeAutoReadPolicy, "except_followed") // except followed topics
	u := chatcore.SettingsUpdate{}
	is.NoErr(u.Validate()) // an empty update is valid
	var all []string
	for _, name := range chatcore.SettingNames() {
		if name == "timezone" {
			continue // "" is the default but not a settable value
		}
		v, _ := d.Value(name)
		switch v := v.(type) {
		case bool:
			all = append(all, name, fmt.Sprint(v))
		case int:
			all = append(all, name, fmt.Sprint(v))
		case string:
			all = append(all, name, v)
		}
	}
	def := decodeUpdate(t, all...)
	is.NoErr(def.Validate()) // every default is a valid value
}

func BenchmarkUpdateSettingsOwn(b *testing.B) {
	e := newSettingsEnv(b)
	ctx := context.Background()
	reqs := []chatcore.SettingsUpdate{
		{ColorScheme: new(2), Timezone: new("Europe/Berlin"), EnterSends: new(true)},
		{ColorScheme: new(3), Timezone: new("America/Montreal"), EnterSends: new(false)},
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := e.svc.UpdateSettings(ctx, e.member, reqs[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkUpdateSettingsBulk10k(b *testing.B) {
	b.Run("memory", func(b *testing.B) { benchmarkBulk10k(b, newSettingsEnv) })
	b.Run("sqlite", func(b *testing.B) {
		benchmarkBulk10k(b, func(tb testing.TB, opts ...chatcore.Option) *settingsEnv {
			return newSettingsEnvOn(tb, openSQLite(tb), opts...)
		})
	})
}

// benchmarkBulk10k measures one bulk edit of a setting for 10,000 users.
func benchmarkBulk10k(b *testing.B, mk settingsEnvMaker) {
	is := is.New(b)
	e := mk(b)
	ctx := context.Background()
	var group chatcore.GroupID
	is.NoErr(e.store.Update(ctx, func(tx chatcore.Tx) error {
		g := &chatcore.Group{RealmID: e.realm, Name: "everyone"}
		for i := range 10000 {
			u := &chatcore.User{RealmID: e.realm, Email: fmt.Sprintf("u%d@example.net", i), FullName: fmt.Sprintf("U %d", i),
				Role: chatcore.RoleMember, IsActive: true, Settings: chatcore.DefaultSettings()}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			g.Members = append(g.Members, u.ID)
		}
		if err := tx.CreateGroup(ctx, g); err != nil {
			return err
		}
		group = g.ID
		return nil
	})) // 10,000 users in one group
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		err := e.svc.UpdateSettings(ctx, e.admin, chatcore.SettingsUpdate{
			TargetUsers: &chatcore.TargetUsers{GroupIDs: []chatcore.GroupID{group}, SkipIfAlreadyEdited: new(true)},
			ColorScheme: new(2 + i%2),
		})
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// TestBulkSettingsGroupIDs checks that bulk settings validate group ids one
// by one, without loading every group of the realm.
func TestBulkSettingsGroupIDs(t *testing.T) {
	veronaEachStore(t, func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv) {
		is := is.New(t)
		e := open(t)
		ctx := context.Background()
		cast := &chatcore.Group{RealmID: e.realm.ID, Name: "cast", Members: []chatcore.UserID{e.ham.ID, e.ophelia.ID}}
		e.write(t, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateGroup(ctx, cast) })
		e.store.groupsForbidden.Store(true)
		bulk := func(groups ...chatcore.GroupID) error {
			return e.svc.UpdateSettings(ctx, e.owner.ID, chatcore.SettingsUpdate{
				TargetUsers: &chatcore.TargetUsers{GroupIDs: groups, SkipIfAlreadyEdited: new(false)},
				EnterSends:  new(true),
			})
		}
		for _, tc := range []struct {
			name string
			id   chatcore.GroupID
		}{
			{"unknown group", cast.ID + 1000},
			{"group of another realm", e.otherGroup.ID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// A typed error, not errVeronaGroups.
				wantError(t, bulk(cast.ID, tc.id), chatcore.CodeBadRequest, chatcore.KindInvalid, fmt.Sprintf("Invalid user group ID: %d", tc.id))
			})
		}
		is.NoErr(e.base.View(ctx, func(tx chatcore.Tx) error {
			for _, id := range []chatcore.UserID{e.ham.ID, e.ophelia.ID} {
				u, err := tx.User(ctx, id)
				is.NoErr(err)                   // user read
				is.True(!u.Settings.EnterSends) // a refused request changed nothing
			}
			return nil
		})) // state read

		is.NoErr(bulk(cast.ID, cast.ID)) // a group of the realm (twice) is valid without loading every group
		is.NoErr(e.base.View(ctx, func(tx chatcore.Tx) error {
			for _, u := range []*chatcore.User{e.ham, e.ophelia, e.owner} {
				got, err := tx.User(ctx, u.ID)
				is.NoErr(err)                                                          // user read
				is.Equal(got.Settings.EnterSends, slices.Contains(cast.Members, u.ID)) // only the group's members changed
			}
			return nil
		})) // state read
	})
}

func TestFontAndLineHeightBounds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		set   func(*chatcore.SettingsUpdate, int)
		value int
		msg   string // "" for success
	}{
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 1, ""},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 400, ""},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 32767, ""},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 0, "web_font_size_px is too small"},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, -3, "web_font_size_px is too small"},
		{"web_font_size_px", func(u *chatcore.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 32768, "web_font_size_px is too large"},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 1, ""},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 5000, ""},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 32767, ""},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 0, "web_line_height_percent is too small"},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, -1, "web_line_height_percent is too small"},
		{"web_line_height_percent", func(u *chatcore.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 1 << 20, "web_line_height_percent is too large"},
	} {
		t.Run(fmt.Sprintf("%s=%d", tt.name, tt.value), func(t *testing.T) {
			is := is.New(t)
			e := newHzEnv(t, nil)
			var req chatcore.SettingsUpdate
			tt.set(&req, tt.value)
			err := e.svc.UpdateSettings(context.Background(), e.ann, req)
			if tt.msg == "" {
				is.NoErr(err) // within the column's range
				v, _ := e.user(t, e.ann).Settings.Value(tt.name)
				is.Equal(v, tt.value) // stored
				return
			}
			wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
}

// draftCountingStore wraps a Store and counts the draft deletions made
// through its write transactions.
type draftCountingStore struct {
	chatcore.Store
	perUser, set atomic.Int64
}

func (s *draftCountingStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(draftCountingTx{tx, s}) })
}

type draftCountingTx struct {
	chatcore.Tx
	s *draftCountingStore
}

func (t draftCountingTx) DeleteDrafts(ctx context.Context, user chatcore.UserID) (int, error) {
	t.s.perUser.Add(1)
	return t.Tx.DeleteDrafts(ctx, user)
}

func (t draftCountingTx) DeleteDraftsOf(ctx context.Context, users []chatcore.UserID) (int, error) {
	t.s.set.Add(1)
	return t.Tx.DeleteDraftsOf(ctx, users)
}

func TestBulkDraftsSyncOffDeletesInOneCall(t *testing.T) {
	is := is.New(t)
	counting := &draftCountingStore{}
	e := newHzEnv(t, func(st chatcore.Store) chatcore.Store { counting.Store = st; return counting })
	ctx := context.Background()
	writeStore(t, e.store, func(tx chatcore.Tx) error {
		for _, u := range []chatcore.UserID{e.ann, e.ann, e.ben, e.cat, e.owner} {
			if err := tx.CreateDraft(ctx, &chatcore.Draft{UserID: u, Content: "draft"}); err != nil {
				return err
			}
		}
		return nil
	})
	off := false
	err := e.svc.UpdateSettings(ctx, e.owner, chatcore.SettingsUpdate{
		EnableDraftsSynchronization: &off,
		TargetUsers:                 &chatcore.TargetUsers{UserIDs: []chatcore.UserID{e.ann, e.ben, e.cat}, SkipIfAlreadyEdited: new(false)},
	})
	is.NoErr(err)                               // bulk edit applied
	is.Equal(counting.set.Load(), int64(1))     // one set-based deletion
	is.Equal(counting.perUser.Load(), int64(0)) // no per-user deletion
	for _, c := range []struct {
		user chatcore.UserID
		want int
	}{{e.ann, 0}, {e.ben, 0}, {e.cat, 0}, {e.owner, 1}} {
		ds := readStore(t, e.store, func(ctx context.Context, tx chatcore.Tx) ([]chatcore.Draft, error) { return tx.Drafts(ctx, c.user) })
		is.Equal(len(ds), c.want) // the targeted users' drafts are gone, the owner's kept
	}

	// Users who already have it off are not changed, so nothing is deleted.
	err = e.svc.UpdateSettings(ctx, e.owner, chatcore.SettingsUpdate{
		EnableDraftsSynchronization: &off,
		TargetUsers:                 &chatcore.TargetUsers{UserIDs: []chatcore.UserID{e.ann}, SkipIfAlreadyEdited: new(false)},
	})
	is.NoErr(err)                           // no-op bulk edit
	is.Equal(counting.set.Load(), int64(1)) // no second deletion
}
