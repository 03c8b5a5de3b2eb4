package eventqueue_test

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
)

// benchOrg is a realm with n users, all subscribed to one channel, and a
// sender who is not.
type benchOrg struct {
	w       *chattest.World
	sender  chatcore.UserID
	users   []chatcore.UserID
	channel *chatcore.Stream
}

// newBenchOrg builds the org in one transaction on a store of the kind.
func newBenchOrg(b *testing.B, store func(testing.TB) chatcore.Store, n int) *benchOrg {
	b.Helper()
	w := chattest.New(b, chattest.OnStore(store(b)), chattest.With(chatcore.WithClock(chatcore.ClockFunc(time.Now))))
	o := &benchOrg{w: w}
	realm := &chatcore.Realm{StringID: "bench", Name: "Bench", DateCreated: chattest.Epoch}
	o.channel = &chatcore.Stream{Name: "all", DateCreated: chattest.Epoch, HistoryPublicToSubscribers: true}
	w.Write(b, func(ctx context.Context, tx chatcore.Tx) error {
		if err := tx.CreateRealm(ctx, realm); err != nil {
			return err
		}
		o.channel.RealmID = realm.ID
		if err := tx.CreateStream(ctx, o.channel); err != nil {
			return err
		}
		for i := range n + 1 {
			email := fmt.Sprintf("u%d@bench.test", i)
			u := &chatcore.User{RealmID: realm.ID, Email: email, FullName: "User " + email, Role: chatcore.RoleMember,
				IsActive: true, APIKeyHash: chatcore.HashAPIKey(benchKey(i)), AvatarSource: "G",
				DateJoined: chattest.Epoch, Settings: chatcore.DefaultSettings()}
			if err := tx.CreateUser(ctx, u); err != nil {
				return err
			}
			if i == 0 {
				o.sender = u.ID
				continue
			}
			o.users = append(o.users, u.ID)
			if err := tx.PutSubscription(ctx, chatcore.Subscription{StreamID: o.channel.ID, UserID: u.ID, Active: true}); err != nil {
				return err
			}
		}
		return nil
	})
	return o
}

// benchKey is the API key of the i-th bench user (32 characters).
func benchKey(i int) string { return fmt.Sprintf("benchkey%024d", i) }

// poller keeps one long-poll waiting on a user's queue and reports when
// each is answered.
type poller struct {
	user  chatcore.UserID
	queue string
	last  int64
}

func (o *benchOrg) register(b *testing.B, hub *eventqueue.Hub, user chatcore.UserID) *poller {
	b.Helper()
	st, err := hub.Register(context.Background(), user, eventqueue.RegisterRequest{Sections: []string{}, Queue: &eventqueue.QueueOptions{EventTypes: []string{"message"}}})
	if err != nil {
		b.Fatal(err)
	}
	return &poller{user: user, queue: st.QueueID, last: -1}
}

// poll waits for the next events and returns when they came.
func (p *poller) poll(ctx context.Context, hub *eventqueue.Hub) (time.Time, int, error) {
	evs, err := hub.Poll(ctx, p.user, eventqueue.PollRequest{QueueID: p.queue, LastEventID: &p.last})
	at := time.Now()
	for _, e := range evs {
		p.last = max(p.last, e.ID)
	}
	return at, len(evs), err
}

var benchStores = []struct {
	name string
	open func(testing.TB) chatcore.Store
}{{"memory", chattest.Memory}, {"sqlite", chattest.SQLite}}

// BenchmarkWakeLatency measures, with 1,000 queues each with a waiting
// poll, the time from the commit of a direct message to the answer of its
// recipient's waiting poll (p50 and p99 over b.N messages).
func BenchmarkWakeLatency(b *testing.B) {
	for _, k := range benchStores {
		b.Run(k.name, func(b *testing.B) {
			o := newBenchOrg(b, k.open, 1000)
			hub := eventqueue.New(o.w.Svc, eventqueue.Options{})
			defer hub.Close()
			var commitMu sync.Mutex
			var committed time.Time
			stop := o.w.Svc.OnEventsCommitted(func([]chatcore.EventNotice) {
				commitMu.Lock()
				committed = time.Now()
				commitMu.Unlock()
			})
			defer stop()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			answered := make([]chan time.Time, len(o.users))
			rearm := make([]chan struct{}, len(o.users))
			var wg sync.WaitGroup
			for i, u := range o.users {
				p := o.register(b, hub, u)
				answered[i], rearm[i] = make(chan time.Time, 1), make(chan struct{}, 1)
				wg.Go(func() {
					for ctx.Err() == nil {
						at, n, err := p.poll(ctx, hub)
						if err != nil {
							return
						}
						if n > 0 {
							answered[i] <- at
							select {
							case <-rearm[i]:
							case <-ctx.Done():
								return
							}
						}
					}
				})
			}
			time.Sleep(200 * time.Millisecond) // let every poll start waiting
			lat := make([]time.Duration, 0, b.N)
			i := 0
			for b.Loop() {
				target := i % len(o.users)
				i++
				to := fmt.Sprintf("[%d]", o.users[target])
				if _, err := o.w.Svc.SendMessage(ctx, o.sender, chatcore.SendMessageRequest{Type: "private", To: &to, Content: "ping"}); err != nil {
					b.Fatal(err)
				}
				at := <-answered[target]
				commitMu.Lock()
				lat = append(lat, at.Sub(committed))
				commitMu.Unlock()
				rearm[target] <- struct{}{}
			}
			b.StopTimer()
			cancel()
			wg.Wait()
			if debugLat {
				for j, d := range lat {
					if d > 5*time.Millisecond {
						b.Logf("iteration %d: %v", j, d)
					}
				}
			}
			reportPercentiles(b, lat)
		})
	}
}

var debugLat = false

// reportPercentiles reports p50 and p99 of d in microseconds.
func reportPercentiles(b *testing.B, d []time.Duration) {
	if len(d) == 0 {
		return
	}
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(d[min(len(d)-1, len(d)*99/100)].Microseconds()), "p99-µs")
}

// BenchmarkFanOut sends one message to a channel of 1,000 subscribers, each
// with a waiting poll, and measures the time until all 1,000 polls are
// answered, with the allocations per delivered event.
func BenchmarkFanOut(b *testing.B) {
	for _, k := range benchStores {
		b.Run(k.name, func(b *testing.B) {
			o := newBenchOrg(b, k.open, 1000)
			hub := eventqueue.New(o.w.Svc, eventqueue.Options{})
			defer hub.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			pollers := make([]*poller, len(o.users))
			for i, u := range o.users {
				pollers[i] = o.register(b, hub, u)
			}
			topic := "fan"
			var allocs uint64
			var delivered int
			for b.Loop() {
				b.StopTimer()
				var started, done sync.WaitGroup
				for _, p := range pollers {
					started.Add(1)
					done.Go(func() {
						started.Done()
						for {
							_, n, err := p.poll(ctx, hub)
							if err != nil || n > 0 {
								return
							}
						}
					})
				}
				started.Wait()
				time.Sleep(100 * time.Millisecond) // every poll waiting
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				b.StartTimer()
				if _, err := o.w.Svc.SendMessage(ctx, o.sender, chatcore.SendMessageRequest{Type: "stream", To: &o.channel.Name, Topic: &topic, Content: "to everyone"}); err != nil {
					b.Fatal(err)
				}
				done.Wait()
				b.StopTimer()
				runtime.ReadMemStats(&after)
				allocs += after.Mallocs - before.Mallocs
				delivered += len(pollers)
				b.StartTimer()
			}
			b.ReportMetric(float64(allocs)/float64(delivered), "allocs/event")
		})
	}
}

// BenchmarkIdleQueues registers 10,000 queues (100 users, 100 each) nobody
// polls, and reports the time per registration and the heap in use with
// all of them registered.
func BenchmarkIdleQueues(b *testing.B) {
	for _, k := range benchStores {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				o := newBenchOrg(b, k.open, 100)
				hub := eventqueue.New(o.w.Svc, eventqueue.Options{})
				b.StartTimer()
				start := time.Now()
				for i := range 10000 {
					o.register(b, hub, o.users[i%len(o.users)])
				}
				perQueue := time.Since(start) / 10000
				b.StopTimer()
				runtime.GC()
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
				b.ReportMetric(float64(perQueue.Microseconds()), "µs/register")
				hub.Close()
				b.StartTimer()
			}
		})
	}
}
