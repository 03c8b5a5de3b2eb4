package webhooks_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/testsupport/pgtest"
	"github.com/chatcore/chatcore/internal/testsupport/sqlitetest"
	"github.com/chatcore/chatcore/internal/testsupport/syncbuf"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/chatcore/chatcore/store/postgres"
	"github.com/chatcore/chatcore/store/sqlite"
	"github.com/chatcore/chatcore/webhooks"
	"github.com/matryer/is"
)

// reopenable opens the same database again each time it is called: a
// process restarting on it. The store it returns is closed when the test ends
// unless the caller closed it first.
type reopenable func(t *testing.T) chatcore.Store

// durableStores are the stores a delivery may outlive a process on: the
// memory store stands for one whose process keeps it (the Service alone
// stops).
func durableStores(t *testing.T) map[string]reopenable {
	path := sqlitetest.Path(t)
	mem := memory.New()
	stores := map[string]reopenable{
		"memory": func(*testing.T) chatcore.Store { return mem },
		"sqlite": func(t *testing.T) chatcore.Store {
			st, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		},
	}
	var url, schema string
	stores["postgres"] = func(t *testing.T) chatcore.Store {
		if url == "" {
			url, schema = pgtest.Schema(t) // skips the test without PostgreSQL
		}
		{
			st, err := postgres.Open(context.Background(), url, postgres.WithSchema(schema), postgres.WithMaxConns(4))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		}
	}
	return stores
}

// storedDeliveries returns the deliveries the store holds.
func storedDeliveries(t *testing.T, st chatcore.Store) []chatcore.WebhookDelivery {
	t.Helper()
	return chattest.Read(t, st, func(ctx context.Context, tx chatcore.Tx) ([]chatcore.WebhookDelivery, error) {
		return tx.WebhookDeliveries(ctx, chatcore.WebhookDeliveryFilter{})
	})
}

// webhookWorldOn builds a World on st, its clock at at, with opts; seed
// stores the realm of newWebhookWorld first.
func webhookWorldOn(t *testing.T, st chatcore.Store, at time.Time, services botServices, opts ...chatcore.Option) (*chattest.World, *syncbuf.Buffer) {
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	w := chattest.New(t, chattest.OnStore(st), chattest.At(at), chattest.ExternalURL("https://chat.example.test"),
		chattest.With(append(opts, chatcore.WithLogger(log))...))
	if services != nil {
		seedWebhookWorld(t, w, services)
	}
	return w, logs
}

// until waits for cond, failing the test after 10 s.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting: %s", what)
		}
	}
}

func TestDeliveryPendingAtCrashIsDeliveredOnceAfterRestart(t *testing.T) {
	for name, open := range durableStores(t) {
		t.Run(name, func(t *testing.T) {
			is := is.New(t)
			var calls atomic.Int32
			rec := newRecorder(t, func(*http.Request) (int, string) {
				calls.Add(1)
				return 200, `{"content": "pong"}`
			})
			start := time.Unix(1767225600, 0)
			first := open(t)
			// The first process stores deliveries with each message and
			// stops before delivering any: a crash right after the commit.
			w1, _ := webhookWorldOn(t, first, start, botServices{echoBot: generic(rec.srv.URL), secondBot: generic(rec.srv.URL)},
				chatcore.WithWebhookOutbox())
			id := sendChannel(t, w1, mark, "t", "@**Echo Bot** @**Second Bot** ping")
			is.Equal(len(storedDeliveries(t, first)), 2) // stored with the message, one per bot
			if name != "memory" {
				is.NoErr(first.Close()) // the process is gone
			}

			o := fast()
			o.ResumeEvery, o.ResumeAfter = 10*time.Millisecond, 30*time.Second
			second := open(t)
			w2, logs := webhookWorldOn(t, second, start.Add(time.Minute), nil, webhooks.Delivery(o))
			until(t, "both deliveries are made and answered", func() bool {
				return calls.Load() == 2 && len(messagesAfter(t, w2, id)) == 2
			})
			time.Sleep(100 * time.Millisecond) // ten more resume passes
			drain(t, w2)
			is.Equal(calls.Load(), int32(2)) // each delivery made once
			replies := messagesAfter(t, w2, id)
			is.Equal(len(replies), 2) // each bot replied once
			for _, m := range replies {
				is.Equal(m.Content, "pong") // with the integration's answer
			}
			is.Equal(len(storedDeliveries(t, second)), 0)                            // nothing left stored
			is.True(strings.Contains(logs.String(), "resuming an outgoing webhook")) // the resume is logged
		})
	}
}

// claimAttempts records attempts of the stored delivery of message id to bot
// as started: a process that made them stopped before their outcome.
func claimAttempts(t *testing.T, st chatcore.Store, id chatcore.MessageID, bot chatcore.UserID, n int) {
	t.Helper()
	for _, d := range storedDeliveries(t, st) {
		if d.MessageID != id || d.BotID != bot {
			continue
		}
		err := st.Update(context.Background(), func(tx chatcore.Tx) error {
			for a := 1; a <= n; a++ {
				if ok, err := tx.ClaimWebhookAttempt(context.Background(), d.ID, a, d.AttemptedAt); err != nil || !ok {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("no stored delivery of message %d to bot %d", id, bot)
}

func TestResumedDeliveryKeepsTheAttemptPolicy(t *testing.T) {
	is := is.New(t)
	var echoCalls, secondCalls atomic.Int32
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/second" {
			secondCalls.Add(1)
		} else {
			echoCalls.Add(1)
		}
		conn, _, _ := w.(http.Hijacker).Hijack() // no answer: a connection error
		conn.Close()
	}))
	t.Cleanup(down.Close)
	st := memory.New()
	start := time.Unix(1767225600, 0)
	w1, _ := webhookWorldOn(t, st, start, botServices{echoBot: generic(down.URL + "/echo"), secondBot: generic(down.URL + "/second")},
		chatcore.WithWebhookOutbox())
	id := sendChannel(t, w1, mark, "t", "@**Echo Bot** @**Second Bot** ping")
	claimAttempts(t, st, id, echoBot, 1)   // the echo bot's first attempt started before the crash
	claimAttempts(t, st, id, secondBot, 4) // every attempt of the second bot's did

	o := fast()
	o.ResumeEvery, o.ResumeAfter = 10*time.Millisecond, 30*time.Second
	w2, logs := webhookWorldOn(t, st, start.Add(time.Minute), nil, webhooks.Delivery(o))
	until(t, "the echo bot's failure notice", func() bool {
		ms := messagesAfter(t, w2, id)
		return len(ms) > 0 && ms[0].Content == "Failure! Bot is unavailable"
	})
	until(t, "nothing left stored", func() bool { return len(storedDeliveries(t, st)) == 0 })
	drain(t, w2)
	is.Equal(echoCalls.Load(), int32(3))   // the three attempts left of four
	is.Equal(secondCalls.Load(), int32(0)) // none left: not called again
	inTopic, _ := conversationAfter(t, w2, id)
	is.Equal(len(inTopic), 1)                                                              // one failure notice, the echo bot's
	is.True(strings.Contains(logs.String(), "every attempt was started before a restart")) // the second bot's delivery is dropped with a warning
}

func TestResumingProcessesMakeEachAttemptOnce(t *testing.T) {
	is := is.New(t)
	var calls atomic.Int32
	rec := newRecorder(t, func(*http.Request) (int, string) {
		calls.Add(1)
		time.Sleep(20 * time.Millisecond)
		return 200, `{"content": "pong"}`
	})
	st := memory.New()
	start := time.Unix(1767225600, 0)
	w1, _ := webhookWorldOn(t, st, start, botServices{echoBot: generic(rec.srv.URL)}, chatcore.WithWebhookOutbox())
	var ids []chatcore.MessageID
	for range 20 {
		ids = append(ids, sendChannel(t, w1, mark, "t", "@**Echo Bot** ping"))
	}
	o := fast()
	o.ResumeEvery, o.ResumeAfter = time.Millisecond, 30*time.Second
	var workers []*chattest.World
	for range 3 { // three processes on one database resume at once
		w, _ := webhookWorldOn(t, st, start.Add(time.Minute), nil, webhooks.Delivery(o))
		workers = append(workers, w)
	}
	until(t, "every delivery finished", func() bool { return len(storedDeliveries(t, st)) == 0 })
	for _, w := range workers {
		drain(t, w)
	}
	is.Equal(calls.Load(), int32(20))                          // each delivery made once
	is.Equal(len(messagesAfter(t, workers[0], ids[0])), 19+20) // the later pings and one reply each
}
