package chatcore_test

import (
	"context"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
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
			is.NoErr(w.Svc.UpdateSettings(ctx, c.Member.ID, chatcore.SettingsUpdate{
				ColorScheme: new(3), EnterSends: new(!before.Settings.EnterSends), Timezone: new("Europe/Berlin"),
			})) // settings only
			want := before
			want.Settings.ColorScheme, want.Settings.EnterSends, want.Settings.Timezone = 3, !before.Settings.EnterSends, "Europe/Berlin"
			got := stored()
			is.Equal(got.Settings, want.Settings)   // the requested settings are stored
			is.Equal(got.FullName, before.FullName) // the rest of the row is untouched
			is.NoErr(w.Svc.UpdateSettings(ctx, c.Member.ID, chatcore.SettingsUpdate{
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
	reqs := []chatcore.SettingsUpdate{
		{ColorScheme: new(2), Timezone: new("Europe/Berlin"), EnterSends: new(true)},
		{ColorScheme: new(3), Timezone: new("America/Montreal"), EnterSends: new(false)},
	}
	one := []chatcore.SettingsUpdate{{EnterSends: new(true)}, {EnterSends: new(false)}}
	for _, k := range chattest.Stores {
		for _, r := range []struct {
			name string
			reqs []chatcore.SettingsUpdate
		}{{"three", reqs}, {"one", one}} {
			b.Run(k.Name+"/"+r.name, func(b *testing.B) {
				w, c := newSettingsCast(b, func(tb testing.TB, opts ...chattest.Option) *chattest.World {
					return chattest.New(tb, append(opts, chattest.OnStore(k.Open(tb)))...)
				})
				ctx := context.Background()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if err := w.Svc.UpdateSettings(ctx, c.Member.ID, r.reqs[i%2]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
