package accounts_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
)

// TestUpdateRunTwice runs the Service over a store that runs every write
// transaction's function twice, the first run rolled back, as a store that
// retries serialization failures does: events and e-mails go out once, and
// a rate limit counts each request once.
func TestUpdateRunTwice(t *testing.T) {
	is := is.New(t)
	w, org := newAcmeWith(t, chattest.Wrap(func(s chatcore.Store) chatcore.Store { return chattest.RetryingStore{Store: s} }))
	ctx := context.Background()
	change := func(addr string) accounts.SettingsUpdate { return accounts.SettingsUpdate{Email: new(addr)} }
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a1@example.net"))) // first of two an hour
	is.Equal(len(w.Mail.All()), 1)                                                   // one confirmation mailed
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a2@example.net"))) // second: each request counted once
	is.Equal(len(w.Mail.All()), 2)                                                   // one more
	wantRateLimited(t, accounts.UpdateSettings(ctx, w.Svc, org.ann, change("a3@example.net")), 1800)

	before := len(w.Events.All())
	is.NoErr(accounts.UpdateSettings(ctx, w.Svc, org.ben, accounts.SettingsUpdate{FullName: new("Benjamin")}))
	is.Equal(w.User(t, org.ben).FullName, "Benjamin") // written once
	is.True(len(w.Events.All()) > before)             // events published
	seen := map[string]int{}
	for _, e := range w.Events.All()[before:] {
		seen[e.Data["type"].(string)]++
	}
	for typ, n := range seen {
		if n != 1 {
			t.Errorf("event %s published %d times", typ, n)
		}
	}
}
