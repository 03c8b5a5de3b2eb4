package chatcore_test

// What the package's tests share beyond internal/chattest: short names for
// the helpers every area uses (plainHasher, openSQLite), and the
// fixtures several areas build on: newCast (chattest's Cast over any store)
// and newVerona (chattest.NewVerona).

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
)

// plainHasher keeps tests fast: see chattest.PlainHasher.
type plainHasher = chattest.PlainHasher

// openSQLite opens an empty SQLite store in the test's temporary directory;
// it is closed when the test ends.
func openSQLite(tb testing.TB) chatcore.Store {
	tb.Helper()
	return chattest.SQLite(tb)
}

// newCast builds a World with open (chattest.New: over a memory store) and
// stores the chattest.Cast in it; opts go to the Service.
func newCast(tb testing.TB, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *chattest.Cast) {
	tb.Helper()
	w := open(tb, chattest.With(opts...))
	return w, w.SeedCast(tb)
}

// openOn returns a chattest.Open that builds its World over s.
func openOn(s chatcore.Store) chattest.Open {
	return func(tb testing.TB, opts ...chattest.Option) *chattest.World {
		tb.Helper()
		return chattest.New(tb, append(opts, chattest.OnStore(s))...)
	}
}

// newVerona is chattest.NewVerona.
var newVerona = chattest.NewVerona
