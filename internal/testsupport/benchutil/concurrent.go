package benchutil

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
)

// ConcurrentSettings measures accounts.UpdateSettings (a user changing their
// own color_scheme) with 1, 2, 4 and 8 writers at once, each writer a user
// of its own: "distinct-realms" puts every writer in a realm of its own,
// "one-realm" all of them in one realm. open returns a fresh, empty store.
// Each writer makes b.N/writers updates; updates/s is the throughput of all
// writers together.
func ConcurrentSettings(b *testing.B, open func(b *testing.B) chatcore.Store) {
	for _, layout := range []string{"distinct-realms", "one-realm"} {
		for _, writers := range []int{1, 2, 4, 8} {
			b.Run(fmt.Sprintf("%s/writers=%d", layout, writers), func(b *testing.B) {
				st := open(b)
				svc := chatcore.New(st)
				ctx := context.Background()
				users := make([]chatcore.UserID, writers)
				err := st.Update(ctx, func(tx chatcore.Tx) error {
					var realm *chatcore.Realm
					for i := range users {
						if realm == nil || layout == "distinct-realms" {
							realm = &chatcore.Realm{StringID: fmt.Sprintf("r%d", i), Name: "R"}
							if err := tx.CreateRealm(ctx, realm); err != nil {
								return err
							}
						}
						u := &chatcore.User{RealmID: realm.ID, Email: fmt.Sprintf("u%d@example.com", i), FullName: "U",
							Role: chatcore.RoleMember, IsActive: true, AvatarSource: "G",
							APIKeyHash: fmt.Sprintf("key%d", i), Settings: chatcore.DefaultSettings()}
						if err := tx.CreateUser(ctx, u); err != nil {
							return err
						}
						users[i] = u.ID
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				start := time.Now()
				var wg sync.WaitGroup
				errs := make(chan error, writers)
				for w, user := range users {
					n := b.N / writers
					if w < b.N%writers {
						n++
					}
					wg.Go(func() {
						for i := range n {
							v := 2 + i%2
							if err := accounts.UpdateSettings(ctx, svc, user, accounts.SettingsUpdate{ColorScheme: &v}); err != nil {
								errs <- err
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				close(errs)
				for err := range errs {
					b.Fatal(err)
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "updates/s")
			})
		}
	}
}
