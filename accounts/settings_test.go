package accounts_test

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
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// settingsNow is when the settings tests run.
var settingsNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newSettingsCast builds a World with open (chattest.New: over a memory store) at
// settingsNow, whose links start with https://chat.example.com/, and stores
// the chattest.Cast in it; opts go to the Service.
func newSettingsCast(tb testing.TB, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *chattest.Cast) {
	tb.Helper()
	w := open(tb, chattest.At(settingsNow), chattest.ExternalURL("https://chat.example.com/"), chattest.With(opts...))
	return w, w.SeedCast(tb)
}

func TestUpdateSettingsOwnChangesOnlyDifferentValues(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newSettingsCast(t, open)
		ctx := context.Background()
		err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{
			ColorScheme: new(2),
			EnterSends:  new(false), // the default: unchanged
			Emojiset:    new("text"),
		})
		is.NoErr(err) // valid update
		u := w.User(t, c.Member.ID)
		is.Equal(u.Settings.ColorScheme, 2)                                              // stored
		is.Equal(u.Settings.Emojiset, "text")                                            // stored
		is.Equal(w.EditedSettings(t, c.Member.ID), []string{"color_scheme", "emojiset"}) // only changed settings count as edited
		evs := w.Events.OfType("user_settings")
		is.Equal(len(evs), 2) // one event per changed setting
		is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Member.ID})
		is.Equal(evs[0].Data, map[string]any{"type": "user_settings", "op": "update", "property": "color_scheme", "value": 2})
		is.Equal(evs[1].Data["property"], "emojiset") // in declaration order
		is.Equal(evs[1].Data["value"], "text")        // the new value

		w.Events.Reset()
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{ColorScheme: new(2)})) // same value again
		is.Equal(len(w.Events.All()), 0)                                                                         // nothing changed, nothing published
	})
}

func TestUpdateSettingsEveryRoleMayEditOwnSettings(t *testing.T) {
	w, c := newSettingsCast(t, chattest.New)
	for _, id := range []chatcore.UserID{c.Owner.ID, c.Admin.ID, c.Moderator.ID, c.Member.ID, c.Guest.ID} {
		is := is.New(t)
		is.NoErr(accounts.UpdateSettings(context.Background(), w.Svc, id, accounts.SettingsUpdate{TwentyFourHourTime: new(true)})) // allowed
		is.Equal(w.User(t, id).Settings.TwentyFourHourTime, true)                                                                  // applied
	}
}

func TestUpdateSettingsDefaultLanguageEvent(t *testing.T) {
	is := is.New(t)
	w, c := newSettingsCast(t, chattest.New)
	is.NoErr(accounts.UpdateSettings(context.Background(), w.Svc, c.Member.ID, accounts.SettingsUpdate{DefaultLanguage: new("de")})) // German exists
	evs := w.Events.OfType("user_settings", "property", "default_language")
	is.Equal(len(evs), 1)                             // one event
	is.Equal(evs[0].Data["value"], "de")              // the code
	is.Equal(evs[0].Data["language_name"], "Deutsch") // plus the language name
}

func TestUpdateSettingsRefusals(t *testing.T) {
	w, c := newSettingsCast(t, chattest.New)
	ctx := context.Background()
	t.Run("bot", func(t *testing.T) {
		err := accounts.UpdateSettings(ctx, w.Svc, c.Bot.ID, accounts.SettingsUpdate{ColorScheme: new(9)})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "This endpoint does not accept bot requests.")
	})
	t.Run("deactivated actor", func(t *testing.T) {
		err := accounts.UpdateSettings(ctx, w.Svc, c.Deactivated.ID, accounts.SettingsUpdate{ColorScheme: new(2)})
		got := chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated")
		is := is.New(t)
		is.Equal(got.Kind, chatcore.KindUnauthenticated) // 401
	})
	t.Run("unknown actor", func(t *testing.T) {
		err := accounts.UpdateSettings(ctx, w.Svc, 9999, accounts.SettingsUpdate{ColorScheme: new(2)})
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Invalid API key")
	})
	t.Run("invalid value", func(t *testing.T) {
		err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{ColorScheme: new(9)})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid color_scheme: Value error, Not in the list of possible values")
	})
}

func TestUpdateSettingsAllOrNothing(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		tests := []struct {
			name string
			req  accounts.SettingsUpdate
			msg  string
		}{
			{"bad full name after settings", accounts.SettingsUpdate{ColorScheme: new(2), Timezone: new("Asia/Tokyo"), FullName: new("  ")},
				"Name must not be empty!"},
			{"good password, bad e-mail", accounts.SettingsUpdate{OldPassword: new("hamlet@zulip.com-Secret#42"),
				NewPassword: new("correct horse battery staple"), Email: new("not an address"), ColorScheme: new(3)},
				"Invalid address."},
			{"good settings, bad sound", accounts.SettingsUpdate{EnterSends: new(true), EnableDraftsSynchronization: new(false),
				NotificationSound: new("klaxon")}, "Invalid notification sound 'klaxon'"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				w, c := newSettingsCast(t, open)
				ctx := context.Background()
				is.NoErr(w.Store.Update(ctx, func(tx chatcore.Tx) error {
					return tx.CreateDraft(ctx, &chatcore.Draft{UserID: c.Member.ID, Content: "keep me"})
				})) // a draft to keep
				before := w.User(t, c.Member.ID)
				err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, tt.req)
				chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
				after := w.User(t, c.Member.ID)
				is.Equal(after, before)                            // nothing changed
				is.Equal(len(w.EditedSettings(t, c.Member.ID)), 0) // no edits recorded
				is.Equal(len(w.Events.All()), 0)                   // no events
				is.Equal(len(w.Mail.All()), 0)                     // no mail
				var drafts []chatcore.Draft
				is.NoErr(w.Store.View(ctx, func(tx chatcore.Tx) error {
					var err error
					drafts, err = tx.Drafts(ctx, c.Member.ID)
					return err
				})) // drafts readable
				is.Equal(len(drafts), 1) // drafts kept
			})
		}
	})
}

func TestUpdateSettingsEventsAfterCommit(t *testing.T) {
	is := is.New(t)
	w, c := newSettingsCast(t, chattest.New)
	ctx := context.Background()
	var seen []int
	w.Events.OnPublish = func([]chatcore.Event) {
		// Publish runs outside the transaction, after it committed: a new
		// transaction sees the change.
		_ = w.Store.View(ctx, func(tx chatcore.Tx) error {
			u, err := tx.User(ctx, c.Member.ID)
			if err == nil {
				seen = append(seen, u.Settings.ColorScheme)
			}
			return err
		})
	}
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{ColorScheme: new(3)})) // valid
	is.Equal(seen, []int{3})                                                                                 // published once, after the commit
}

// confirmLinkRE extracts the confirmation key from a confirmation e-mail.
var confirmLinkRE = regexp.MustCompile(`https://chat\.example\.com/accounts/confirm_new_email/([a-z0-9]{24})\b`)

func TestUpdateSettingsTimezone(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newSettingsCast(t, open)
		ctx := context.Background()
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{Timezone: new("America/Montreal")})) // a backward link
		u := w.User(t, c.Member.ID)
		is.Equal(u.Settings.Timezone, "America/Toronto")                 // stored canonically
		is.Equal(w.EditedSettings(t, c.Member.ID), []string{"timezone"}) // counts as the user's own edit
		own := w.Events.OfType("user_settings", "property", "timezone")
		is.Equal(len(own), 1)                             // the user's clients learn the value
		is.Equal(own[0].Data["value"], "America/Toronto") // canonical
		others := w.Events.OfType("realm_user")
		is.Equal(len(others), 1) // and everyone sees the profile change
		is.Equal(others[0].Data["person"], map[string]any{"user_id": c.Member.ID, "email": "hamlet@zulip.com", "timezone": "America/Toronto"})

		w.Events.Reset()
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{Timezone: new("America/Toronto")})) // the same zone
		is.Equal(len(w.Events.All()), 0)                                                                                      // no change, no event

		err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{Timezone: new("")})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid timezone: Value error, Not a recognized time zone")
	})
}

func TestUpdateSettingsDraftsSynchronization(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, c := newSettingsCast(t, open)
		ctx := context.Background()
		drafts := func(id chatcore.UserID) int {
			var n int
			is.NoErr(w.Store.View(ctx, func(tx chatcore.Tx) error {
				d, err := tx.Drafts(ctx, id)
				n = len(d)
				return err
			})) // drafts readable
			return n
		}
		is.NoErr(w.Store.Update(ctx, func(tx chatcore.Tx) error {
			for _, id := range []chatcore.UserID{c.Member.ID, c.Member.ID, c.Admin.ID} {
				if err := tx.CreateDraft(ctx, &chatcore.Draft{UserID: id, Content: "draft"}); err != nil {
					return err
				}
			}
			return nil
		})) // drafts exist
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{EnableDraftsSynchronization: new(true)})) // unchanged
		is.Equal(drafts(c.Member.ID), 2)                                                                                            // kept
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{EnableDraftsSynchronization: new(false)}))
		is.Equal(drafts(c.Member.ID), 0) // turning synchronization off deletes the user's drafts
		is.Equal(drafts(c.Admin.ID), 1)  // and nobody else's
	})
}

func TestUpdateSettingsConfiguredSets(t *testing.T) {
	is := is.New(t)
	w, c := newSettingsCast(t, chattest.New, chatcore.WithLanguages([]string{"en", "tlh"}), chatcore.WithNotificationSounds([]string{"beep"}))
	ctx := context.Background()
	chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{DefaultLanguage: new("de")}), chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid default_language")
	chattest.WantError(t, accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{NotificationSound: new("zulip")}), chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid notification sound 'zulip'")
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{DefaultLanguage: new("tlh"), NotificationSound: new("beep")})) // configured values
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{NotificationSound: new("none")}))                              // "none" always works
	evs := w.Events.OfType("user_settings", "property", "default_language")
	is.Equal(evs[0].Data["language_name"], "tlh") // unknown languages are named by their code
}

// bulkSettings is newSettingsCast plus two groups, outer (member) ⊃ inner (guest,
// moderator, bot), with the member's color_scheme an own edit.
func bulkSettings(tb testing.TB, open chattest.Open) (w *chattest.World, c *chattest.Cast, outer, inner chatcore.GroupID) {
	tb.Helper()
	is := is.New(tb)
	w, c = newSettingsCast(tb, open)
	ctx := context.Background()
	is.NoErr(w.Store.Update(ctx, func(tx chatcore.Tx) error {
		in := &chatcore.Group{RealmID: c.Realm.ID, Name: "inner", Members: []chatcore.UserID{c.Guest.ID, c.Moderator.ID, c.Bot.ID}}
		if err := tx.CreateGroup(ctx, in); err != nil {
			return err
		}
		out := &chatcore.Group{RealmID: c.Realm.ID, Name: "outer", Members: []chatcore.UserID{c.Member.ID}, Subgroups: []chatcore.GroupID{in.ID}}
		if err := tx.CreateGroup(ctx, out); err != nil {
			return err
		}
		inner, outer = in.ID, out.ID
		return nil
	})) // groups created
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{ColorScheme: new(3)})) // the member's own choice
	w.Events.Reset()
	return w, c, outer, inner
}

func TestUpdateSettingsBulk(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		ctx := context.Background()
		t.Run("users and nested groups", func(t *testing.T) {
			is := is.New(t)
			w, c, outer, _ := bulkSettings(t, open)
			err := accounts.UpdateSettings(ctx, w.Svc, c.Admin.ID, accounts.SettingsUpdate{
				TargetUsers: &accounts.TargetUsers{UserIDs: []chatcore.UserID{c.Owner.ID, c.Bot.ID, c.Deactivated.ID}, GroupIDs: []chatcore.GroupID{outer},
					SkipIfAlreadyEdited: new(false)},
				ColorScheme:     new(2),
				WebFontSizePx:   new(20),
				FullName:        new("ignored in bulk mode"),
				OldPassword:     new("ignored too"),
				DefaultLanguage: new("de"),
			})
			is.NoErr(err) // administrators may edit in bulk
			for _, id := range []chatcore.UserID{c.Owner.ID, c.Deactivated.ID, c.Member.ID, c.Guest.ID, c.Moderator.ID} {
				u := w.User(t, id)
				is.Equal(u.Settings.ColorScheme, 2)        // explicit users, nested group members, deactivated users included
				is.Equal(u.Settings.WebFontSizePx, 20)     // every requested setting
				is.Equal(u.Settings.DefaultLanguage, "de") // every requested setting
			}
			is.Equal(w.User(t, c.Bot.ID).Settings.ColorScheme, 1)   // bots are never edited
			is.Equal(w.User(t, c.Admin.ID).Settings.ColorScheme, 1) // the admin was not targeted
			is.Equal(w.User(t, c.Admin.ID).FullName, "Iago")        // full_name is ignored in bulk mode
			is.Equal(len(w.EditedSettings(t, c.Owner.ID)), 0)       // bulk edits are not the users' own edits
			evs := w.Events.OfType("user_settings", "property", "color_scheme")
			is.Equal(len(evs), 1)                                                                                              // one event per setting
			is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Owner.ID, c.Moderator.ID, c.Member.ID, c.Guest.ID, c.Deactivated.ID}) // for every changed user
			lang := w.Events.OfType("user_settings", "property", "default_language")
			is.Equal(lang[0].Data["language_name"], "Deutsch") // with the language name
		})
		t.Run("skip users who edited the setting themselves", func(t *testing.T) {
			is := is.New(t)
			w, c, outer, _ := bulkSettings(t, open)
			err := accounts.UpdateSettings(ctx, w.Svc, c.Owner.ID, accounts.SettingsUpdate{
				TargetUsers: &accounts.TargetUsers{GroupIDs: []chatcore.GroupID{outer}, SkipIfAlreadyEdited: new(true)},
				ColorScheme: new(2),
				EnterSends:  new(true),
			})
			is.NoErr(err)                                              // owners count as administrators
			is.Equal(w.User(t, c.Member.ID).Settings.ColorScheme, 3)   // kept the member's own choice
			is.Equal(w.User(t, c.Member.ID).Settings.EnterSends, true) // but other settings apply
			is.Equal(w.User(t, c.Guest.ID).Settings.ColorScheme, 2)    // others changed
			evs := w.Events.OfType("user_settings", "property", "color_scheme")
			is.Equal(evs[0].UserIDs, []chatcore.UserID{c.Moderator.ID, c.Guest.ID}) // only changed users hear about it
		})
		t.Run("override own edits", func(t *testing.T) {
			is := is.New(t)
			w, c, outer, _ := bulkSettings(t, open)
			err := accounts.UpdateSettings(ctx, w.Svc, c.Admin.ID, accounts.SettingsUpdate{
				TargetUsers: &accounts.TargetUsers{GroupIDs: []chatcore.GroupID{outer}, SkipIfAlreadyEdited: new(false)},
				ColorScheme: new(2),
			})
			is.NoErr(err)                                            // allowed
			is.Equal(w.User(t, c.Member.ID).Settings.ColorScheme, 2) // overridden
		})
		t.Run("drafts of changed users", func(t *testing.T) {
			is := is.New(t)
			w, c, _, _ := bulkSettings(t, open)
			is.NoErr(w.Store.Update(ctx, func(tx chatcore.Tx) error {
				return tx.CreateDraft(ctx, &chatcore.Draft{UserID: c.Guest.ID, Content: "x"})
			})) // a draft
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Admin.ID, accounts.SettingsUpdate{
				TargetUsers:                 &accounts.TargetUsers{UserIDs: []chatcore.UserID{c.Guest.ID}, SkipIfAlreadyEdited: new(false)},
				EnableDraftsSynchronization: new(false),
			})) // synchronization off for the guest
			var n int
			is.NoErr(w.Store.View(ctx, func(tx chatcore.Tx) error {
				d, err := tx.Drafts(ctx, c.Guest.ID)
				n = len(d)
				return err
			})) // readable
			is.Equal(n, 0) // deleted
		})
	})
}

func TestUpdateSettingsBulkErrors(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		tests := []struct {
			name  string
			actor func(*chattest.Cast) chatcore.UserID
			req   func(*chattest.Cast, chatcore.GroupID) accounts.SettingsUpdate
			code  chatcore.Code
			msg   string
		}{
			{"not an administrator", func(c *chattest.Cast) chatcore.UserID { return c.Moderator.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: bulkTargets(c.Member.ID), ColorScheme: new(2)}
				}, chatcore.CodeUnauthorizedPrincipal, "Must be an organization administrator"},
			{"no ids", func(c *chattest.Cast) chatcore.UserID { return c.Admin.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: &accounts.TargetUsers{SkipIfAlreadyEdited: new(true)}, ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "Either user_ids or group_ids must be provided."},
			{"unknown user", func(c *chattest.Cast) chatcore.UserID { return c.Admin.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: bulkTargets(c.Member.ID, 9999), ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "Invalid user ID: 9999"},
			{"user of another realm", func(c *chattest.Cast) chatcore.UserID { return c.Admin.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: bulkTargets(c.Stranger.ID, c.Member.ID), ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "Invalid user ID: %d"},
			{"unknown group", func(c *chattest.Cast) chatcore.UserID { return c.Admin.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: &accounts.TargetUsers{UserIDs: []chatcore.UserID{9999},
						GroupIDs: []chatcore.GroupID{g, 77}, SkipIfAlreadyEdited: new(true)}, ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "Invalid user group ID: 77"},
			{"language checked in bulk mode too", func(c *chattest.Cast) chatcore.UserID { return c.Admin.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: bulkTargets(c.Member.ID), ColorScheme: new(2), DefaultLanguage: new("xx")}
				}, chatcore.CodeBadRequest, "Invalid default_language"},
			{"batching period checked in bulk mode too", func(c *chattest.Cast) chatcore.UserID { return c.Admin.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: bulkTargets(c.Member.ID), EmailNotificationsBatchingPeriodSeconds: new(0)}
				}, chatcore.CodeBadRequest, "Invalid email batching period: 0 seconds"},
			{"value sets before permissions", func(c *chattest.Cast) chatcore.UserID { return c.Member.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: bulkTargets(c.Member.ID), ColorScheme: new(7)}
				}, chatcore.CodeBadRequest, "Invalid color_scheme: Value error, Not in the list of possible values"},
			{"bot", func(c *chattest.Cast) chatcore.UserID { return c.Bot.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					return accounts.SettingsUpdate{TargetUsers: bulkTargets(c.Member.ID), ColorScheme: new(2)}
				}, chatcore.CodeBadRequest, "This endpoint does not accept bot requests."},
		}
		forbidden := map[string]func(*accounts.SettingsUpdate){
			"email":                             func(u *accounts.SettingsUpdate) { u.Email = new("x@example.net") },
			"new_password":                      func(u *accounts.SettingsUpdate) { u.NewPassword = new("correct horse battery staple") },
			"timezone":                          func(u *accounts.SettingsUpdate) { u.Timezone = new("Europe/Berlin") },
			"allow_private_data_export":         func(u *accounts.SettingsUpdate) { u.AllowPrivateDataExport = new(true) },
			"email_address_visibility":          func(u *accounts.SettingsUpdate) { u.EmailAddressVisibility = new(2) },
			"enable_digest_emails":              func(u *accounts.SettingsUpdate) { u.EnableDigestEmails = new(false) },
			"enable_login_emails":               func(u *accounts.SettingsUpdate) { u.EnableLoginEmails = new(false) },
			"enable_marketing_emails":           func(u *accounts.SettingsUpdate) { u.EnableMarketingEmails = new(false) },
			"presence_enabled":                  func(u *accounts.SettingsUpdate) { u.PresenceEnabled = new(false) },
			"send_private_typing_notifications": func(u *accounts.SettingsUpdate) { u.SendPrivateTypingNotifications = new(false) },
			"send_read_receipts":                func(u *accounts.SettingsUpdate) { u.SendReadReceipts = new(false) },
			"send_stream_typing_notifications":  func(u *accounts.SettingsUpdate) { u.SendStreamTypingNotifications = new(false) },
		}
		for name, set := range forbidden {
			tests = append(tests, struct {
				name  string
				actor func(*chattest.Cast) chatcore.UserID
				req   func(*chattest.Cast, chatcore.GroupID) accounts.SettingsUpdate
				code  chatcore.Code
				msg   string
			}{"forbidden " + name, func(c *chattest.Cast) chatcore.UserID { return c.Admin.ID },
				func(c *chattest.Cast, g chatcore.GroupID) accounts.SettingsUpdate {
					u := accounts.SettingsUpdate{TargetUsers: bulkTargets(c.Member.ID), ColorScheme: new(2)}
					set(&u)
					return u
				}, chatcore.CodeBadRequest, "Cannot change this setting for other users."})
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				is := is.New(t)
				w, c, outer, _ := bulkSettings(t, open)
				before := map[chatcore.UserID]*chatcore.User{}
				for _, id := range []chatcore.UserID{c.Member.ID, c.Guest.ID, c.Moderator.ID, c.Admin.ID} {
					before[id] = w.User(t, id)
				}
				msg := tt.msg
				if strings.Contains(msg, "%d") {
					msg = fmt.Sprintf(msg, c.Stranger.ID)
				}
				err := accounts.UpdateSettings(context.Background(), w.Svc, tt.actor(c), tt.req(c, outer))
				chattest.WantError(t, err, tt.code, chatcore.KindInvalid, msg)
				for id, u := range before {
					is.Equal(w.User(t, id), u) // nothing changed
				}
				is.Equal(len(w.Events.All()), 0) // nothing published
			})
		}
	})
}

func bulkTargets(ids ...chatcore.UserID) *accounts.TargetUsers {
	return &accounts.TargetUsers{UserIDs: ids, SkipIfAlreadyEdited: new(false)}
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
	u := accounts.SettingsUpdate{}
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
	w, c := newSettingsCast(b, chattest.New)
	ctx := context.Background()
	reqs := []accounts.SettingsUpdate{
		{ColorScheme: new(2), Timezone: new("Europe/Berlin"), EnterSends: new(true)},
		{ColorScheme: new(3), Timezone: new("America/Montreal"), EnterSends: new(false)},
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, reqs[i%2]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkUpdateSettingsBulk10k(b *testing.B) {
	for _, k := range chattest.Stores {
		b.Run(k.Name, func(b *testing.B) {
			benchmarkBulk10k(b, func(tb testing.TB, opts ...chattest.Option) *chattest.World {
				return chattest.New(tb, append(opts, chattest.OnStore(k.Open(tb)))...)
			})
		})
	}
}

// benchmarkBulk10k measures one bulk edit of a setting for 10,000 users.
func benchmarkBulk10k(b *testing.B, open chattest.Open) {
	is := is.New(b)
	w, c := newSettingsCast(b, open)
	ctx := context.Background()
	var group chatcore.GroupID
	is.NoErr(w.Store.Update(ctx, func(tx chatcore.Tx) error {
		g := &chatcore.Group{RealmID: c.Realm.ID, Name: "everyone"}
		for i := range 10000 {
			u := &chatcore.User{RealmID: c.Realm.ID, Email: fmt.Sprintf("u%d@example.net", i), FullName: fmt.Sprintf("U %d", i),
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
		err := accounts.UpdateSettings(ctx, w.Svc, c.Admin.ID, accounts.SettingsUpdate{
			TargetUsers: &accounts.TargetUsers{GroupIDs: []chatcore.GroupID{group}, SkipIfAlreadyEdited: new(true)},
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
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w, org, gs := newVerona(t, open)
		ctx := context.Background()
		cast := &chatcore.Group{RealmID: org.Realm.ID, Name: "cast", Members: []chatcore.UserID{org.Ham.ID, org.Ophelia.ID}}
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error { return tx.CreateGroup(ctx, cast) })
		gs.GroupsForbidden.Store(true)
		bulk := func(groups ...chatcore.GroupID) error {
			return accounts.UpdateSettings(ctx, w.Svc, org.Owner.ID, accounts.SettingsUpdate{
				TargetUsers: &accounts.TargetUsers{GroupIDs: groups, SkipIfAlreadyEdited: new(false)},
				EnterSends:  new(true),
			})
		}
		for _, tc := range []struct {
			name string
			id   chatcore.GroupID
		}{
			{"unknown group", cast.ID + 1000},
			{"group of another realm", org.OtherGroup.ID},
		} {
			t.Run(tc.name, func(t *testing.T) {
				// A typed error, not chattest.ErrGroupsForbidden.
				chattest.WantError(t, bulk(cast.ID, tc.id), chatcore.CodeBadRequest, chatcore.KindInvalid, fmt.Sprintf("Invalid user group ID: %d", tc.id))
			})
		}
		is.NoErr(w.Base.View(ctx, func(tx chatcore.Tx) error {
			for _, id := range []chatcore.UserID{org.Ham.ID, org.Ophelia.ID} {
				u, err := tx.User(ctx, id)
				is.NoErr(err)                   // user read
				is.True(!u.Settings.EnterSends) // a refused request changed nothing
			}
			return nil
		})) // state read

		is.NoErr(bulk(cast.ID, cast.ID)) // a group of the realm (twice) is valid without loading every group
		is.NoErr(w.Base.View(ctx, func(tx chatcore.Tx) error {
			for _, u := range []*chatcore.User{org.Ham, org.Ophelia, org.Owner} {
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
		set   func(*accounts.SettingsUpdate, int)
		value int
		msg   string // "" for success
	}{
		{"web_font_size_px", func(u *accounts.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 1, ""},
		{"web_font_size_px", func(u *accounts.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 400, ""},
		{"web_font_size_px", func(u *accounts.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 32767, ""},
		{"web_font_size_px", func(u *accounts.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 0, "web_font_size_px is too small"},
		{"web_font_size_px", func(u *accounts.SettingsUpdate, v int) { u.WebFontSizePx = &v }, -3, "web_font_size_px is too small"},
		{"web_font_size_px", func(u *accounts.SettingsUpdate, v int) { u.WebFontSizePx = &v }, 32768, "web_font_size_px is too large"},
		{"web_line_height_percent", func(u *accounts.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 1, ""},
		{"web_line_height_percent", func(u *accounts.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 5000, ""},
		{"web_line_height_percent", func(u *accounts.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 32767, ""},
		{"web_line_height_percent", func(u *accounts.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 0, "web_line_height_percent is too small"},
		{"web_line_height_percent", func(u *accounts.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, -1, "web_line_height_percent is too small"},
		{"web_line_height_percent", func(u *accounts.SettingsUpdate, v int) { u.WebLineHeightPercent = &v }, 1 << 20, "web_line_height_percent is too large"},
	} {
		t.Run(fmt.Sprintf("%s=%d", tt.name, tt.value), func(t *testing.T) {
			is := is.New(t)
			w, org := newAcme(t)
			var req accounts.SettingsUpdate
			tt.set(&req, tt.value)
			err := accounts.UpdateSettings(context.Background(), w.Svc, org.ann, req)
			if tt.msg == "" {
				is.NoErr(err) // within the column's range
				v, _ := w.User(t, org.ann).Settings.Value(tt.name)
				is.Equal(v, tt.value) // stored
				return
			}
			chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
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
	w, org := newAcmeWith(t, chattest.Wrap(func(st chatcore.Store) chatcore.Store { counting.Store = st; return counting }))
	ctx := context.Background()
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		for _, u := range []chatcore.UserID{org.ann, org.ann, org.ben, org.cat, org.owner} {
			if err := tx.CreateDraft(ctx, &chatcore.Draft{UserID: u, Content: "draft"}); err != nil {
				return err
			}
		}
		return nil
	})
	off := false
	err := accounts.UpdateSettings(ctx, w.Svc, org.owner, accounts.SettingsUpdate{
		EnableDraftsSynchronization: &off,
		TargetUsers:                 &accounts.TargetUsers{UserIDs: []chatcore.UserID{org.ann, org.ben, org.cat}, SkipIfAlreadyEdited: new(false)},
	})
	is.NoErr(err)                               // bulk edit applied
	is.Equal(counting.set.Load(), int64(1))     // one set-based deletion
	is.Equal(counting.perUser.Load(), int64(0)) // no per-user deletion
	for _, c := range []struct {
		user chatcore.UserID
		want int
	}{{org.ann, 0}, {org.ben, 0}, {org.cat, 0}, {org.owner, 1}} {
		ds := chattest.Read(t, w.Base, func(ctx context.Context, tx chatcore.Tx) ([]chatcore.Draft, error) { return tx.Drafts(ctx, c.user) })
		is.Equal(len(ds), c.want) // the targeted users' drafts are gone, the owner's kept
	}

	// Users who already have it off are not changed, so nothing is deleted.
	err = accounts.UpdateSettings(ctx, w.Svc, org.owner, accounts.SettingsUpdate{
		EnableDraftsSynchronization: &off,
		TargetUsers:                 &accounts.TargetUsers{UserIDs: []chatcore.UserID{org.ann}, SkipIfAlreadyEdited: new(false)},
	})
	is.NoErr(err)                           // no-op bulk edit
	is.Equal(counting.set.Load(), int64(1)) // no second deletion
}
