package presence_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/presence"
)

// presenceBench is a SQLite realm of n users who have all reported once.
func presenceBench(b *testing.B, n int) (*chattest.World, []chatcore.UserID) {
	store := chattest.SQLite(b)
	w := chattest.New(b, chattest.OnStore(store))
	realm := w.AddRealm(b, "bench")
	ids := make([]chatcore.UserID, n)
	chattest.Write(b, store, func(ctx context.Context, tx chatcore.Tx) error {
		for i := range ids {
			u := &chatcore.User{RealmID: realm.ID, Email: fmt.Sprintf("u%d@bench.test", i), FullName: fmt.Sprintf("User %d", i),
				Role: chatcore.RoleMember, IsActive: true, AvatarSource: "G", APIKeyHash: fmt.Sprintf("k%d", i),
				Settings: chatcore.DefaultSettings(), DateJoined: chattest.Epoch}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			ids[i] = u.ID
		}
		return nil
	})
	for _, id := range ids {
		if _, err := presence.Update(context.Background(), w.Svc, id, presence.UpdateRequest{Status: "active", PingOnly: new(true)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Svc.FlushPresence(context.Background()); err != nil {
		b.Fatal(err)
	}
	return w, ids
}

// busyWriter keeps the store's single writer busy with transactions that
// hold it for hold each, until the returned stop is called.
func busyWriter(store chatcore.Store, hold time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			_ = store.Update(context.Background(), func(chatcore.Tx) error { time.Sleep(hold); return nil })
		}
	})
	time.Sleep(10 * time.Millisecond) // let it take the writer
	return func() { close(done); wg.Wait() }
}

// BenchmarkPresencePing measures POST /users/me/presence at the library
// level on SQLite with 1,000 users, each of whom reported once: a ping_only
// report, and a report answering the modern format since the latest update
// id (what the web app sends every minute), each with the writer idle and
// with the writer held by 50 ms transactions back to back. "direct-write"
// is the alternative the buffer avoids: one write transaction per report.
func BenchmarkPresencePing(b *testing.B) {
	for _, busy := range []bool{false, true} {
		for _, mode := range []string{"ping_only", "since_last_update_id", "direct-write"} {
			b.Run(fmt.Sprintf("writer_busy=%v/%s", busy, mode), func(b *testing.B) {
				w, ids := presenceBench(b, 1000)
				last := int64(0)
				if st, err := eventqueue.Register(b.Context(), w.Svc, ids[0], eventqueue.RegisterRequest{Sections: []string{"presence"}}); err == nil {
					last = st.Presence.LastUpdateID
				}
				if busy {
					defer busyWriter(w.Store, 50*time.Millisecond)()
				}
				var i atomic.Int64
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						id := ids[int(i.Add(1))%len(ids)]
						var err error
						switch mode {
						case "ping_only":
							_, err = presence.Update(context.Background(), w.Svc, id, presence.UpdateRequest{Status: "active", PingOnly: new(true)})
						case "since_last_update_id":
							_, err = presence.Update(context.Background(), w.Svc, id, presence.UpdateRequest{Status: "active", LastUpdateID: new(last)})
						case "direct-write":
							err = w.Store.Update(context.Background(), func(tx chatcore.Tx) error {
								return tx.PutPresences(context.Background(), 1, []chatcore.Presence{{UserID: id, LastConnected: chattest.Epoch}})
							})
						}
						if err != nil {
							b.Error(err)
						}
					}
				})
				b.StopTimer()
				if err := w.Svc.FlushPresence(context.Background()); err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}

// BenchmarkPresenceFlush measures writing one batch of reports of 1,000
// users (what the buffer writes per interval in a busy realm); the reports
// are one minute apart, so every row changes. The reports are not timed.
func BenchmarkPresenceFlush(b *testing.B) {
	w, ids := presenceBench(b, 1000)
	for b.Loop() {
		b.StopTimer()
		w.Clock.Advance(time.Minute)
		for _, id := range ids {
			if _, err := presence.Update(context.Background(), w.Svc, id, presence.UpdateRequest{Status: "idle", PingOnly: new(true)}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		if err := w.Svc.FlushPresence(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
