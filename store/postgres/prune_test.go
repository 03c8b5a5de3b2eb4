package postgres_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/store"
)

// TestQuietRealmQueueDoesNotHoldUpPruning: a live queue of a realm without
// new events, whose client keeps acknowledging heartbeats, does not keep the
// log entries of other realms from being pruned (a queue reads only its
// realm's entries, and a realm's head stays below the other realms' ids),
// while the entries a queue still has to deliver stay.
func TestQuietRealmQueueDoesNotHoldUpPruning(t *testing.T) {
	is := is.New(t)
	st, _ := instances(t)
	ctx := context.Background()
	w := chattest.New(t, chattest.OnStore(st))
	quiet := w.AddRealm(t, "quiet")
	idle := w.AddUser(t, quiet, "Ida", store.RoleMember)
	slow := w.AddRealm(t, "slow")
	sam := w.AddUser(t, slow, "Sam", store.RoleMember)
	slowCh := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{sam}})
	busy := w.AddRealm(t, "busy")
	poster := w.AddUser(t, busy, "Bo", store.RoleMember)
	busyCh := w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*store.User{poster}})

	hub := eventqueue.New(w.Svc, eventqueue.Options{})
	defer hub.Close()
	register := func(u *store.User) eventqueue.State {
		reg, err := hub.Register(ctx, u.ID, eventqueue.RegisterRequest{Sections: []string{}, Queue: &eventqueue.QueueOptions{}})
		is.NoErr(err) // queue registered
		return reg
	}
	count := func(realm store.RealmID) int {
		var n int
		err := st.Pool().QueryRow(ctx, "SELECT count(*) FROM event_log WHERE realm_id = $1", realm).Scan(&n)
		is.NoErr(err)
		return n
	}
	quietQ := register(idle)
	for range 5 {
		w.Send(t, poster, busyCh, "busy", "before")
	}
	before := count(busy.ID)
	slowQ := register(sam)
	// Starting a topic would follow it (a user_topic event): not here.
	w.UpdateUser(t, sam.ID, func(u *store.User) { u.Settings.AutomaticallyFollowTopicsPolicy = chatcore.AutoNever })
	w.Send(t, sam, slowCh, "slow", "pending") // the slow queue's client has not polled for it yet
	for range 5 {
		w.Send(t, poster, busyCh, "busy", "after")
	}
	after := count(busy.ID) - before
	is.True(before > 0 && after > 0) // the busy realm's messages are in the log

	// The idle client polls and acknowledges the heartbeat it was given,
	// as it does every minute or so.
	last := quietQ.LastEventID
	for range 2 {
		res, err := hub.GetEvents(ctx, idle.ID, eventqueue.EventsRequest{QueueID: quietQ.QueueID, LastEventID: &last})
		is.NoErr(err)                // polled
		is.Equal(len(res.Events), 0) // nothing for the quiet realm
		last = res.Heartbeat
	}
	_, err := hub.Collect(ctx)
	is.NoErr(err) // collected

	is.Equal(count(busy.ID), after) // the entries below the slow queue's pending one are gone
	last = slowQ.LastEventID
	res, err := hub.GetEvents(ctx, sam.ID, eventqueue.EventsRequest{QueueID: slowQ.QueueID, LastEventID: &last})
	is.NoErr(err)                           // polled
	is.Equal(len(res.Events), 1)            // the pending message is still delivered
	is.Equal(res.Events[0].Type, "message") // it is the message
}
