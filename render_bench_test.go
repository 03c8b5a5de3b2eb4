package chatcore_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
)

// lockTimingStore measures the time spent inside Update's fn, that is, while
// the store's write lock is held, and the size of the rendered HTML inserted.
type lockTimingStore struct {
	chatcore.Store
	held     atomic.Int64 // nanoseconds
	htmlSize atomic.Int64 // bytes of RenderedContent passed to CreateMessage
}

func (s *lockTimingStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.Update(ctx, func(tx chatcore.Tx) error {
		start := time.Now()
		err := fn(sizeRecordingTx{tx, s})
		s.held.Add(int64(time.Since(start)))
		return err
	})
}

// sizeRecordingTx records the size of the rendered HTML of the messages it
// inserts.
type sizeRecordingTx struct {
	chatcore.Tx
	s *lockTimingStore
}

func (t sizeRecordingTx) CreateMessage(ctx context.Context, m *chatcore.Message) error {
	t.s.htmlSize.Add(int64(len(m.RenderedContent)))
	return t.Tx.CreateMessage(ctx, m)
}

// BenchmarkSendWriteLock sends a 10 KB message (a direct message, and a
// channel message) on the SQLite store with no linkifiers and with 2,000, and
// reports lock-ns/op, the time the write transaction's fn ran, and html-B/op,
// the size of the rendered HTML it stored: rendering happens before the
// transaction, so lock-ns/op should not grow with the number of linkifiers
// beyond what storing the larger HTML costs.
func BenchmarkSendWriteLock(b *testing.B) {
	var content strings.Builder
	for i := 0; content.Len() < chatcore.MaxMessageLength-40; i++ {
		fmt.Fprintf(&content, "see L%d-%d about **this** and `that`, ", i%2000, i)
	}
	for _, kind := range []string{"private", "stream"} {
		for _, n := range []int{0, 2000} {
			b.Run(fmt.Sprintf("%s/linkifiers=%d", kind, n), func(b *testing.B) {
				benchmarkSendWriteLock(b, kind, n, content.String())
			})
		}
	}
}

// benchmarkSendWriteLock is one case of BenchmarkSendWriteLock: kind is the
// message type, n the number of the realm's linkifiers.
func benchmarkSendWriteLock(b *testing.B, kind string, n int, content string) {
	ctx := context.Background()
	w := chattest.New(b, chattest.OnStore(chattest.SQLite(b)))
	db := w.Base
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
	st := w.AddChannel(b, chattest.Channel{Realm: realm, Name: "Verona", Subscribers: []*chatcore.User{sender}})
	timed := &lockTimingStore{Store: db}
	svc := chatcore.New(timed)
	req := chatcore.SendMessageRequest{Type: "private", To: new(fmt.Sprintf("[%d]", other.ID)), Content: content}
	if kind == "stream" {
		req = chatcore.SendMessageRequest{Type: "stream", To: new(st.Name), Topic: new("t"), Content: content}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := svc.SendMessage(ctx, sender.ID, req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(timed.held.Load())/float64(b.N), "lock-ns/op")
	b.ReportMetric(float64(timed.htmlSize.Load())/float64(b.N), "html-B/op")
}
