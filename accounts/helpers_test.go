package accounts_test

// What the package's tests share beyond internal/chattest: plainHasher,
// newCast (chattest's Cast over any store) and newVerona (chattest.NewVerona),
// as the root package's tests have them.

import (
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
)

// plainHasher keeps tests fast: see chattest.PlainHasher.
type plainHasher = chattest.PlainHasher

// newCast builds a World with open (chattest.New: over a memory store) and
// stores the chattest.Cast in it; opts go to the Service.
func newCast(tb testing.TB, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *chattest.Cast) {
	tb.Helper()
	w := open(tb, chattest.With(opts...))
	return w, w.SeedCast(tb)
}

// newVerona is chattest.NewVerona.
var newVerona = chattest.NewVerona
