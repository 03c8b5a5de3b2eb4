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

func TestEventsErrors(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c, ctx, svc := e.c, context.Background(), e.w.Svc
		get := func(u *chatcore.User, id string, last *int64) error {
			_, err := svc.GetEvents(ctx, u.ID, chatcore.EventsRequest{QueueID: id, LastEventID: last})
			return err
		}
		q := register(t, e.w, c.Member, chatcore.QueueOptions{})
		chattest.WantError(t, get(c.Member, "", new(int64(-1))), chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing 'queue_id' argument")
		chattest.WantError(t, get(c.Member, q.id, nil), chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing 'last_event_id' argument")
		err := chattest.WantError(t, get(c.Member, "nope", new(int64(-1))), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: nope")
		is.Equal(err.Data["queue_id"], "nope") // the queue id echoed
		err = chattest.WantError(t, get(c.Owner, q.id, new(int64(-1))), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.id)
		is.Equal(err.Data["queue_id"], q.id) // another user's queue reads as a missing one
		chattest.WantError(t, get(c.Stranger, q.id, new(int64(-1))), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.id)

		e.w.Send(t, c.Owner, e.general, "t", "one")
		e.w.Send(t, c.Owner, e.general, "t", "two")
		evs := q.poll(t)
		is.Equal(len(evs), 2) // both messages
		first := int64(evs[0]["id"].(float64))
		chattest.WantError(t, get(c.Member, q.id, new(first+1)), chatcore.CodeBadRequest, chatcore.KindInvalid, "Event "+idText(chatcore.MessageID(first+1))+" was not in this queue")
		chattest.WantError(t, get(c.Member, q.id, new(first-1)), chatcore.CodeBadRequest, chatcore.KindInvalid, "An event newer than "+idText(chatcore.MessageID(first-1))+" has already been pruned!")
		is.Equal(len(q.poll(t)), 0) // acknowledging the last event empties the queue

		err = chattest.WantError(t, svc.DeleteEventQueue(ctx, c.Owner.ID, q.id), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.id)
		is.Equal(err.Data["queue_id"], q.id) // another user cannot delete it
		chattest.WantError(t, svc.DeleteEventQueue(ctx, c.Member.ID, ""), chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing 'queue_id' argument")
		is.NoErr(svc.DeleteEventQueue(ctx, c.Member.ID, q.id)) // the owner deletes it
		chattest.WantError(t, get(c.Member, q.id, &q.last), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.id)
		chattest.WantError(t, svc.DeleteEventQueue(ctx, c.Member.ID, q.id), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.id)

		_, rerr := svc.Register(ctx, c.Member.ID, chatcore.RegisterRequest{Queue: &chatcore.QueueOptions{Narrow: [][]string{{"search", "x"}}}})
		chattest.WantError(t, rerr, chatcore.CodeBadRequest, chatcore.KindInvalid, "Operator search not supported.")
		_, rerr = svc.Register(ctx, c.Member.ID, chatcore.RegisterRequest{Queue: &chatcore.QueueOptions{Narrow: [][]string{{"is", "followed"}}}})
		chattest.WantError(t, rerr, chatcore.CodeBadRequest, chatcore.KindInvalid, "Operand followed not supported.")
		_, rerr = svc.Register(ctx, c.Guest.ID, chatcore.RegisterRequest{AllPublicStreams: true, Queue: &chatcore.QueueOptions{}})
		chattest.WantError(t, rerr, chatcore.CodeBadRequest, chatcore.KindInvalid, "User not authorized for this query")
	})
}

func TestEventsQueueLifecycle(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open, chattest.With(chatcore.WithQueueBacklog(5)))
		c, ctx, svc := e.c, context.Background(), e.w.Svc
		idle := register(t, e.w, c.Member, chatcore.QueueOptions{})
		polled := register(t, e.w, c.Member, chatcore.QueueOptions{})
		long := register(t, e.w, c.Member, chatcore.QueueOptions{Lifespan: time.Hour})

		e.w.Clock.Advance(9 * time.Minute)
		polled.poll(t)
		e.w.Clock.Advance(2 * time.Minute)
		chattest.WantError(t, func() error {
			_, err := svc.GetEvents(ctx, c.Member.ID, chatcore.EventsRequest{QueueID: idle.id, LastEventID: &idle.last})
			return err
		}(),
			chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+idle.id) // 11 minutes without a poll: expired
		polled.poll(t) // polled 2 minutes ago: alive
		long.poll(t)   // an hour's lifespan: alive
		res, err := svc.CollectEventQueues(ctx)
		is.NoErr(err)            // collected
		is.Equal(res.Expired, 1) // the idle queue is deleted
		is.Equal(res.Dropped, 0) // nobody behind

		// A queue that falls more than the backlog behind is dropped; one
		// that keeps up is not.
		for i := range 7 {
			e.w.Send(t, c.Owner, e.general, "t", "m"+idText(chatcore.MessageID(i)))
			polled.poll(t)
		}
		_, err = svc.GetEvents(ctx, c.Member.ID, chatcore.EventsRequest{QueueID: long.id, LastEventID: &long.last})
		chattest.WantError(t, err, chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+long.id)
		is.Equal(len(polled.poll(t)), 0) // the queue that kept up lives

		// The log keeps only what live queues need.
		_, err = svc.CollectEventQueues(ctx)
		is.NoErr(err) // collected
		pruned := chattest.Read(t, e.w.Base, func(ctx context.Context, tx chatcore.Tx) (int64, error) {
			return tx.EventsPrunedThrough(ctx, c.Owner.RealmID)
		})
		oldest := chattest.Read(t, e.w.Base, func(ctx context.Context, tx chatcore.Tx) (int64, error) {
			p, _, err := tx.OldestEventQueuePosition(ctx)
			return p, err
		})
		is.True(oldest > 0)      // the live queue has moved on
		is.Equal(pruned, oldest) // the log is pruned through what the live queue no longer needs
	})
}

func TestEventsRestartAndDeactivation(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c, ctx, svc := e.c, context.Background(), e.w.Svc
		q := register(t, e.w, c.Member, chatcore.QueueOptions{})
		noRestart := register(t, e.w, c.Member, chatcore.QueueOptions{EventTypes: []string{"message"}})
		admin := register(t, e.w, c.Admin, chatcore.QueueOptions{})
		e.w.Send(t, c.Owner, e.general, "t", "before the restart")
		is.NoErr(svc.AnnounceRestart(ctx)) // restart announced
		evs := q.poll(t)
		is.Equal(types(evs), []string{"message", "restart"}) // the restart after what was committed before it
		is.Equal(evs[1]["zulip_feature_level"], float64(chatcore.FeatureLevel))
		is.Equal(types(noRestart.poll(t)), []string{"message"}) // event_types without restart
		admin.poll(t)

		gone := register(t, e.w, c.Moderator, chatcore.QueueOptions{})
		is.NoErr(svc.DeactivateUser(ctx, c.Admin.ID, c.Moderator.ID, chatcore.DeactivateUserRequest{})) // a user is deactivated
		evs = admin.poll(t)
		is.Equal(types(evs), []string{"realm_user"}) // everyone learns of it
		is.Equal(evs[0]["person"], map[string]any{"user_id": float64(c.Moderator.ID), "is_active": false})
		is.Equal(types(q.poll(t)), []string{"realm_user"})
		_, err := svc.GetEvents(ctx, c.Moderator.ID, chatcore.EventsRequest{QueueID: gone.id, LastEventID: &gone.last})
		chattest.WantError(t, err, chatcore.CodeUnauthorized, chatcore.KindUnauthenticated, "Account is deactivated") // a deactivated user's queues are gone with them
		n := chattest.Read(t, e.w.Base, func(ctx context.Context, tx chatcore.Tx) (int, error) {
			qs, err := tx.EventQueues(ctx, chatcore.EventQueueFilter{UserID: c.Moderator.ID})
			return len(qs), err
		})
		is.Equal(n, 0) // deleted in the deactivation's transaction
	})
}

// TestEventsRegisterConsistency registers queues while messages are being
// sent: each queue must hold exactly the messages its state does not (ids
// above its max_message_id), none lost, none doubled.
func TestEventsRegisterConsistency(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c, ctx, svc := e.c, context.Background(), e.w.Svc
		const sends, registrations = 60, 20
		sent := make(chan chatcore.MessageID, sends)
		go func() {
			defer close(sent)
			for i := range sends {
				id, err := svc.SendMessage(ctx, c.Owner.ID, chatcore.SendMessageRequest{Type: "stream", To: new("general"), Topic: new("t"), Content: "m" + idText(chatcore.MessageID(i))})
				if err != nil {
					return
				}
				sent <- id
			}
		}()
		type reg struct {
			max chatcore.MessageID
			q   *queue
		}
		var regs []reg
		for range registrations {
			st, err := svc.Register(ctx, c.Member.ID, chatcore.RegisterRequest{Sections: []string{"message"}, Queue: &chatcore.QueueOptions{EventTypes: []string{"message"}}})
			is.NoErr(err) // registered
			regs = append(regs, reg{max: *st.MaxMessageID, q: &queue{w: e.w, user: c.Member, id: st.QueueID, last: -1}})
		}
		var all []chatcore.MessageID
		for id := range sent {
			all = append(all, id)
		}
		is.Equal(len(all), sends) // every send succeeded
		for _, r := range regs {
			var got []chatcore.MessageID
			for {
				evs := r.q.poll(t)
				if len(evs) == 0 {
					break
				}
				for _, ev := range evs {
					got = append(got, chatcore.MessageID(ev["message"].(map[string]any)["id"].(float64)))
				}
			}
			var want []chatcore.MessageID
			for _, id := range all {
				if id > r.max {
					want = append(want, id)
				}
			}
			is.Equal(got, want) // the queue holds exactly what the state does not
		}
	})
}
