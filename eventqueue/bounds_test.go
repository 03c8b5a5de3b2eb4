package eventqueue_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// countingStore counts the transactions run on the store it wraps.
type countingStore struct {
	chatcore.Store
	txs atomic.Int32
}

func (s *countingStore) Update(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.txs.Add(1)
	return s.Store.Update(ctx, fn)
}

func (s *countingStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	s.txs.Add(1)
	return s.Store.View(ctx, fn)
}

// queueCount returns how many queues the store holds for user (0: all).
func queueCount(t *testing.T, w *chattest.World, user chatcore.UserID) int {
	t.Helper()
	var n int
	err := w.Store.View(context.Background(), func(tx chatcore.Tx) error {
		var err error
		n, err = tx.CountEventQueues(context.Background(), chatcore.EventQueueFilter{UserID: user})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func pollNow(hub *eventqueue.Hub, u *chatcore.User, id string) error {
	last := int64(-1)
	_, err := hub.Poll(context.Background(), u.ID, eventqueue.PollRequest{QueueID: id, LastEventID: &last, DontBlock: true})
	return err
}

func TestRegisterPastTheUserLimitDeletesTheQueueIdleLongest(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{MaxQueuesPerUser: 3})
		var ids []string
		for range 3 {
			ids = append(ids, s.register(t, s.c.Member))
			s.w.Clock.Advance(time.Minute)
		}
		is.NoErr(pollNow(s.hub, s.c.Member, ids[0])) // the first queue is polled: now the second is idle longest
		s.w.Clock.Advance(time.Minute)
		ids = append(ids, s.register(t, s.c.Member))
		is.Equal(queueCount(t, s.w, s.c.Member.ID), 3)                     // still three queues
		is.True(eventqueue.IsBadQueue(pollNow(s.hub, s.c.Member, ids[1]))) // the one idle longest is gone
		for _, id := range []string{ids[0], ids[2], ids[3]} {
			is.NoErr(pollNow(s.hub, s.c.Member, id)) // the others live on
		}
		s.register(t, s.c.Owner)
		is.Equal(queueCount(t, s.w, s.c.Owner.ID), 1) // another user's queues are not touched
	})
}

func TestRegisterPastTheUserLimitAnswersThePollOfTheDeletedQueue(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{MaxQueuesPerUser: 1})
		first := s.register(t, s.c.Member)
		ch := s.pollAsync(s.c.Member, first, -1)
		waiting(t, s.hub, 1)
		s.register(t, s.c.Member)
		r := wait(t, ch)
		is.True(eventqueue.IsBadQueue(r.err)) // the waiting poll learns at once that its queue is gone
	})
}

func TestRegisterPastTheRealmLimitIsRefused(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{MaxQueuesPerRealm: 2})
		member := s.register(t, s.c.Member)
		s.register(t, s.c.Owner)
		_, err := s.hub.Register(context.Background(), s.c.Member.ID, eventqueue.RegisterRequest{Sections: []string{}, Queue: &eventqueue.QueueOptions{}})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid,
			"Too many event queues in this organization (limit: 2); try again later")
		is.Equal(queueCount(t, s.w, 0), 2)                                  // nothing was created
		is.NoErr(s.hub.Delete(context.Background(), s.c.Member.ID, member)) // a queue goes away
		s.register(t, s.c.Member)                                           // and there is room again
	})
}

func TestQueueArgumentsAreBoundedBeforeTheStore(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		counting := &countingStore{}
		w := open(t, chattest.Wrap(func(base chatcore.Store) chatcore.Store { counting.Store = base; return counting }))
		c := w.SeedCast(t)
		hub := eventqueue.New(w.Svc, eventqueue.Options{})
		t.Cleanup(hub.Close)
		terms := func(n int, op, operand string) [][]string {
			out := make([][]string, n)
			for i := range out {
				out[i] = []string{op, operand}
			}
			return out
		}
		for _, tc := range []struct {
			name string
			opts eventqueue.QueueOptions
			msg  string
		}{
			{"topic", eventqueue.QueueOptions{Narrow: terms(1, "topic", strings.Repeat("y", 61))},
				"Invalid narrow operand for topic: too long (limit: 60 characters)"},
			{"huge topic", eventqueue.QueueOptions{Narrow: terms(1, "topic", strings.Repeat("y", 100000))},
				"Invalid narrow operand for topic: too long (limit: 60 characters)"},
			{"channel", eventqueue.QueueOptions{Narrow: terms(1, "channel", strings.Repeat("é", 61))},
				"Invalid narrow operand for channel: too long (limit: 60 characters)"},
			{"sender", eventqueue.QueueOptions{Narrow: terms(1, "sender", strings.Repeat("a", 250)+"@x.io")},
				"Invalid narrow operand for sender: too long (limit: 254 characters)"},
			{"is", eventqueue.QueueOptions{Narrow: terms(1, "is", strings.Repeat("s", 33))},
				"Invalid narrow operand for is: too long (limit: 32 characters)"},
			{"terms", eventqueue.QueueOptions{Narrow: terms(chatcore.MaxNarrowTerms+1, "topic", "t")},
				"narrow is too long (limit: 100 items)"},
			{"operator", eventqueue.QueueOptions{Narrow: terms(1, strings.Repeat("o", 1000), "x")},
				"Operator " + strings.Repeat("o", 64) + "... not supported."},
			{"event types", eventqueue.QueueOptions{EventTypes: make([]string, chatcore.MaxEventTypes+1)},
				"event_types is too long (limit: 1000 items)"},
			{"stored size", eventqueue.QueueOptions{Narrow: terms(chatcore.MaxNarrowTerms, "sender", strings.Repeat("\x01", 250))},
				"Event queue options too large (limit: 32768 bytes)"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				is := is.New(t)
				before := counting.txs.Load()
				opts := tc.opts
				_, err := hub.Register(context.Background(), c.Member.ID, eventqueue.RegisterRequest{Sections: []string{}, Queue: &opts})
				chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
				is.Equal(counting.txs.Load(), before) // refused before any store access
			})
		}
		t.Run("within the bounds", func(t *testing.T) {
			is := is.New(t)
			narrow := append(terms(chatcore.MaxNarrowTerms-1, "topic", strings.Repeat("é", 60)), []string{"is", "dm"})
			st, err := hub.Register(context.Background(), c.Member.ID, eventqueue.RegisterRequest{Sections: []string{},
				Queue: &eventqueue.QueueOptions{Narrow: narrow, EventTypes: []string{"message", "no_such_type", "message", "typing"}, Lifespan: 30 * 24 * time.Hour}})
			is.NoErr(err) // the largest narrow allowed is accepted, with unknown event types
			var q *chatcore.EventQueue
			is.NoErr(w.Store.View(context.Background(), func(tx chatcore.Tx) error {
				q, err = tx.EventQueue(context.Background(), st.QueueID)
				return err
			}))
			var stored struct {
				EventTypes []string   `json:"event_types"`
				Narrow     [][]string `json:"narrow"`
			}
			is.NoErr(json.Unmarshal(q.Params, &stored))
			is.Equal(stored.EventTypes, []string{"message", "typing"}) // unknown and repeated names are not stored
			is.Equal(len(stored.Narrow), chatcore.MaxNarrowTerms)      // the narrow is kept whole
			is.Equal(q.Lifespan, eventqueue.MaxQueueLifespan)          // the lifespan is clamped
		})
		t.Run("unknown event types only", func(t *testing.T) {
			is := is.New(t)
			unknown := chattest.RegisterOn(t, hub, c.Member, eventqueue.QueueOptions{EventTypes: []string{"no_such_type"}})
			mixed := chattest.RegisterOn(t, hub, c.Member, eventqueue.QueueOptions{EventTypes: []string{"no_such_type", "message"}})
			w.SendDM(t, c.Owner, "hi", c.Member)
			is.Equal(len(unknown.Poll(t)), 0)                                 // a queue of unknown types only receives no event, as Zulip's
			is.Equal(chattest.EventTypes(mixed.Poll(t)), []string{"message"}) // the known type still selects its events
		})
	})
}
