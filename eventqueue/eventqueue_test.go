package eventqueue_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// setup is a realm whose member and owner share the channel general.
type setup struct {
	w       *chattest.World
	c       *chattest.Cast
	hub     *eventqueue.Hub
	general *chatcore.Stream
}

func newSetup(t *testing.T, open chattest.Open, opts eventqueue.Options) *setup {
	w := open(t)
	c := w.SeedCast(t)
	s := &setup{w: w, c: c, hub: eventqueue.New(w.Svc, opts)}
	t.Cleanup(s.hub.Close)
	s.general = w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{c.Owner, c.Member}})
	return s
}

func (s *setup) register(t *testing.T, u *chatcore.User) string {
	t.Helper()
	st, err := s.hub.Register(context.Background(), u.ID, eventqueue.RegisterRequest{Sections: []string{}, Queue: &eventqueue.QueueOptions{}})
	if err != nil {
		t.Fatalf("register: %v", err)
	}
	return st.QueueID
}

// result is the outcome of a Poll run in a goroutine.
type result struct {
	events []eventqueue.QueueEvent
	err    error
}

func (s *setup) pollAsync(u *chatcore.User, id string, last int64) <-chan result {
	ch := make(chan result, 1)
	go func() {
		evs, err := s.hub.Poll(context.Background(), u.ID, eventqueue.PollRequest{QueueID: id, LastEventID: &last})
		ch <- result{evs, err}
	}()
	return ch
}

// waiting waits until n polls wait in hub.
func waiting(t *testing.T, hub *eventqueue.Hub, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); hub.Waiting() != n; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d polls waiting, want %d", hub.Waiting(), n)
		}
	}
}

func wait(t *testing.T, ch <-chan result) result {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("the poll was not answered")
	}
	return result{}
}

func TestPollWaitsForEvents(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{})
		id := s.register(t, s.c.Member)
		ch := s.pollAsync(s.c.Member, id, -1)
		waiting(t, s.hub, 1)
		select {
		case <-ch:
			t.Fatal("a poll with nothing queued answered at once")
		default:
		}
		s.w.Send(t, s.c.Owner, s.general, "t", "wake up")
		r := wait(t, ch)
		is.NoErr(r.err)                       // answered
		is.Equal(len(r.events), 1)            // with the message
		is.Equal(r.events[0].Type, "message") // a message event

		last := r.events[0].ID
		evs, err := s.hub.Poll(context.Background(), s.c.Member.ID, eventqueue.PollRequest{QueueID: id, LastEventID: &last, DontBlock: true})
		is.NoErr(err)         // dont_block answers at once
		is.Equal(len(evs), 0) // with nothing
	})
}

func TestSecondPollAnswersTheFirst(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{})
		id := s.register(t, s.c.Member)
		first := s.pollAsync(s.c.Member, id, -1)
		waiting(t, s.hub, 1)
		second := s.pollAsync(s.c.Member, id, -1)
		r := wait(t, first)
		waiting(t, s.hub, 1)       // the second poll waits in its place
		is.NoErr(r.err)            // the first poll is answered
		is.Equal(len(r.events), 0) // with what there is: nothing
		s.w.Send(t, s.c.Owner, s.general, "t", "hi")
		r = wait(t, second)
		is.NoErr(r.err)            // the second poll took over
		is.Equal(len(r.events), 1) // and gets the message
	})
}

func TestHeartbeat(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{HeartbeatMin: 20 * time.Millisecond, HeartbeatMax: 30 * time.Millisecond})
		id := s.register(t, s.c.Member)
		r := wait(t, s.pollAsync(s.c.Member, id, -1))
		is.NoErr(r.err)                         // answered
		is.Equal(len(r.events), 1)              // with one event
		is.Equal(r.events[0].Type, "heartbeat") // a heartbeat
		var hb map[string]any
		is.NoErr(json.Unmarshal(r.events[0].JSON, &hb))                                  // JSON
		is.Equal(hb, map[string]any{"type": "heartbeat", "id": float64(r.events[0].ID)}) // Zulip's shape
		// Acknowledging the heartbeat is fine, and the next heartbeat's id
		// is higher.
		r2 := wait(t, s.pollAsync(s.c.Member, id, r.events[0].ID))
		is.NoErr(r2.err)                          // the heartbeat id is accepted
		is.True(r2.events[0].ID > r.events[0].ID) // ids increase
		s.w.Send(t, s.c.Owner, s.general, "t", "after the heartbeats")
		r3 := wait(t, s.pollAsync(s.c.Member, id, r2.events[0].ID))
		is.NoErr(r3.err)                           // answered
		is.Equal(r3.events[0].Type, "message")     // the message follows
		is.True(r3.events[0].ID > r2.events[0].ID) // with a higher id still
	})
}

func TestDeleteAnswersWaitingPoll(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{})
		id := s.register(t, s.c.Member)
		ch := s.pollAsync(s.c.Member, id, -1)
		waiting(t, s.hub, 1)
		is.NoErr(s.hub.Delete(context.Background(), s.c.Member.ID, id)) // deleted
		r := wait(t, ch)
		is.True(eventqueue.IsBadQueue(r.err)) // the waiting poll learns the queue is gone
	})
}

func TestGoAPI(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		q, err := s.hub.Open(ctx, s.c.Member.ID, eventqueue.RegisterRequest{Sections: []string{"message"}, Queue: &eventqueue.QueueOptions{EventTypes: []string{"message"}}})
		is.NoErr(err)                        // opened
		is.True(q.State.MaxMessageID != nil) // with the state asked for
		go func() {                          // errors show as a missing message
			for i := range 3 {
				s.w.Svc.SendMessage(ctx, s.c.Owner.ID, chatcore.SendMessageRequest{ //nolint:errcheck
					Type: "stream", To: new("general"), Topic: new("t"), Content: "m" + string(rune('0'+i))})
			}
		}()
		var got []string
		for ev, err := range q.Events(ctx) {
			is.NoErr(err) // no error
			var m struct {
				Message struct {
					Content string `json:"content"`
				} `json:"message"`
			}
			is.NoErr(ev.Decode(&m)) // a message event
			got = append(got, m.Message.Content)
			if len(got) == 3 {
				break
			}
		}
		is.Equal(got, []string{"m0", "m1", "m2"}) // each message once, in order
		is.NoErr(q.Close(ctx))                    // the queue is deleted
		for _, err := range q.Events(ctx) {
			is.True(eventqueue.IsBadQueue(err)) // a deleted queue ends the iteration with BAD_EVENT_QUEUE_ID
		}
		cancel()
	})
}

// TestAnyInstanceServesAnyQueue runs two Services (two server instances) on
// one store, with one Bus between their Hubs: a queue registered on one is
// polled on the other, and a message committed on the first wakes that poll.
func TestAnyInstanceServesAnyQueue(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		s := newSetup(t, open, eventqueue.Options{})
		bus := &eventqueue.LocalBus{}
		a := eventqueue.New(s.w.Svc, eventqueue.Options{Bus: bus})
		t.Cleanup(a.Close)
		other := chatcore.New(s.w.Store, chatcore.WithClock(s.w.Clock))
		b := eventqueue.New(other, eventqueue.Options{Bus: bus})
		t.Cleanup(b.Close)

		st, err := a.Register(context.Background(), s.c.Member.ID, eventqueue.RegisterRequest{Sections: []string{}, Queue: &eventqueue.QueueOptions{}})
		is.NoErr(err) // registered on instance A
		ch := make(chan result, 1)
		go func() {
			last := int64(-1)
			evs, err := b.Poll(context.Background(), s.c.Member.ID, eventqueue.PollRequest{QueueID: st.QueueID, LastEventID: &last})
			ch <- result{evs, err}
		}()
		waiting(t, b, 1)
		s.w.Send(t, s.c.Owner, s.general, "t", "from instance A")
		r := wait(t, ch)
		is.NoErr(r.err)                       // instance B serves the queue
		is.Equal(len(r.events), 1)            // and is woken by A's commit
		is.Equal(r.events[0].Type, "message") // with the message
	})
}
