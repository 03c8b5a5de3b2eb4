package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/chatcore/chatcore/store"
)

// TestServiceRulesAcrossInstances runs two Services, each on a store of its
// own, on one schema (two server instances on one database) and has them
// race: the rules the Service checks before writing hold without any lock
// of the Service's, because every Update is serialisable.
func TestServiceRulesAcrossInstances(t *testing.T) {
	sa, sb := instances(t)
	w := chattest.New(t, chattest.OnStore(sa))
	other := chatcore.New(sb, chatcore.WithClock(w.Clock))

	t.Run("two owners deactivating each other leave one owner", func(t *testing.T) {
		is := is.New(t)
		for i := range 10 {
			realm := w.AddRealm(t, fmt.Sprintf("owners%d", i))
			a := w.AddUser(t, realm, "Ann", store.RoleOwner)
			b := w.AddUser(t, realm, "Bob", store.RoleOwner)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			start := make(chan struct{})
			wg.Go(func() {
				<-start
				errs[0] = accounts.DeactivateUser(t.Context(), w.Svc, a.ID, b.ID, accounts.DeactivateUserRequest{})
			})
			wg.Go(func() {
				<-start
				errs[1] = accounts.DeactivateUser(t.Context(), other, b.ID, a.ID, accounts.DeactivateUserRequest{})
			})
			close(start)
			wg.Wait()
			active := 0
			for _, u := range []*store.User{a, b} {
				if w.User(t, u.ID).IsActive {
					active++
				}
			}
			is.Equal(active, 1)                           // never no owner, never both kept
			is.True((errs[0] == nil) != (errs[1] == nil)) // exactly one deactivation succeeded
		}
	})

	t.Run("two deliverers deliver each due message once", func(t *testing.T) {
		is := is.New(t)
		realm := w.AddRealm(t, "deliver")
		u := w.AddUser(t, realm, "Sam", store.RoleMember)
		ch := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{u}})
		const n = 20
		w.Write(t, func(ctx context.Context, tx store.Tx) error {
			for i := range n {
				err := tx.CreateScheduledMessage(ctx, &store.ScheduledMessage{RealmID: realm.ID, SenderID: u.ID,
					Kind: store.ScheduledSendLater, Type: store.MessageTypeStream, StreamID: ch.ID, Topic: "later",
					Content: fmt.Sprintf("due %d", i), RenderedContent: fmt.Sprintf("<p>due %d</p>", i),
					DeliverAt: w.Clock.Now().Add(-time.Minute)})
				if err != nil {
					return err
				}
			}
			return nil
		})
		var wg sync.WaitGroup
		delivered := make([]int, 2)
		for i, svc := range []*chatcore.Service{w.Svc, other} {
			wg.Go(func() {
				for range 3 {
					d, err := scheduled.DeliverDue(t.Context(), svc)
					is.NoErr(err) // delivery runs
					delivered[i] += d
				}
			})
		}
		wg.Wait()
		is.Equal(delivered[0]+delivered[1], n) // each row counted by one deliverer
		msgs := chattest.Read(t, sa, func(ctx context.Context, tx store.Tx) ([]store.Message, error) {
			return tx.Messages(ctx, store.MessageQuery{RealmID: realm.ID, Recipients: []store.RecipientID{ch.RecipientID}})
		})
		seen := map[string]int{}
		for _, m := range msgs {
			seen[m.Content]++
		}
		is.Equal(len(seen), n) // every message went out
		for c, k := range seen {
			if k != 1 {
				t.Errorf("%q sent %d times", c, k)
			}
		}
	})
}
