package chatcore_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store/memory"
)

// BenchmarkSendToChannel measures a library-level send to a channel with 10,
// 1,000 and 10,000 subscribers. Flags are derived for subscribers, so the
// send writes no row per subscriber; the cost that grows with the channel is
// reading its subscriptions for the message event.
func BenchmarkSendToChannel(b *testing.B) {
	stores := []struct {
		name string
		open func(tb testing.TB) chatcore.Store
	}{
		{"memory", func(testing.TB) chatcore.Store { return memory.New() }},
		{"sqlite", func(tb testing.TB) chatcore.Store { return openSQLite(tb) }},
	}
	for _, st := range stores {
		for _, n := range []int{10, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/subscribers=%d", st.name, n), func(b *testing.B) {
				store := st.open(b)
				seed := chattest.New(b, chattest.OnStore(store))
				realm := seed.AddRealm(b, "bench")
				sender := seed.AddUser(b, realm, "sender", chatcore.RoleMember)
				stream := &chatcore.Stream{RealmID: realm.ID, Name: "big", HistoryPublicToSubscribers: true}
				chattest.Write(b, store, func(ctx context.Context, tx chatcore.Tx) error {
					if err := tx.CreateStream(ctx, stream); err != nil {
						return err
					}
					if err := tx.PutSubscription(ctx, chatcore.Subscription{StreamID: stream.ID, UserID: sender.ID, Active: true}); err != nil {
						return err
					}
					for i := 1; i < n; i++ {
						u := &chatcore.User{RealmID: realm.ID, Email: fmt.Sprintf("u%d@bench.test", i), FullName: fmt.Sprintf("User %d", i),
							Role: chatcore.RoleMember, IsActive: true, AvatarSource: "G", APIKeyHash: fmt.Sprintf("k%d", i),
							Settings: chatcore.DefaultSettings()}
						if err := tx.CreateUser(ctx, u); err != nil {
							return err
						}
						if err := tx.PutSubscription(ctx, chatcore.Subscription{StreamID: stream.ID, UserID: u.ID, Active: true}); err != nil {
							return err
						}
					}
					return nil
				})
				svc := chatcore.New(store)
				req := chatcore.SendMessageRequest{Type: "stream", To: new("big"), Topic: new("t"), Content: "hello **world**", Client: "website"}
				for b.Loop() {
					if _, err := svc.SendMessage(context.Background(), sender.ID, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
