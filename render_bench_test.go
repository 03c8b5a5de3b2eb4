package chatcore_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
)

// lockTimingStore measures the time spent inside Update's fn, that is, while
// the store's write lock is held.
type lockTimingStore struct {
	chatcore.Store
	held atomic.Int64 // nanoseconds
}

func (s *lockTimingStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error {
		start := time.Now()
		err := fn(tx)
		s.held.Add(int64(time.Since(start)))
		return err
	})
}

// BenchmarkSendWriteLock sends a 10 KB message on the SQLite store with no
// linkifiers and with 2,000, and reports lock-ns/op, the time the write
// transaction's fn ran: rendering happens before it, so the two should match.
func BenchmarkSendWriteLock(b *testing.B) {
	ctx := context.Background()
	var content strings.Builder
	for i := 0; content.Len() < chatcore.MaxMessageLength-40; i++ {
		fmt.Fprintf(&content, "see L%d-%d about **this** and `that`, ", i%2000, i)
	}
	for _, n := range []int{0, 2000} {
		b.Run(fmt.Sprintf("linkifiers=%d", n), func(b *testing.B) {
			w := chattest.New(b, chattest.OnStore(chattest.SQLite(b)))
			realm := w.AddRealm(b, "zulip")
			sender := w.AddUser(b, realm, "King Hamlet", chatcore.RoleMember)
			other := w.AddUser(b, realm, "Othello", chatcore.RoleMember)
			w.Write(b, func(ctx context.Context, tx chatcore.Tx) error {
				for i := range n {
					l := &chatcore.Linkifier{RealmID: realm.ID, Pattern: fmt.Sprintf("L%d-(?P<id>[0-9]+)", i),
						URLTemplate: "https://tracker.example/l" + fmt.Sprint(i) + "/{id}", Order: i}
					if err := tx.CreateLinkifier(ctx, l); err != nil {
						return err
					}
				}
				return nil
			})
			timed := &lockTimingStore{Store: w.Base}
			svc := chatcore.New(timed)
			req := chatcore.SendMessageRequest{Type: "private", To: new(fmt.Sprintf("[%d]", other.ID)), Content: content.String()}
			b.ResetTimer()
			for b.Loop() {
				if _, err := svc.SendMessage(ctx, sender.ID, req); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(timed.held.Load())/float64(b.N), "lock-ns/op")
		})
	}
}
