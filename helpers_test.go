package chatcore_test

// Helpers shared by the package's test files: seeding and reading a store
// directly (bypassing the Service), opening each kind of store, a fast
// password hasher, a settable clock, a mailer and an event sink that record
// what the Service hands them, and the typed-error assertion. Every helper
// that can fail takes a testing.TB and fails the test itself.

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/sqlite"
)

// seedTime is when seeded realms, users and channels were created; the fake
// clocks of the message and topic tests start there.
var seedTime = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// writeStore runs fn in an Update transaction of store; an error fails the
// test.
func writeStore(tb testing.TB, store chatcore.Store, fn func(tx chatcore.Tx) error) {
	tb.Helper()
	if err := store.Update(context.Background(), fn); err != nil {
		tb.Fatalf("fixture write: %v", err)
	}
}

// updateUser applies mod to the stored user id; an error fails the test.
func updateUser(tb testing.TB, store chatcore.Store, id chatcore.UserID, mod func(u *chatcore.User)) {
	tb.Helper()
	writeStore(tb, store, func(tx chatcore.Tx) error {
		u, err := tx.User(context.Background(), id)
		if err != nil {
			return err
		}
		mod(u)
		return tx.UpdateUser(context.Background(), u)
	})
}

// updateRealm applies mod to the stored realm id; an error fails the test.
func updateRealm(tb testing.TB, store chatcore.Store, id chatcore.RealmID, mod func(r *chatcore.Realm)) {
	tb.Helper()
	writeStore(tb, store, func(tx chatcore.Tx) error {
		r, err := tx.Realm(context.Background(), id)
		if err != nil {
			return err
		}
		mod(r)
		return tx.UpdateRealm(context.Background(), r)
	})
}

// updateScheduled applies mod to the stored scheduled message or reminder
// id; an error fails the test.
func updateScheduled(tb testing.TB, store chatcore.Store, id chatcore.ScheduledMessageID, mod func(m *chatcore.ScheduledMessage)) {
	tb.Helper()
	writeStore(tb, store, func(tx chatcore.Tx) error {
		m, err := tx.ScheduledMessage(context.Background(), id)
		if err != nil {
			return err
		}
		mod(m)
		return tx.UpdateScheduledMessage(context.Background(), m)
	})
}

// seedRealm stores a realm named stringID (emptyTopicName: its display name
// of the empty topic, "" for the default).
func seedRealm(tb testing.TB, store chatcore.Store, stringID, emptyTopicName string) *chatcore.Realm {
	tb.Helper()
	r := &chatcore.Realm{StringID: stringID, Name: stringID, EmptyTopicDisplayName: emptyTopicName, DateCreated: seedTime}
	writeStore(tb, store, func(tx chatcore.Tx) error { return tx.CreateRealm(context.Background(), r) })
	return r
}

// seedUser stores an active user of realm with the role: the e-mail is
// name's slug ("King Hamlet": king.hamlet) at <realm>.example.com, the API key
// realm.StringID+name.
func seedUser(tb testing.TB, store chatcore.Store, realm *chatcore.Realm, name string, role chatcore.Role) *chatcore.User {
	tb.Helper()
	u := &chatcore.User{
		RealmID: realm.ID, Email: seedSlug(name) + "@" + realm.StringID + ".example.com",
		FullName: name, Role: role, IsActive: true, AvatarSource: "G", DateJoined: seedTime,
		APIKeyHash: chatcore.HashAPIKey(realm.StringID + name), Settings: chatcore.DefaultSettings(),
	}
	writeStore(tb, store, func(tx chatcore.Tx) error { return tx.CreateUser(context.Background(), u) })
	return u
}

// seedSlug lower-cases a name and turns its spaces into dots.
func seedSlug(name string) string { return strings.ToLower(strings.ReplaceAll(name, " ", ".")) }

// seedSubscription (re)subscribes u to st, seeing messages from firstVisible
// on (0: all).
func seedSubscription(tb testing.TB, store chatcore.Store, st *chatcore.Stream, u *chatcore.User, firstVisible chatcore.MessageID) {
	tb.Helper()
	writeStore(tb, store, func(tx chatcore.Tx) error {
		return tx.PutSubscription(context.Background(), chatcore.Subscription{
			StreamID: st.ID, UserID: u.ID, Active: true, FirstVisibleMessageID: firstVisible,
		})
	})
}

// openSQLite opens an empty SQLite store in the test's temporary directory;
// it is closed when the test ends.
func openSQLite(tb testing.TB) *sqlite.Store {
	tb.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "chat.db"))
	if err != nil {
		tb.Fatalf("opening SQLite: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// storeKinds opens an empty store of each implementation, so a test can run
// the same body over both and check the Service's behaviour on each.
var storeKinds = []struct {
	name string
	open func(tb testing.TB) chatcore.Store
}{
	{"memory", func(testing.TB) chatcore.Store { return memory.New() }},
	{"sqlite", func(tb testing.TB) chatcore.Store { return openSQLite(tb) }},
}

// eachStore runs body once over an empty store of each kind (see
// storeKinds), in a subtest named after the kind; open builds the test's
// environment over that store with newEnv, passing opts on.
func eachStore[E any](t *testing.T, newEnv func(tb testing.TB, store chatcore.Store, opts ...chatcore.Option) E, body func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) E)) {
	t.Helper()
	for _, k := range storeKinds {
		t.Run(k.name, func(t *testing.T) {
			body(t, func(tb testing.TB, opts ...chatcore.Option) E {
				tb.Helper()
				return newEnv(tb, k.open(tb), opts...)
			})
		})
	}
}

// readStore runs read in a View transaction of store and returns its
// result; an error fails the test.
func readStore[T any](tb testing.TB, store chatcore.Store, read func(ctx context.Context, tx chatcore.Tx) (T, error)) T {
	tb.Helper()
	var v T
	err := store.View(context.Background(), func(tx chatcore.Tx) error {
		var err error
		v, err = read(context.Background(), tx)
		return err
	})
	if err != nil {
		tb.Fatalf("reading the store: %v", err)
	}
	return v
}

// storedMessageIDs returns the ids of the stored messages q selects, oldest
// first.
func storedMessageIDs(tb testing.TB, store chatcore.Store, q chatcore.MessageQuery) []chatcore.MessageID {
	tb.Helper()
	return readStore(tb, store, func(ctx context.Context, tx chatcore.Tx) ([]chatcore.MessageID, error) {
		ms, err := tx.Messages(ctx, q)
		var ids []chatcore.MessageID
		for _, m := range ms {
			ids = append(ids, m.ID)
		}
		return ids, err
	})
}

// plainHasher keeps tests fast (argon2id would dominate them): the "hash"
// is the password with a "plain:" prefix.
type plainHasher struct{}

func (plainHasher) Hash(p string) (string, error)    { return "plain:" + p, nil }
func (plainHasher) Verify(h, p string) (bool, error) { return h == "plain:"+p, nil }

// fakeClock is a settable clock, safe for concurrent use. Every Now call
// returns the current time and then advances it by step (zero, the default:
// the clock stands still).
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.now
	c.now = c.now.Add(c.step)
	return t
}

// setStep makes every later Now call advance the clock by d.
func (c *fakeClock) setStep(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.step = d
}

// advance moves the clock forward by d.
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// current returns the time without advancing the clock.
func (c *fakeClock) current() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// recordingMailer records sent e-mails; safe for concurrent use.
type recordingMailer struct {
	mu   sync.Mutex
	sent []chatcore.Email
}

func (m *recordingMailer) Send(_ context.Context, e chatcore.Email) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, e)
	return nil
}

// all returns a copy of the e-mails sent so far, oldest first.
func (m *recordingMailer) all() []chatcore.Email {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.sent)
}

// recordingSink is an EventSink that records every published event; safe for
// concurrent use. onPublish, when set, runs first on every Publish (to look
// at the store at publication time, or to log the order of events).
type recordingSink struct {
	mu        sync.Mutex
	events    []chatcore.Event
	onPublish func([]chatcore.Event)
}

func (s *recordingSink) Publish(_ context.Context, events []chatcore.Event) {
	if s.onPublish != nil {
		s.onPublish(events)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = append(s.events, events...)
}

// all returns a copy of the events published so far, oldest first.
func (s *recordingSink) all() []chatcore.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.events)
}

// reset forgets the events published so far.
func (s *recordingSink) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events = nil
}

// ofType returns the published events whose "type" is typ and which hold
// every further key/value pair of match, for example
// ofType("reminders", "op", "remove").
func (s *recordingSink) ofType(typ string, match ...string) []chatcore.Event {
	return eventsOfType(s.all(), typ, match...)
}

// take returns what ofType(typ, match...) would and forgets every event
// published so far (of any type), in one step.
func (s *recordingSink) take(typ string, match ...string) []chatcore.Event {
	s.mu.Lock()
	events := s.events
	s.events = nil
	s.mu.Unlock()
	return eventsOfType(events, typ, match...)
}

// eventsOfType returns the events of events whose "type" is typ and which
// hold every further key/value pair of match.
func eventsOfType(events []chatcore.Event, typ string, match ...string) []chatcore.Event {
	if len(match)%2 != 0 {
		panic("recordingSink.ofType: match must be key/value pairs")
	}
	var out []chatcore.Event
next:
	for _, e := range events {
		if e.Data["type"] != typ {
			continue
		}
		for i := 0; i < len(match); i += 2 {
			if e.Data[match[i]] != match[i+1] {
				continue next
			}
		}
		out = append(out, e)
	}
	return out
}

// wantError asserts that err is a *chatcore.Error with Zulip's code, kind
// and exact message, and returns it for further checks.
func wantError(tb testing.TB, err error, code chatcore.Code, kind chatcore.Kind, msg string) *chatcore.Error {
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
