package chatcore_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// orgAPIKey is the API key testdata/org.json gives the user id.
func orgAPIKey(id chatcore.UserID) string {
	return fmt.Sprintf("Key%02d", id) + strings.Repeat("x", 27)
}

// orgNow is when the authentication tests run.
var orgNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// newOrg builds a World over a memory store at orgNow, loaded with
// testdata/org.json.
func newOrg(tb testing.TB, opts ...chattest.Option) *chattest.World {
	tb.Helper()
	is := is.New(tb)
	w := chattest.New(tb, append([]chattest.Option{chattest.At(orgNow)}, opts...)...)
	f, err := os.Open("testdata/org.json")
	is.NoErr(err) // the org fixture exists
	defer f.Close()
	is.NoErr(fixture.Load(tb.Context(), w.Svc, f)) // the org fixture loads
	return w
}

func TestAuthenticate(t *testing.T) {
	w := newOrg(t)
	ctx := t.Context()
	t.Run("ok", func(t *testing.T) {
		is := is.New(t)
		u, err := w.Svc.Authenticate(ctx, "max@acme.test", orgAPIKey(14))
		is.NoErr(err)                       // valid credentials
		is.Equal(u.ID, chatcore.UserID(14)) // the key owner
	})
	t.Run("whitespace and case are ignored", func(t *testing.T) {
		is := is.New(t)
		u, err := w.Svc.Authenticate(ctx, "  MAX@Acme.Test\t", " "+orgAPIKey(14)+"\n")
		is.NoErr(err)                       // trimmed, case-insensitive e-mail
		is.Equal(u.ID, chatcore.UserID(14)) // the key owner
	})
	t.Run("bots authenticate like humans", func(t *testing.T) {
		is := is.New(t)
		u, err := w.Svc.Authenticate(ctx, "echo-bot@acme.test", orgAPIKey(32))
		is.NoErr(err)    // bot credentials
		is.True(u.IsBot) // the bot
	})
	for _, tc := range []struct {
		name, email, key, msg string
	}{
		{"too short", "max@acme.test", "abc", "Malformed API key"},
		{"too long", "max@acme.test", orgAPIKey(14) + "x", "Malformed API key"},
		{"not alphanumeric", "max@acme.test", strings.Repeat("-", 32), "Malformed API key"},
		{"non-ASCII letter", "max@acme.test", "é" + strings.Repeat("a", 30), "Malformed API key"},
		{"empty", "max@acme.test", "", "Malformed API key"},
		{"unknown key", "max@acme.test", strings.Repeat("a", 32), "Invalid API key"},
		{"key of another user", "max@acme.test", orgAPIKey(12), "Invalid API key"},
		{"key of another realm's user", "max@acme.test", orgAPIKey(22), "Invalid API key"},
		{"deactivated user", "dana@acme.test", orgAPIKey(16), "Account is deactivated"},
		{"deactivated bot", "old-bot@acme.test", orgAPIKey(33), "Account is deactivated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			u, err := w.Svc.Authenticate(ctx, tc.email, tc.key)
			is.True(u == nil) // no user on failure
			chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, tc.msg)
		})
	}
}

// singleReads is a store that serves ViewSingle through View, counting the
// calls.
type singleReads struct {
	chatcore.Store
	views, singles int
}

func (s *singleReads) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.views++
	return s.Store.View(ctx, fn)
}

func (s *singleReads) ViewSingle(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.singles++
	return s.Store.View(ctx, fn)
}

// TestAuthenticateReadsOnce: authenticating is one read of the user with
// their realm's state (a deactivated realm refuses every request), made
// through the store's ViewSingle when it has one, for the user's own key
// and for a login key alike.
func TestAuthenticateReadsOnce(t *testing.T) {
	is := is.New(t)
	reads := &singleReads{}
	w := newOrg(t, chattest.Wrap(func(s chatcore.Store) chatcore.Store { reads.Store = s; return reads }))
	reads.views, reads.singles = 0, 0
	u, err := w.Svc.Authenticate(t.Context(), "max@acme.test", orgAPIKey(14))
	is.NoErr(err)                       // valid credentials
	is.Equal(u.ID, chatcore.UserID(14)) // the key owner
	is.Equal(reads.singles, 1)          // one single read, the user with their realm's state
	is.Equal(reads.views, 0)            // and no View
	key := "Login" + strings.Repeat("k", 27)
	is.NoErr(w.Svc.Store().Update(t.Context(), func(tx chatcore.Tx) error {
		return tx.AddLoginKey(t.Context(), &chatcore.LoginKey{Hash: chatcore.HashAPIKey(key), UserID: 14, Created: orgNow})
	}))
	reads.views, reads.singles = 0, 0
	u, err = w.Svc.Authenticate(t.Context(), "max@acme.test", key)
	is.NoErr(err)                       // a login key
	is.Equal(u.ID, chatcore.UserID(14)) // of its user
	is.Equal(reads.singles, 1)          // one single read too
	is.Equal(reads.views, 0)            // and no View
}
