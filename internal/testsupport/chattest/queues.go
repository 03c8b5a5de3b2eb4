package chattest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
)

// Queue is an event queue registered by [World.Register], with its client's
// last event id.
type Queue struct {
	// Hub is the Hub the queue was registered on; Poll reads through it.
	Hub *eventqueue.Hub
	// User is the queue's user, ID its id, Last the id of the last event
	// its client handled.
	User *chatcore.User
	ID   string
	Last int64
}

// Register registers an event queue for u with opts on a new
// [eventqueue.Hub] over the World's Service, closed when the test ends (see
// [RegisterOn]).
func (w *World) Register(tb testing.TB, u *chatcore.User, opts eventqueue.QueueOptions) *Queue {
	tb.Helper()
	hub := eventqueue.New(w.Svc, eventqueue.Options{})
	tb.Cleanup(hub.Close)
	return RegisterOn(tb, hub, u, opts)
}

// RegisterOn registers an event queue for u with opts (no state sections;
// AllPublicStreams from opts) on hub, and checks that it starts at
// last_event_id -1.
func RegisterOn(tb testing.TB, hub *eventqueue.Hub, u *chatcore.User, opts eventqueue.QueueOptions) *Queue {
	tb.Helper()
	st, err := hub.Register(context.Background(), u.ID, eventqueue.RegisterRequest{Sections: []string{}, AllPublicStreams: opts.AllPublicStreams, Queue: &opts})
	if err != nil {
		tb.Fatalf("register: %v", err)
	}
	if st.QueueID == "" || st.LastEventID != -1 {
		tb.Fatalf("register: queue %q, last event id %d", st.QueueID, st.LastEventID)
	}
	return &Queue{Hub: hub, User: u, ID: st.QueueID, Last: -1}
}

// Poll acknowledges what q's client handled and returns the next events
// decoded, without waiting ([eventqueue.Hub.GetEvents]); it checks that each
// event's id and type match its JSON and that ids increase.
func (q *Queue) Poll(tb testing.TB) []map[string]any {
	tb.Helper()
	res, err := q.Hub.GetEvents(context.Background(), q.User.ID, eventqueue.EventsRequest{QueueID: q.ID, LastEventID: &q.Last})
	if err != nil {
		tb.Fatalf("poll: %v", err)
	}
	var out []map[string]any
	for _, e := range res.Events {
		var m map[string]any
		if err := json.Unmarshal(e.JSON, &m); err != nil {
			tb.Fatalf("event JSON: %v", err)
		}
		if int64(m["id"].(float64)) != e.ID || m["type"] != e.Type {
			tb.Fatalf("event %s: id/type differ from the JSON", e.JSON)
		}
		if e.ID <= q.Last {
			tb.Fatalf("event id %d not above %d", e.ID, q.Last)
		}
		q.Last = e.ID
		out = append(out, m)
	}
	return out
}

// EventTypes returns the decoded events' types.
func EventTypes(evs []map[string]any) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e["type"].(string))
	}
	return out
}
