package chattest_test

import (
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

func TestClock(t *testing.T) {
	is := is.New(t)
	c := chattest.NewClock(chattest.Epoch)
	is.Equal(c.Now(), chattest.Epoch) // stands still by default
	is.Equal(c.Now(), chattest.Epoch) // still
	c.SetStep(time.Second)
	is.Equal(c.Now(), chattest.Epoch)                      // the current time first
	is.Equal(c.Current(), chattest.Epoch.Add(time.Second)) // then one step on
	c.Advance(time.Hour)
	is.Equal(c.Current(), chattest.Epoch.Add(time.Hour+time.Second)) // advanced
}

func TestEventsFilter(t *testing.T) {
	is := is.New(t)
	var s chattest.Events
	s.Publish(t.Context(), []chatcore.Event{
		{Data: map[string]any{"type": "reminders", "op": "add"}},
		{Data: map[string]any{"type": "reminders", "op": "remove"}},
		{Data: map[string]any{"type": "message"}},
	})
	is.Equal(len(s.OfType("reminders")), 2)                 // by type
	is.Equal(len(s.OfType("reminders", "op", "remove")), 1) // by type and op
	is.Equal(len(s.Take("message")), 1)                     // taken
	is.Equal(len(s.All()), 0)                               // taking forgets everything
}

func TestSeedCast(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		w := open(t)
		c := w.SeedCast(t)
		is.Equal(w.User(t, c.Member.ID).Email, "hamlet@zulip.com")  // stored
		is.Equal(w.User(t, c.Stranger.ID).RealmID, c.OtherRealm.ID) // in the other realm
		is.Equal(w.User(t, c.Bot.ID).IsBot, true)                   // a bot
		is.Equal(w.User(t, c.Deactivated.ID).IsActive, false)       // deactivated
		ok, err := chattest.PlainHasher{}.Verify(c.Owner.PasswordHash, chattest.CastPassword("desdemona@zulip.com"))
		is.NoErr(err) // verified
		is.True(ok)   // the cast password
	})
}

func TestWrapSeesOnlyTheService(t *testing.T) {
	is := is.New(t)
	counter := &chattest.CountingStore{}
	w := chattest.New(t, chattest.Wrap(func(s chatcore.Store) chatcore.Store { counter.Store = s; return counter }))
	c := w.SeedCast(t)
	is.Equal(counter.Count(), chattest.TxCount{})                                                                    // builders bypass the wrapper
	is.NoErr(accounts.UpdateSettings(t.Context(), w.Svc, c.Member.ID, accounts.SettingsUpdate{ColorScheme: new(2)})) // valid
	is.Equal(counter.Count().Updates, int64(1))                                                                      // the Service's write went through the wrapper
}
