package accounts_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// TestUpdateSettingsOwnStored checks, on every store, that an own settings
// change (the narrow settings write) and a change together with the full
// name (the whole-row write) both leave exactly the requested values stored.
func TestUpdateSettingsOwnStored(t *testing.T) {
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			is := is.New(t)
			w, c := newSettingsCast(t, func(tb testing.TB, opts ...chattest.Option) *chattest.World {
				return chattest.New(tb, append(opts, chattest.OnStore(k.Open(tb)))...)
			})
			ctx := context.Background()
			stored := func() chatcore.User {
				var u *chatcore.User
				is.NoErr(w.Store.View(ctx, func(tx chatcore.Tx) error {
					var err error
					u, err = tx.User(ctx, c.Member.ID)
					return err
				})) // user read
				return *u
			}
			before := stored()
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{
				ColorScheme: new(3), EnterSends: new(!before.Settings.EnterSends), Timezone: new("Europe/Berlin"),
			})) // settings only
			want := before
			want.Settings.ColorScheme, want.Settings.EnterSends, want.Settings.Timezone = 3, !before.Settings.EnterSends, "Europe/Berlin"
			got := stored()
			is.Equal(got.Settings, want.Settings)   // the requested settings are stored
			is.Equal(got.FullName, before.FullName) // the rest of the row is untouched
			is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{
				FullName: new("Renamed Member"), Emojiset: new("text"),
			})) // full name and a setting
			got = stored()
			want.Settings.Emojiset = "text"
			is.Equal(got.Settings, want.Settings)    // the setting is stored with the row
			is.Equal(got.FullName, "Renamed Member") // and so is the name
		})
	}
}

// BenchmarkUpdateSettingsOwnStores is BenchmarkUpdateSettingsOwn on every
// store: three settings (one of them the time zone) changed per call.
func BenchmarkUpdateSettingsOwnStores(b *testing.B) {
	reqs := []accounts.SettingsUpdate{
		{ColorScheme: new(2), Timezone: new("Europe/Berlin"), EnterSends: new(true)},
		{ColorScheme: new(3), Timezone: new("America/Montreal"), EnterSends: new(false)},
	}
	one := []accounts.SettingsUpdate{{EnterSends: new(true)}, {EnterSends: new(false)}}
	for _, k := range chattest.Stores {
		for _, r := range []struct {
			name string
			reqs []accounts.SettingsUpdate
		}{{"three", reqs}, {"one", one}} {
			b.Run(k.Name+"/"+r.name, func(b *testing.B) {
				w, c := newSettingsCast(b, func(tb testing.TB, opts ...chattest.Option) *chattest.World {
					return chattest.New(tb, append(opts, chattest.OnStore(k.Open(tb)))...)
				})
				ctx := context.Background()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, r.reqs[i%2]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// TestUpdateSettingsUnchangedAsAuthenticated checks, on every store, that a
// settings request that asks the authenticated user (Authenticated)
// for the values it holds is answered without a write transaction or event,
// and that everything else still goes through the transaction: a change, a
// user other than the actor authenticated, a bot, and validation errors.
func TestUpdateSettingsUnchangedAsAuthenticated(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		counter := &chattest.CountingStore{}
		w, c := newSettingsCast(t, func(tb testing.TB, opts ...chattest.Option) *chattest.World {
			return open(tb, append(opts, chattest.Wrap(func(s chatcore.Store) chatcore.Store { counter.Store = s; return counter }))...)
		})
		member := w.User(t, c.Member.ID)
		ctx := t.Context()
		same := accounts.SettingsUpdate{EnterSends: new(member.Settings.EnterSends), FullName: new(member.FullName),
			ColorScheme: new(member.Settings.ColorScheme), Authenticated: member}
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, same)) // nothing to change
		is.Equal(counter.Count().Updates, int64(0))                      // answered without a write transaction
		is.Equal(len(w.Events.All()), 0)                                 // and without an event

		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{EnterSends: new(!member.Settings.EnterSends), Authenticated: member})) // a change
		is.Equal(counter.Count().Updates, int64(1))                                                                                                              // written in a transaction
		is.Equal(w.User(t, c.Member.ID).Settings.EnterSends, !member.Settings.EnterSends)                                                                        // stored
		is.Equal(len(w.Events.OfType("user_settings")), 1)                                                                                                       // and published

		err := accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{ColorScheme: new(99), Authenticated: member})
		is.True(err != nil) // an invalid value is refused, unchanged or not

		other := w.User(t, c.Admin.ID)
		before := counter.Count().Updates
		is.NoErr(accounts.UpdateSettings(ctx, w.Svc, c.Member.ID, accounts.SettingsUpdate{EnterSends: new(!member.Settings.EnterSends), Authenticated: other})) // another user authenticated
		is.Equal(counter.Count().Updates, before+1)                                                                                                             // is not taken for the actor

		bot := w.User(t, c.Bot.ID)
		err = accounts.UpdateSettings(ctx, w.Svc, c.Bot.ID,
			accounts.SettingsUpdate{EnterSends: new(bot.Settings.EnterSends), Authenticated: bot})
		is.True(err != nil) // a bot is refused as without the authenticated user
	})
}
