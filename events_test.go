package chatcore_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
	"github.com/matryer/is"
)

// queue is a registered event queue with its client's last event id.
type queue struct {
	w    *chattest.World
	user *chatcore.User
	id   string
	last int64
}

// register registers a queue for u with opts.
func register(tb testing.TB, w *chattest.World, u *chatcore.User, opts chatcore.QueueOptions) *queue {
	tb.Helper()
	st, err := w.Svc.Register(context.Background(), u.ID, chatcore.RegisterRequest{Sections: []string{}, Queue: &opts, AllPublicStreams: opts.AllPublicStreams})
	if err != nil {
		tb.Fatalf("register: %v", err)
	}
	if st.QueueID == "" || st.LastEventID != -1 {
		tb.Fatalf("register: queue %q, last event id %d", st.QueueID, st.LastEventID)
	}
	return &queue{w: w, user: u, id: st.QueueID, last: -1}
}

// poll acknowledges what q handled and returns the next events decoded.
func (q *queue) poll(tb testing.TB) []map[string]any {
	tb.Helper()
	res, err := q.w.Svc.GetEvents(context.Background(), q.user.ID, chatcore.EventsRequest{QueueID: q.id, LastEventID: &q.last})
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
		if e.ID <= q.last {
			tb.Fatalf("event id %d not above %d", e.ID, q.last)
		}
		q.last = e.ID
		out = append(out, m)
	}
	return out
}

// types returns the events' types.
func types(evs []map[string]any) []string {
	out := []string{}
	for _, e := range evs {
		out = append(out, e["type"].(string))
	}
	return out
}

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

func TestEventsMessages(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c := e.c
		raw := register(t, e.w, c.Member, chatcore.QueueOptions{})
		html := register(t, e.w, c.Member, chatcore.QueueOptions{ApplyMarkdown: true})
		owner := register(t, e.w, c.Owner, chatcore.QueueOptions{EventTypes: []string{"message"}})
		moderator := register(t, e.w, c.Moderator, chatcore.QueueOptions{})
		public := register(t, e.w, c.Moderator, chatcore.QueueOptions{AllPublicStreams: true})
		adminPublic := register(t, e.w, c.Admin, chatcore.QueueOptions{AllPublicStreams: true})
		stranger := register(t, e.w, c.Stranger, chatcore.QueueOptions{AllPublicStreams: true})
		narrow := register(t, e.w, c.Moderator, chatcore.QueueOptions{Narrow: [][]string{{"channel", "GENERAL"}, {"topic", "lunch"}}})
		guest := register(t, e.w, c.Guest, chatcore.QueueOptions{Narrow: [][]string{{"is", "dm"}}})

		id := e.w.Send(t, c.Owner, e.general, "lunch", "**noon**")
		evs := raw.poll(t)
		is.Equal(types(evs), []string{"message"}) // the member gets the message
		m := evs[0]["message"].(map[string]any)
		is.Equal(int64(m["id"].(float64)), int64(id))  // the message sent
		is.Equal(m["content"], "**noon**")             // raw Markdown without apply_markdown
		is.Equal(m["content_type"], "text/x-markdown") // and its type
		is.Equal(evs[0]["flags"], []any{})             // unread, no mention
		_, leaked := evs[0]["chatcore_raw_content"]
		is.True(!leaked) // the logged Markdown is never delivered
		m = html.poll(t)[0]["message"].(map[string]any)
		is.Equal(m["content"], "<p><strong>noon</strong></p>") // rendered with apply_markdown
		is.Equal(m["content_type"], "text/html")
		evs = owner.poll(t)
		is.Equal(len(evs), 1) // the sender gets the message too
		_, ok := evs[0]["flags"].([]any)
		is.True(ok)                         // with its flags
		is.Equal(len(moderator.poll(t)), 0) // not subscribed: nothing
		evs = public.poll(t)
		is.Equal(len(evs), 1)                 // all_public_streams: the public channel's message
		is.Equal(evs[0]["flags"], []any{})    // with no flags
		is.Equal(len(adminPublic.poll(t)), 1) // a subscriber with all_public_streams gets it once
		is.Equal(len(narrow.poll(t)), 1)      // a narrow on the channel and topic gets it unsubscribed
		is.Equal(len(stranger.poll(t)), 0)    // never across realms
		is.Equal(len(guest.poll(t)), 0)       // the narrow leaves channel messages out

		e.w.Send(t, c.Owner, e.general, "other", "hi")
		is.Equal(len(narrow.poll(t)), 0) // another topic misses the narrow
		is.Equal(len(public.poll(t)), 1)

		e.w.Send(t, c.Owner, e.secret, "s", "hush")
		is.Equal(len(raw.poll(t)), 2)         // the subscriber gets the private channel's message (and the earlier one)
		is.Equal(len(public.poll(t)), 0)      // all_public_streams never reaches private channels
		is.Equal(len(adminPublic.poll(t)), 1) // the earlier public message only

		_, err := e.w.Svc.SendMessage(context.Background(), c.Member.ID, chatcore.SendMessageRequest{Type: "private", To: new(`[` + idText(c.Guest.ID) + `]`), Content: "psst"})
		is.NoErr(err) // direct message sent
		evs = guest.poll(t)
		is.Equal(types(evs), []string{"message"}) // the guest's narrow takes direct messages
		is.Equal(evs[0]["message"].(map[string]any)["type"], "private")
		is.Equal(len(public.poll(t)), 0) // nobody else gets a direct message
	})
}

func idText[T ~int64](id T) string { b, _ := json.Marshal(id); return string(b) }

func TestEventsOfOperations(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c, ctx := e.c, context.Background()
		legacy := register(t, e.w, c.Member, chatcore.QueueOptions{})
		modern := register(t, e.w, c.Member, chatcore.QueueOptions{Capabilities: chatcore.ClientCapabilities{BulkMessageDeletion: true, LinkifierURLTemplate: true}})
		filtered := register(t, e.w, c.Member, chatcore.QueueOptions{EventTypes: []string{"user_settings"}})

		err := e.w.Svc.UpdateSettings(ctx, c.Member.ID, chatcore.SettingsUpdate{EnterSends: new(true)})
		is.NoErr(err) // setting changed
		evs := legacy.poll(t)
		is.Equal(types(evs), []string{"user_settings"}) // the user's own settings event
		is.Equal(evs[0]["property"], "enter_sends")
		is.Equal(evs[0]["value"], true)
		is.Equal(len(modern.poll(t)), 1)
		is.Equal(types(filtered.poll(t)), []string{"user_settings"})

		ids := []chatcore.MessageID{e.w.Send(t, c.Owner, e.general, "doomed", "a"), e.w.Send(t, c.Owner, e.general, "doomed", "b")}
		legacy.poll(t)
		modern.poll(t)
		_, err = e.w.Svc.DeleteTopic(ctx, c.Admin.ID, e.general.ID, "doomed")
		is.NoErr(err) // topic deleted
		evs = modern.poll(t)
		is.Equal(types(evs), []string{"stream", "delete_message"}) // first_message_id, then one bulk deletion
		is.Equal(evs[0]["property"], "first_message_id")
		is.Equal(len(evs[1]["message_ids"].([]any)), 2) // both messages in one event
		evs = legacy.poll(t)
		is.Equal(types(evs), []string{"stream", "delete_message", "delete_message"}) // one event per message without bulk_message_deletion
		is.Equal(int64(evs[1]["message_id"].(float64)), int64(ids[0]))
		is.Equal(int64(evs[2]["message_id"].(float64)), int64(ids[1]))
		_, bulk := evs[1]["message_ids"]
		is.True(!bulk)                     // no message_ids in the legacy shape
		is.Equal(len(filtered.poll(t)), 0) // event_types leaves them out

		_, err = e.w.Svc.AddLinkifier(ctx, c.Admin.ID, "#(?P<id>[0-9]+)", "https://t.example/{id}")
		is.NoErr(err)                                                                  // linkifier added
		is.Equal(types(legacy.poll(t)), []string{"realm_linkifiers", "realm_filters"}) // the legacy event too without linkifier_url_template
		is.Equal(types(modern.poll(t)), []string{"realm_linkifiers"})

		_, err = e.w.Svc.CreateScheduledMessage(ctx, c.Member.ID, chatcore.CreateScheduledMessageRequest{
			Type: "stream", To: json.RawMessage(idText(e.general.ID)), Topic: new("later"), Content: "soon",
			DeliverAt: e.w.Clock.Current().Add(time.Hour),
		})
		is.NoErr(err) // scheduled
		evs = legacy.poll(t)
		is.Equal(types(evs), []string{"scheduled_messages"})
		is.Equal(evs[0]["op"], "add")
	})
}
