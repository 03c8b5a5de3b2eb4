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
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
)

// seedTime is when seeded realms, users and channels were created; the fake
// clocks of the message and topic tests start there.
var seedTime = chattest.Epoch

// writeStore runs fn in an Update transaction of store; an error fails the
// test.
func writeStore(tb testing.TB, store chatcore.Store, fn func(tx chatcore.Tx) error) {
	tb.Helper()
	chattest.Write(tb, store, func(_ context.Context, tx chatcore.Tx) error { return fn(tx) })
}

// on is a World over store, for the store-based helpers below.
func on(store chatcore.Store) *chattest.World { return &chattest.World{Base: store} }

// updateUser applies mod to the stored user id; an error fails the test.
func updateUser(tb testing.TB, store chatcore.Store, id chatcore.UserID, mod func(u *chatcore.User)) {
	tb.Helper()
	on(store).UpdateUser(tb, id, mod)
}

// updateScheduled applies mod to the stored scheduled message or reminder
// id; an error fails the test.
func updateScheduled(tb testing.TB, store chatcore.Store, id chatcore.ScheduledMessageID, mod func(m *chatcore.ScheduledMessage)) {
	tb.Helper()
	on(store).UpdateScheduled(tb, id, mod)
}

// updateRealm applies mod to the stored realm id; an error fails the test.
func updateRealm(tb testing.TB, store chatcore.Store, id chatcore.RealmID, mod func(r *chatcore.Realm)) {
	tb.Helper()
	on(store).UpdateRealm(tb, id, mod)
}

// seedRealm stores a realm named stringID (emptyTopicName: its display name
// of the empty topic, "" for the default).
func seedRealm(tb testing.TB, store chatcore.Store, stringID, emptyTopicName string) *chatcore.Realm {
	tb.Helper()
	return on(store).AddRealm(tb, stringID, chattest.EmptyTopicName(emptyTopicName))
}

// seedUser stores an active user of realm with the role (see
// chattest.World.AddUser).
func seedUser(tb testing.TB, store chatcore.Store, realm *chatcore.Realm, name string, role chatcore.Role) *chatcore.User {
	tb.Helper()
	return on(store).AddUser(tb, realm, name, role)
}

// seedSubscription (re)subscribes u to st, seeing messages from firstVisible
// on (0: all).
func seedSubscription(tb testing.TB, store chatcore.Store, st *chatcore.Stream, u *chatcore.User, firstVisible chatcore.MessageID) {
	tb.Helper()
	on(store).Subscribe(tb, st, u, firstVisible)
}

// openSQLite opens an empty SQLite store in the test's temporary directory;
// it is closed when the test ends.
func openSQLite(tb testing.TB) chatcore.Store {
	tb.Helper()
	return chattest.SQLite(tb)
}

// eachStore runs body once over an empty store of each kind (see
// chattest.Stores), in a subtest named after the kind; open builds the
// test's environment over that store with newEnv, passing opts on.
func eachStore[E any](t *testing.T, newEnv func(tb testing.TB, store chatcore.Store, opts ...chatcore.Option) E, body func(t *testing.T, open func(tb testing.TB, opts ...chatcore.Option) E)) {
	t.Helper()
	for _, k := range chattest.Stores {
		t.Run(k.Name, func(t *testing.T) {
			body(t, func(tb testing.TB, opts ...chatcore.Option) E {
				tb.Helper()
				return newEnv(tb, k.Open(tb), opts...)
			})
		})
	}
}

// readStore runs read in a View transaction of store and returns its
// result; an error fails the test.
func readStore[T any](tb testing.TB, store chatcore.Store, read func(ctx context.Context, tx chatcore.Tx) (T, error)) T {
	tb.Helper()
	return chattest.Read(tb, store, read)
}

// storedMessageIDs returns the ids of the stored messages q selects, oldest
// first.
func storedMessageIDs(tb testing.TB, store chatcore.Store, q chatcore.MessageQuery) []chatcore.MessageID {
	tb.Helper()
	return on(store).MessageIDs(tb, q)
}

// svcEnv is a Service over store (the store the Service sees) with
// recorders of its e-mails and events, a settable clock and plainHasher;
// fixtures embed it and set realm when they seed one.
type svcEnv struct {
	svc    *chatcore.Service
	store  chatcore.Store
	mail   *recordingMailer
	events *recordingSink
	clock  fakeClock
	realm  chatcore.RealmID
}

// newSvcEnv builds the Service over store with the clock at now and
// externalURL; opts come after the environment's own options, so they win.
func newSvcEnv(store chatcore.Store, now time.Time, externalURL string, opts ...chatcore.Option) svcEnv {
	e := svcEnv{store: store, mail: &recordingMailer{}, events: &recordingSink{}, clock: fakeClock{chattest.NewClock(now)}}
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

// plainHasher keeps tests fast: see chattest.PlainHasher.
type plainHasher = chattest.PlainHasher

// fakeClock is a settable clock: see chattest.Clock.
type fakeClock struct{ *chattest.Clock }

func (c fakeClock) advance(d time.Duration) { c.Advance(d) }
func (c fakeClock) setStep(d time.Duration) { c.SetStep(d) }

// recordingMailer records sent e-mails: see chattest.Mailer.
type recordingMailer struct{ chattest.Mailer }

// all returns a copy of the e-mails sent so far, oldest first.
func (m *recordingMailer) all() []chatcore.Email { return m.All() }

// recordingSink records published events: see chattest.Events.
type recordingSink struct{ chattest.Events }

func (s *recordingSink) all() []chatcore.Event { return s.All() }
func (s *recordingSink) reset()                { s.Reset() }

// ofType returns the published events whose "type" is typ and which hold
// every further key/value pair of match (see chattest.Events.OfType).
func (s *recordingSink) ofType(typ string, match ...string) []chatcore.Event {
	return s.OfType(typ, match...)
}

// take is chattest.Events.Take.
func (s *recordingSink) take(typ string, match ...string) []chatcore.Event {
	return s.Take(typ, match...)
}

// wantError asserts that err is a *chatcore.Error with Zulip's code, kind
// and exact message, and returns it for further checks.
func wantError(tb testing.TB, err error, code chatcore.Code, kind chatcore.Kind, msg string) *chatcore.Error {
	tb.Helper()
	return chattest.WantError(tb, err, code, kind, msg)
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
