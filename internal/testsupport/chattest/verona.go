package chattest

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
)

// VeronaNow is when the Verona world's clock stands.
var VeronaNow = time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

// GuardedStore wraps a store: it counts Updates and, while GroupsForbidden
// is set, makes Tx.Groups fail with ErrGroupsForbidden (a rule that must not
// load every group of the realm shows it does not).
type GuardedStore struct {
	chatcore.Store
	Updates         atomic.Int32
	GroupsForbidden atomic.Bool
}

// wrap makes s wrap base, for Wrap.
func (s *GuardedStore) wrap(base chatcore.Store) chatcore.Store { s.Store = base; return s }

// Update counts the Update and runs fn on the guarded transaction.
func (s *GuardedStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.Updates.Add(1)
	return s.Store.Update(ctx, func(tx chatcore.Tx) error { return fn(guardedTx{tx, s}) })
}

// View runs fn on the guarded transaction.
func (s *GuardedStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.View(ctx, func(tx chatcore.Tx) error { return fn(guardedTx{tx, s}) })
}

// ErrGroupsForbidden is what Tx.Groups returns while a GuardedStore forbids it.
var ErrGroupsForbidden = errors.New("Groups must not be called")

type guardedTx struct {
	chatcore.Tx
	s *GuardedStore
}

func (t guardedTx) Groups(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Group, error) {
	if t.s.GroupsForbidden.Load() {
		return nil, ErrGroupsForbidden
	}
	return t.Tx.Groups(ctx, realm)
}

// Verona is a realm with an owner, two members and a public channel all
// three are subscribed to, plus a second realm with a user, a channel and a
// group.
type Verona struct {
	Realm, OtherRealm    *chatcore.Realm
	Owner, Ham, Ophelia  *chatcore.User
	Stranger             *chatcore.User
	General, OtherStream *chatcore.Stream
	OtherGroup           *chatcore.Group
}

// NewVerona builds a World with open, its clock standing at VeronaNow and
// its Service seeing the store through a GuardedStore, and stores Verona in
// it; opts go to the Service.
func NewVerona(tb testing.TB, open Open, opts ...chatcore.Option) (*World, *Verona, *GuardedStore) {
	tb.Helper()
	gs := &GuardedStore{}
	w := open(tb, At(VeronaNow), Wrap(gs.wrap), With(opts...))
	org := &Verona{Realm: w.AddRealm(tb, "verona"), OtherRealm: w.AddRealm(tb, "elsinore")}
	org.Owner = w.AddUser(tb, org.Realm, "owner", chatcore.RoleOwner)
	org.Ham = w.AddUser(tb, org.Realm, "ham", chatcore.RoleMember)
	org.Ophelia = w.AddUser(tb, org.Realm, "ophelia", chatcore.RoleMember)
	org.Stranger = w.AddUser(tb, org.OtherRealm, "stranger", chatcore.RoleMember)
	org.General = &chatcore.Stream{RealmID: org.Realm.ID, Name: "Verona", HistoryPublicToSubscribers: true, DateCreated: VeronaNow}
	org.OtherStream = &chatcore.Stream{RealmID: org.OtherRealm.ID, Name: "Verona", HistoryPublicToSubscribers: true, DateCreated: VeronaNow}
	org.OtherGroup = &chatcore.Group{RealmID: org.OtherRealm.ID, Name: "players", Members: []chatcore.UserID{org.Stranger.ID}}
	w.Write(tb, func(ctx context.Context, tx chatcore.Tx) error {
		for _, st := range []*chatcore.Stream{org.General, org.OtherStream} {
			if err := tx.CreateStream(ctx, st); err != nil {
				return err
			}
		}
		return tx.CreateGroup(ctx, org.OtherGroup)
	})
	for _, u := range []*chatcore.User{org.Owner, org.Ham, org.Ophelia} {
		w.Subscribe(tb, org.General, u, 0)
	}
	return w, org, gs
}
