package chatcore_test

import (
	"encoding/json"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/chattest"
)

// register registers a queue for u with opts on a Hub of its own.
func register(tb testing.TB, w *chattest.World, u *chatcore.User, opts eventqueue.QueueOptions) *chattest.Queue {
	tb.Helper()
	return w.Register(tb, u, opts)
}

// types returns the events' types.
func types(evs []map[string]any) []string { return chattest.EventTypes(evs) }

func idText[T ~int64](id T) string { b, _ := json.Marshal(id); return string(b) }

// eventsWorld is a realm with a public and a private channel.
type eventsWorld struct {
	w                         *chattest.World
	c                         *chattest.Cast
	general, secret, elsewere *chatcore.Stream
}

func newEventsWorld(t *testing.T, open chattest.Open, opts ...chattest.Option) *eventsWorld {
	w := open(t, opts...)
	c := w.SeedCast(t)
	e := &eventsWorld{w: w, c: c}
	e.general = w.AddChannel(t, chattest.Channel{Name: "general", Subscribers: []*chatcore.User{c.Owner, c.Admin, c.Member, c.Guest}})
	e.secret = w.AddChannel(t, chattest.Channel{Name: "secret", InviteOnly: true, Subscribers: []*chatcore.User{c.Owner, c.Member}})
	e.elsewere = w.AddChannel(t, chattest.Channel{Name: "lear", Subscribers: []*chatcore.User{c.Stranger}})
	return e
}
