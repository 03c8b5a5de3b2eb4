package chatcore_test

// Helpers shared by the package's test files: seeding and reading a store
// directly (bypassing the Service), opening each kind of store, a fast
// password hasher, a settable clock, a mailer and an event sink that record
// what the Service hands them, the typed-error assertion, and veronaEnv, a
// small two-realm fixture over a counting store wrapper used by tests of
// several areas. Every helper that can fail takes a testing.TB and fails the
// test itself.

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/matryer/is"
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

// svcEnv is a Service over store (the store the Service sees) with
// recorders of its e-mails and events, a settable clock and plainHasher;
// fixtures embed it and set realm when they seed one.
type svcEnv struct {
	svc    *chatcore.Service
	store  chatcore.Store
	mail   *recordingMailer
	events *recordingSink
	clock  *fakeClock
	realm  chatcore.RealmID
}

// newSvcEnv builds the Service over store with the clock at now and
// externalURL; opts come after the environment's own options, so they win.
func newSvcEnv(store chatcore.Store, now time.Time, externalURL string, opts ...chatcore.Option) svcEnv {
	e := svcEnv{store: store, mail: &recordingMailer{}, events: &recordingSink{}, clock: &fakeClock{now: now}}
	opts = append([]chatcore.Option{
		chatcore.WithMailer(e.mail), chatcore.WithEventSink(e.events), chatcore.WithClock(e.clock),
		chatcore.WithPasswordHasher(plainHasher{}), chatcore.WithExternalURL(externalURL),
	}, opts...)
	e.svc = chatcore.New(store, opts...)
	return e
}

// user reads the user id from the store.
func (e *svcEnv) user(tb testing.TB, id chatcore.UserID) *chatcore.User {
	tb.Helper()
	return readStore(tb, e.store, func(ctx context.Context, tx chatcore.Tx) (*chatcore.User, error) { return tx.User(ctx, id) })
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

// veronaNow is veronaEnv's fixed time.
var veronaNow = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// veronaStore wraps a store: it counts Updates and, while groupsForbidden is
// set, makes Tx.Groups fail.
type veronaStore struct {
	chatcore.Store
	updates         atomic.Int32
	groupsForbidden atomic.Bool
}

func (s *veronaStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(veronaTx{tx, s}) })
}

func (s *veronaStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.View(ctx, func(tx chatcore.Tx) error { return fn(veronaTx{tx, s}) })
}

// errVeronaGroups is what Tx.Groups returns while it is forbidden.
var errVeronaGroups = errors.New("Groups must not be called")

type veronaTx struct {
	chatcore.Tx
	s *veronaStore
}

func (t veronaTx) Groups(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Group, error) {
	if t.s.groupsForbidden.Load() {
		return nil, errVeronaGroups
	}
	return t.Tx.Groups(ctx, realm)
}

// veronaEnv is a realm with an owner, two members and a public channel all three
// are subscribed to, plus a second realm with a user, a channel and a group.
type veronaEnv struct {
	base   chatcore.Store
	store  *veronaStore
	svc    *chatcore.Service
	events *recordingSink

	realm, otherRealm    *chatcore.Realm
	owner, ham, ophelia  *chatcore.User
	stranger             *chatcore.User
	general, otherStream *chatcore.Stream
	otherGroup           *chatcore.Group
}

// veronaEachStore runs body over the memory store and over SQLite.
func veronaEachStore(t *testing.T, body func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) *veronaEnv)) {
	eachStore(t, newVeronaEnv, body)
}

func newVeronaEnv(tb testing.TB, base chatcore.Store, opts ...chatcore.Option) *veronaEnv {
	tb.Helper()
	e := &veronaEnv{base: base, store: &veronaStore{Store: base}, events: &recordingSink{}}
	all := append([]chatcore.Option{
		chatcore.WithClock(chatcore.ClockFunc(func() time.Time { return veronaNow })),
		chatcore.WithEventSink(e.events),
	}, opts...)
	e.svc = chatcore.New(e.store, all...)
	e.realm = seedRealm(tb, base, "verona", "")
	e.otherRealm = seedRealm(tb, base, "elsinore", "")
	e.owner = seedUser(tb, base, e.realm, "owner", chatcore.RoleOwner)
	e.ham = seedUser(tb, base, e.realm, "ham", chatcore.RoleMember)
	e.ophelia = seedUser(tb, base, e.realm, "ophelia", chatcore.RoleMember)
	e.stranger = seedUser(tb, base, e.otherRealm, "stranger", chatcore.RoleMember)
	e.general = &chatcore.Stream{RealmID: e.realm.ID, Name: "Verona", HistoryPublicToSubscribers: true, DateCreated: veronaNow}
	e.otherStream = &chatcore.Stream{RealmID: e.otherRealm.ID, Name: "Verona", HistoryPublicToSubscribers: true, DateCreated: veronaNow}
	e.otherGroup = &chatcore.Group{RealmID: e.otherRealm.ID, Name: "players"}
	e.write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		for _, st := range []*chatcore.Stream{e.general, e.otherStream} {
			if err := tx.CreateStream(ctx, st); err != nil {
				return err
			}
		}
		e.otherGroup.Members = []chatcore.UserID{e.stranger.ID}
		return tx.CreateGroup(ctx, e.otherGroup)
	})
	for _, u := range []*chatcore.User{e.owner, e.ham, e.ophelia} {
		seedSubscription(tb, base, e.general, u, 0)
	}
	return e
}

// write runs fn in a transaction of the unwrapped store.
func (e *veronaEnv) write(tb testing.TB, fn func(ctx context.Context, tx chatcore.Tx) error) {
	tb.Helper()
	ctx := context.Background()
	if err := e.base.Update(ctx, func(tx chatcore.Tx) error { return fn(ctx, tx) }); err != nil {
		tb.Fatalf("fixture write: %v", err)
	}
}

// post sends a channel message to e.general and returns its id.
func (e *veronaEnv) post(tb testing.TB, sender *chatcore.User, topic string) chatcore.MessageID {
	tb.Helper()
	id, err := e.svc.SendMessage(context.Background(), sender.ID, chatcore.SendMessageRequest{
		Type: "stream", To: new(e.general.Name), Topic: new(topic), Content: "hello",
	})
	if err != nil {
		tb.Fatalf("sending to %q: %v", topic, err)
	}
	return id
}
