// Package chattest is the shared test world of chatcore's tests: a
// [chatcore.Service] over a chosen store, with a settable [Clock], a [Mailer]
// and an [Events] sink that record what the Service hands them, a fast
// [PlainHasher], builders for realms, users, bots, channels, subscriptions,
// groups and messages that write straight to the store, and readers that look
// at the store behind the Service's back.
//
// It is test support: it imports the root package and the stores, and every
// function that takes a testing.TB calls tb.Helper() and fails the test
// itself, so a test reads as a list of steps and assertions.
//
// A World's builders and readers use [World.Base], the unwrapped store, so a
// store wrapper given with [Wrap] (counting calls, injecting faults) sees only
// what the Service does.
//
// # Example
//
//	func TestSomething(t *testing.T) {
//		chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
//			is := is.New(t)
//			w := open(t, chattest.With(chatcore.WithTopicDeletion(2, time.Hour)))
//			c := w.SeedCast(t) // realm "zulip" with one user of each role, and a second realm
//			general := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{c.Member}})
//			w.Post(t, general, "greetings", c.Member, "hello")
//			err := accounts.UpdateSettings(t.Context(), w.Svc, c.Member.ID, accounts.SettingsUpdate{ColorScheme: new(2)})
//			is.NoErr(err)                                             // a valid update
//			is.Equal(len(w.Events.OfType("user_settings")), 1)        // one event
//			is.Equal(w.User(t, c.Member.ID).Settings.ColorScheme, 2) // stored
//		})
//	}
package chattest
