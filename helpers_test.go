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

// veronaNow is when the verona fixture's clock stands.
var veronaNow = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// guardedStore wraps a store: it counts Updates and, while groupsForbidden
// is set, makes Tx.Groups fail.
type guardedStore struct {
	chatcore.Store
	updates         atomic.Int32
	groupsForbidden atomic.Bool
}

// wrap makes s wrap base, for chattest.Wrap.
func (s *guardedStore) wrap(base chatcore.Store) chatcore.Store { s.Store = base; return s }

func (s *guardedStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.updates.Add(1)
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(guardedTx{tx, s}) })
}

func (s *guardedStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.View(ctx, func(tx chatcore.Tx) error { return fn(guardedTx{tx, s}) })
}

// errGroupsForbidden is what Tx.Groups returns while it is forbidden.
var errGroupsForbidden = errors.New("Groups must not be called")

type guardedTx struct {
	chatcore.Tx
	s *guardedStore
}

func (t guardedTx) Groups(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Group, error) {
	if t.s.groupsForbidden.Load() {
		return nil, errGroupsForbidden
	}
	return t.Tx.Groups(ctx, realm)
}

// veronaOrg is a realm with an owner, two members and a public channel all
// three are subscribed to, plus a second realm with a user, a channel and a
// group.
type veronaOrg struct {
	realm, otherRealm    *chatcore.Realm
	owner, ham, ophelia  *chatcore.User
	stranger             *chatcore.User
	general, otherStream *chatcore.Stream
	otherGroup           *chatcore.Group
}

// newVerona builds a World with open, its clock standing at veronaNow and
// its Service seeing the store through a guardedStore, and stores veronaOrg
// in it; opts go to the Service.
func newVerona(tb testing.TB, open chattest.Open, opts ...chatcore.Option) (*chattest.World, *veronaOrg, *guardedStore) {
	tb.Helper()
	gs := &guardedStore{}
	w := open(tb, chattest.At(veronaNow), chattest.Wrap(gs.wrap), chattest.With(opts...))
	org := &veronaOrg{realm: w.AddRealm(tb, "verona"), otherRealm: w.AddRealm(tb, "elsinore")}
	org.owner = w.AddUser(tb, org.realm, "owner", chatcore.RoleOwner)
	org.ham = w.AddUser(tb, org.realm, "ham", chatcore.RoleMember)
	org.ophelia = w.AddUser(tb, org.realm, "ophelia", chatcore.RoleMember)
	org.stranger = w.AddUser(tb, org.otherRealm, "stranger", chatcore.RoleMember)
	org.general = &chatcore.Stream{RealmID: org.realm.ID, Name: "Verona", HistoryPublicToSubscribers: true, DateCreated: veronaNow}
	org.otherStream = &chatcore.Stream{RealmID: org.otherRealm.ID, Name: "Verona", HistoryPublicToSubscribers: true, DateCreated: veronaNow}
	org.otherGroup = &chatcore.Group{RealmID: org.otherRealm.ID, Name: "players", Members: []chatcore.UserID{org.stranger.ID}}
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		for _, st := range []*chatcore.Stream{org.general, org.otherStream} {
			if err := tx.CreateStream(ctx, st); err != nil {
				return err
			}
		}
		return tx.CreateGroup(ctx, org.otherGroup)
	})
	for _, u := range []*chatcore.User{org.owner, org.ham, org.ophelia} {
		w.Subscribe(tb, org.general, u, 0)
	}
	return w, org, gs
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
