package accounts_test

// What the package's tests share beyond internal/chattest: plainHasher,
// newCast (chattest's Cast over any store) and newVerona (a small two-realm
// organisation behind a store wrapper that counts writes and can forbid
// loading every group), as the root package's tests have them.

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
)

// plainHasher keeps tests fast: see chattest.PlainHasher.
type plainHasher = chattest.PlainHasher

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
