package chattest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// World is a Service over a store, with the recorders and the clock it was
// given. Build one with [New] (or the open function of [EachStore]).
type World struct {
	// Base is the store under test, unwrapped: builders and readers use it,
	// so a wrapper sees only the Service's calls.
	Base chatcore.Store
	// Store is what the Service sees: Base, or Base wrapped by [Wrap].
	Store chatcore.Store
	// Svc is the Service under test.
	Svc *chatcore.Service
	// Clock is the Service's clock, standing still at the start time.
	Clock *Clock
	// Mail records the e-mails the Service sends.
	Mail *Mailer
	// Events records the events the Service publishes.
	Events *Events
}

type config struct {
	base        chatcore.Store
	wrap        func(chatcore.Store) chatcore.Store
	now         time.Time
	externalURL string
	events      *Events
	opts        []chatcore.Option
}

// Option configures [New].
type Option func(*config)

// OnStore makes the World use s (default: a new memory store).
func OnStore(s chatcore.Store) Option { return func(c *config) { c.base = s } }

// Wrap makes the Service see wrap(base) instead of the base store, for
// counting or fault-injecting wrappers. Later Wrap options wrap the earlier
// ones' result.
func Wrap(wrap func(chatcore.Store) chatcore.Store) Option {
	return func(c *config) {
		if prev := c.wrap; prev != nil {
			c.wrap = func(s chatcore.Store) chatcore.Store { return wrap(prev(s)) }
			return
		}
		c.wrap = wrap
	}
}

// At starts the World's clock at t (default: [Epoch]).
func At(t time.Time) Option { return func(c *config) { c.now = t } }

// ExternalURL sets the Service's external URL (default: the Service's own
// default).
func ExternalURL(u string) Option { return func(c *config) { c.externalURL = u } }

// WithEvents makes the World record events in s (to set its OnPublish
// before the Service can publish).
func WithEvents(s *Events) Option { return func(c *config) { c.events = s } }

// With passes opts to [chatcore.New] after the World's own options (mailer,
// event sink, clock, [PlainHasher], [ExternalURL]), so they win.
func With(opts ...chatcore.Option) Option {
	return func(c *config) { c.opts = append(c.opts, opts...) }
}

// New builds a World; see the options for the defaults. The Service's store
// is closed when the test ends if it is a SQLite store opened by [SQLite].
func New(tb testing.TB, opts ...Option) *World {
	tb.Helper()
	c := config{now: Epoch}
	for _, o := range opts {
		o(&c)
	}
	if c.base == nil {
		c.base = memory.New()
	}
	if c.events == nil {
		c.events = &Events{}
	}
	w := &World{Base: c.base, Store: c.base, Clock: NewClock(c.now), Mail: &Mailer{}, Events: c.events}
	if c.wrap != nil {
		w.Store = c.wrap(c.base)
	}
	all := []chatcore.Option{
		chatcore.WithMailer(w.Mail), chatcore.WithEventSink(w.Events), chatcore.WithClock(w.Clock),
		chatcore.WithPasswordHasher(PlainHasher{}),
	}
	if c.externalURL != "" {
		all = append(all, chatcore.WithExternalURL(c.externalURL))
	}
	all = append(all, c.opts...)
	w.Svc = chatcore.New(w.Store, all...)
	return w
}

// Open builds a World over one kind of store; see [EachStore].
type Open func(tb testing.TB, opts ...Option) *World

// Memory returns a new, empty memory store.
func Memory(testing.TB) chatcore.Store { return memory.New() }

// SQLite opens an empty SQLite store in the test's temporary directory
// (never ":memory:", so it behaves as a file does); it is closed when the
// test ends.
//
// The file is a copy of one migrated once per test process (see
// [sqlitetest.Open]).
func SQLite(tb testing.TB) chatcore.Store {
	tb.Helper()
	return sqlitetest.Open(tb)
}

// Postgres opens an empty PostgreSQL store in a schema of its own in the
// database named by CHATCORE_TEST_POSTGRES; it is closed and the schema
// dropped when the test ends. Without the variable the test is skipped.
func Postgres(tb testing.TB) chatcore.Store {
	tb.Helper()
	return pgtest.Open(tb)
}

// Stores lists the store implementations [EachStore] runs over, by name.
var Stores = []struct {
	Name string
	Open func(tb testing.TB) chatcore.Store
}{
	{"memory", Memory},
	{"sqlite", SQLite},
	{"postgres", Postgres},
}

// EachStore runs body once per implementation in [Stores], in a parallel
// subtest named after it; open builds a World over a new, empty store of that
// kind (an [OnStore] option among opts is overridden). The subtests run in
// parallel with each other once the calling test's function has returned, so
// EachStore must be the caller's last statement and body must not share
// mutable state with the other stores' runs (each World is its own).
func EachStore(t *testing.T, body func(t *testing.T, open Open)) {
	t.Helper()
	for _, k := range Stores {
		t.Run(k.Name, func(t *testing.T) {
			t.Parallel()
			body(t, func(tb testing.TB, opts ...Option) *World {
				tb.Helper()
				return New(tb, append(opts, OnStore(k.Open(tb)))...)
			})
		})
	}
}

// WantError asserts that err is a *chatcore.Error with Zulip's code, kind
// and exact message, and returns it for further checks.
func WantError(tb testing.TB, err error, code chatcore.Code, kind chatcore.Kind, msg string) *chatcore.Error {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	e, ok := errors.AsType[*chatcore.Error](err)
	if !ok {
		tb.Fatalf("want *chatcore.Error %s %q, got %v", code, msg, err)
	}
	is.Equal(e.Code, code) // Zulip's wire code
	is.Equal(e.Kind, kind) // error kind
	is.Equal(e.Msg, msg)   // Zulip's exact message
	return e
}

// Write runs fn in an Update transaction of store; an error fails the test.
func Write(tb testing.TB, store chatcore.Store, fn func(ctx context.Context, tx chatcore.Tx) error) {
	tb.Helper()
	ctx := context.Background()
	if err := store.Update(ctx, func(tx chatcore.Tx) error { return fn(ctx, tx) }); err != nil {
		tb.Fatalf("fixture write: %v", err)
	}
}

// Read runs read in a View transaction of store and returns its result; an
// error fails the test.
func Read[T any](tb testing.TB, store chatcore.Store, read func(ctx context.Context, tx chatcore.Tx) (T, error)) T {
	tb.Helper()
	var v T
	ctx := context.Background()
	err := store.View(ctx, func(tx chatcore.Tx) error {
		var err error
		v, err = read(ctx, tx)
		return err
	})
	if err != nil {
		tb.Fatalf("reading the store: %v", err)
	}
	return v
}
