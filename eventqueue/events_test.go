package eventqueue_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/scheduled"
	"github.com/matryer/is"
)

// register registers a queue for u with opts on a Hub of its own.
func register(tb testing.TB, w *chattest.World, u *chatcore.User, opts eventqueue.QueueOptions) *chattest.Queue {
	tb.Helper()
	return w.Register(tb, u, opts)
}

// types returns the events' types.
func types(evs []map[string]any) []string { return chattest.EventTypes(evs) }

// eventsWorld is a realm with a public and a private channel.
type eventsWorld struct {
	w                         *chattest.World
	c                         *chattest.Cast
	general, secret, elsewere *chatcore.Stream
}

func newEventsWorld(t *testing.T, open chattest.Open, opts ...chattest.Option) *eventsWorld {
	w := open(t, opts...)
	c := w.SeedCast(t)
	ch := w.SeedChannels(t, c)
	return &eventsWorld{w: w, c: c, general: ch.General, secret: ch.Secret, elsewere: ch.Elsewhere}
}

func TestEventsMessages(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c := e.c
		raw := register(t, e.w, c.Member, eventqueue.QueueOptions{})
		html := register(t, e.w, c.Member, eventqueue.QueueOptions{ApplyMarkdown: true})
		owner := register(t, e.w, c.Owner, eventqueue.QueueOptions{EventTypes: []string{"message"}})
		moderator := register(t, e.w, c.Moderator, eventqueue.QueueOptions{})
		public := register(t, e.w, c.Moderator, eventqueue.QueueOptions{AllPublicStreams: true})
		adminPublic := register(t, e.w, c.Admin, eventqueue.QueueOptions{AllPublicStreams: true})
		stranger := register(t, e.w, c.Stranger, eventqueue.QueueOptions{AllPublicStreams: true})
		narrow := register(t, e.w, c.Moderator, eventqueue.QueueOptions{Narrow: [][]string{{"channel", "GENERAL"}, {"topic", "lunch"}}})
		guest := register(t, e.w, c.Guest, eventqueue.QueueOptions{Narrow: [][]string{{"is", "dm"}}})

		id := e.w.Send(t, c.Owner, e.general, "lunch", "**noon**")
		evs := raw.Poll(t)
		is.Equal(types(evs), []string{"message"}) // the member gets the message
		m := evs[0]["message"].(map[string]any)
		is.Equal(int64(m["id"].(float64)), int64(id))  // the message sent
		is.Equal(m["content"], "**noon**")             // raw Markdown without apply_markdown
		is.Equal(m["content_type"], "text/x-markdown") // and its type
		is.Equal(evs[0]["flags"], []any{})             // unread, no mention
		_, leaked := evs[0]["chatcore_raw_content"]
		is.True(!leaked) // the logged Markdown is never delivered
		m = html.Poll(t)[0]["message"].(map[string]any)
		is.Equal(m["content"], "<p><strong>noon</strong></p>") // rendered with apply_markdown
		is.Equal(m["content_type"], "text/html")
		evs = owner.Poll(t)
		is.Equal(len(evs), 1) // the sender gets the message too
		_, ok := evs[0]["flags"].([]any)
		is.True(ok)                         // with its flags
		is.Equal(len(moderator.Poll(t)), 0) // not subscribed: nothing
		evs = public.Poll(t)
		is.Equal(len(evs), 1)                 // all_public_streams: the public channel's message
		is.Equal(evs[0]["flags"], []any{})    // with no flags
		is.Equal(len(adminPublic.Poll(t)), 1) // a subscriber with all_public_streams gets it once
		is.Equal(len(narrow.Poll(t)), 1)      // a narrow on the channel and topic gets it unsubscribed
		is.Equal(len(stranger.Poll(t)), 0)    // never across realms
		is.Equal(len(guest.Poll(t)), 0)       // the narrow leaves channel messages out

		e.w.Send(t, c.Owner, e.general, "other", "hi")
		is.Equal(len(narrow.Poll(t)), 0) // another topic misses the narrow
		is.Equal(len(public.Poll(t)), 1)

		e.w.Send(t, c.Owner, e.secret, "s", "hush")
		is.Equal(len(raw.Poll(t)), 2)         // the subscriber gets the private channel's message (and the earlier one)
		is.Equal(len(public.Poll(t)), 0)      // all_public_streams never reaches private channels
		is.Equal(len(adminPublic.Poll(t)), 1) // the earlier public message only

		_, err := e.w.Svc.SendMessage(context.Background(), c.Member.ID, chatcore.SendMessageRequest{Type: "private", To: new(`[` + idText(c.Guest.ID) + `]`), Content: "psst"})
		is.NoErr(err) // direct message sent
		evs = guest.Poll(t)
		is.Equal(types(evs), []string{"message"}) // the guest's narrow takes direct messages
		is.Equal(evs[0]["message"].(map[string]any)["type"], "private")
		is.Equal(len(public.Poll(t)), 0) // nobody else gets a direct message
	})
}

func idText[T ~int64](id T) string { b, _ := json.Marshal(id); return string(b) }

func TestEventsOfOperations(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c, ctx := e.c, context.Background()
		legacy := register(t, e.w, c.Member, eventqueue.QueueOptions{})
		modern := register(t, e.w, c.Member, eventqueue.QueueOptions{Capabilities: eventqueue.ClientCapabilities{BulkMessageDeletion: true, LinkifierURLTemplate: true}})
		filtered := register(t, e.w, c.Member, eventqueue.QueueOptions{EventTypes: []string{"user_settings"}})

		err := accounts.UpdateSettings(ctx, e.w.Svc, c.Member.ID, accounts.SettingsUpdate{EnterSends: new(true)})
		is.NoErr(err) // setting changed
		evs := legacy.Poll(t)
		is.Equal(types(evs), []string{"user_settings"}) // the user's own settings event
		is.Equal(evs[0]["property"], "enter_sends")
		is.Equal(evs[0]["value"], true)
		is.Equal(len(modern.Poll(t)), 1)
		is.Equal(types(filtered.Poll(t)), []string{"user_settings"})

		ids := []chatcore.MessageID{e.w.Send(t, c.Owner, e.general, "doomed", "a"), e.w.Send(t, c.Owner, e.general, "doomed", "b")}
		legacy.Poll(t)
		modern.Poll(t)
		_, err = channels.DeleteTopic(ctx, e.w.Svc, c.Admin.ID, e.general.ID, "doomed")
		is.NoErr(err) // topic deleted
		evs = modern.Poll(t)
		is.Equal(types(evs), []string{"stream", "delete_message"}) // first_message_id, then one bulk deletion
		is.Equal(evs[0]["property"], "first_message_id")
		is.Equal(len(evs[1]["message_ids"].([]any)), 2) // both messages in one event
		evs = legacy.Poll(t)
		is.Equal(types(evs), []string{"stream", "delete_message", "delete_message"}) // one event per message without bulk_message_deletion
		is.Equal(int64(evs[1]["message_id"].(float64)), int64(ids[0]))
		is.Equal(int64(evs[2]["message_id"].(float64)), int64(ids[1]))
		_, bulk := evs[1]["message_ids"]
		is.True(!bulk)                     // no message_ids in the legacy shape
		is.Equal(len(filtered.Poll(t)), 0) // event_types leaves them out

		_, err = linkifiers.Add(ctx, e.w.Svc, c.Admin.ID, "#(?P<id>[0-9]+)", "https://t.example/{id}")
		is.NoErr(err)                                                                  // linkifier added
		is.Equal(types(legacy.Poll(t)), []string{"realm_linkifiers", "realm_filters"}) // the legacy event too without linkifier_url_template
		is.Equal(types(modern.Poll(t)), []string{"realm_linkifiers"})

		_, err = scheduled.Create(ctx, e.w.Svc, c.Member.ID, scheduled.CreateRequest{
			Type: "stream", To: json.RawMessage(idText(e.general.ID)), Topic: new("later"), Content: "soon",
			DeliverAt: e.w.Clock.Current().Add(time.Hour),
		})
		is.NoErr(err) // scheduled
		evs = legacy.Poll(t)
		is.Equal(types(evs), []string{"scheduled_messages"})
		is.Equal(evs[0]["op"], "add")
	})
}

func TestEventsErrors(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c, ctx, svc := e.c, context.Background(), e.w.Svc
		hub := eventqueue.New(svc, eventqueue.Options{})
		defer hub.Close()
		get := func(u *chatcore.User, id string, last *int64) error {
			_, err := hub.GetEvents(ctx, u.ID, eventqueue.EventsRequest{QueueID: id, LastEventID: last})
			return err
		}
		q := register(t, e.w, c.Member, eventqueue.QueueOptions{})
		chattest.WantError(t, get(c.Member, "", new(int64(-1))), chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing 'queue_id' argument")
		chattest.WantError(t, get(c.Member, q.ID, nil), chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing 'last_event_id' argument")
		err := chattest.WantError(t, get(c.Member, "nope", new(int64(-1))), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: nope")
		is.Equal(err.Data["queue_id"], "nope") // the queue id echoed
		err = chattest.WantError(t, get(c.Owner, q.ID, new(int64(-1))), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.ID)
		is.Equal(err.Data["queue_id"], q.ID) // another user's queue reads as a missing one
		chattest.WantError(t, get(c.Stranger, q.ID, new(int64(-1))), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.ID)

		e.w.Send(t, c.Owner, e.general, "t", "one")
		e.w.Send(t, c.Owner, e.general, "t", "two")
		evs := q.Poll(t)
		is.Equal(len(evs), 2) // both messages
		first := int64(evs[0]["id"].(float64))
		chattest.WantError(t, get(c.Member, q.ID, new(first+1)), chatcore.CodeBadRequest, chatcore.KindInvalid, "Event "+idText(chatcore.MessageID(first+1))+" was not in this queue")
		chattest.WantError(t, get(c.Member, q.ID, new(first-1)), chatcore.CodeBadRequest, chatcore.KindInvalid, "An event newer than "+idText(chatcore.MessageID(first-1))+" has already been pruned!")
		is.Equal(len(q.Poll(t)), 0) // acknowledging the last event empties the queue

		err = chattest.WantError(t, eventqueue.DeleteQueue(ctx, svc, c.Owner.ID, q.ID), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.ID)
		is.Equal(err.Data["queue_id"], q.ID) // another user cannot delete it
		chattest.WantError(t, eventqueue.DeleteQueue(ctx, svc, c.Member.ID, ""), chatcore.CodeBadRequest, chatcore.KindInvalid, "Missing 'queue_id' argument")
		is.NoErr(eventqueue.DeleteQueue(ctx, svc, c.Member.ID, q.ID)) // the owner deletes it
		chattest.WantError(t, get(c.Member, q.ID, &q.Last), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.ID)
		chattest.WantError(t, eventqueue.DeleteQueue(ctx, svc, c.Member.ID, q.ID), chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+q.ID)

		_, rerr := eventqueue.Register(ctx, svc, c.Member.ID, eventqueue.RegisterRequest{Queue: &eventqueue.QueueOptions{Narrow: [][]string{{"search", "x"}}}})
		chattest.WantError(t, rerr, chatcore.CodeBadRequest, chatcore.KindInvalid, "Operator search not supported.")
		_, rerr = eventqueue.Register(ctx, svc, c.Member.ID, eventqueue.RegisterRequest{Queue: &eventqueue.QueueOptions{Narrow: [][]string{{"is", "followed"}}}})
		chattest.WantError(t, rerr, chatcore.CodeBadRequest, chatcore.KindInvalid, "Operand followed not supported.")
		_, rerr = eventqueue.Register(ctx, svc, c.Guest.ID, eventqueue.RegisterRequest{AllPublicStreams: true, Queue: &eventqueue.QueueOptions{}})
		chattest.WantError(t, rerr, chatcore.CodeBadRequest, chatcore.KindInvalid, "User not authorized for this query")
	})
}

// TestEventsPublicQueueFlags checks that a channel message reaches each
// queue that takes every public channel message (or narrows to the channel)
// once, with its user's own flags: a mentioned subscriber's flags, a plain
// subscriber's none, and none for a user not subscribed.
func TestEventsPublicQueueFlags(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c := e.c
		mentionedPublic := register(t, e.w, c.Admin, eventqueue.QueueOptions{AllPublicStreams: true})
		mentionedNarrow := register(t, e.w, c.Admin, eventqueue.QueueOptions{Narrow: [][]string{{"channel", "general"}}})
		plainPublic := register(t, e.w, c.Member, eventqueue.QueueOptions{AllPublicStreams: true})
		outsider := register(t, e.w, c.Moderator, eventqueue.QueueOptions{AllPublicStreams: true})
		// The mention would follow the topic for the admin (a user_topic event): not here.
		e.w.UpdateUser(t, c.Admin.ID, func(u *chatcore.User) { u.Settings.AutomaticallyFollowTopicsWhereMentioned = false })
		e.w.Send(t, c.Owner, e.general, "lunch", "hi @**"+c.Admin.FullName+"**")
		for _, q := range []*chattest.Queue{mentionedPublic, mentionedNarrow} {
			evs := q.Poll(t)
			is.Equal(len(evs), 1)                         // the mentioned subscriber gets it once
			is.Equal(evs[0]["flags"], []any{"mentioned"}) // with the mention
		}
		for _, q := range []*chattest.Queue{plainPublic, outsider} {
			evs := q.Poll(t)
			is.Equal(len(evs), 1)              // a plain subscriber and a user not subscribed get it once
			is.Equal(evs[0]["flags"], []any{}) // without flags
		}
	})
}

func TestEventsQueueLifecycle(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		e := newEventsWorld(t, open)
		c, ctx := e.c, context.Background()
		hub := eventqueue.New(e.w.Svc, eventqueue.Options{QueueBacklog: 5})
		defer hub.Close()
		idle := chattest.RegisterOn(t, hub, c.Member, eventqueue.QueueOptions{})
		polled := chattest.RegisterOn(t, hub, c.Member, eventqueue.QueueOptions{})
		long := chattest.RegisterOn(t, hub, c.Member, eventqueue.QueueOptions{Lifespan: time.Hour})

		e.w.Clock.Advance(9 * time.Minute)
		polled.Poll(t)
		e.w.Clock.Advance(2 * time.Minute)
		chattest.WantError(t, func() error {
			_, err := hub.GetEvents(ctx, c.Member.ID, eventqueue.EventsRequest{QueueID: idle.ID, LastEventID: &idle.Last})
			return err
		}(),
			chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+idle.ID) // 11 minutes without a poll: expired
		polled.Poll(t) // polled 2 minutes ago: alive
		long.Poll(t)   // an hour's lifespan: alive
		res, err := hub.Collect(ctx)
		is.NoErr(err)            // collected
		is.Equal(res.Expired, 1) // the idle queue is deleted
		is.Equal(res.Dropped, 0) // nobody behind

		// A queue that falls more than the backlog behind is dropped; one
		// that keeps up is not.
		for i := range 7 {
			e.w.Send(t, c.Owner, e.general, "t", "m"+idText(chatcore.MessageID(i)))
			polled.Poll(t)
		}
		_, err = hub.GetEvents(ctx, c.Member.ID, eventqueue.EventsRequest{QueueID: long.ID, LastEventID: &long.Last})
		chattest.WantError(t, err, chatcore.CodeBadEventQueueID, chatcore.KindInvalid, "Bad event queue ID: "+long.ID)
		is.Equal(len(polled.Poll(t)), 0) // the queue that kept up lives

		// The log keeps only what live queues need.
		_, err = hub.Collect(ctx)
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
		q := register(t, e.w, c.Member, eventqueue.QueueOptions{})
		noRestart := register(t, e.w, c.Member, eventqueue.QueueOptions{EventTypes: []string{"message"}})
		admin := register(t, e.w, c.Admin, eventqueue.QueueOptions{})
		e.w.Send(t, c.Owner, e.general, "t", "before the restart")
		is.NoErr(eventqueue.AnnounceRestart(ctx, svc)) // restart announced
		evs := q.Poll(t)
		is.Equal(types(evs), []string{"message", "restart"}) // the restart after what was committed before it
		is.Equal(evs[1]["zulip_feature_level"], float64(chatcore.FeatureLevel))
		is.Equal(types(noRestart.Poll(t)), []string{"message"}) // event_types without restart
		admin.Poll(t)

		gone := register(t, e.w, c.Moderator, eventqueue.QueueOptions{})
		is.NoErr(accounts.DeactivateUser(ctx, svc, c.Admin.ID, c.Moderator.ID, accounts.DeactivateUserRequest{})) // a user is deactivated
		evs = admin.Poll(t)
		is.Equal(types(evs), []string{"realm_user"}) // everyone learns of it
		is.Equal(evs[0]["person"], map[string]any{"user_id": float64(c.Moderator.ID), "is_active": false})
		is.Equal(types(q.Poll(t)), []string{"realm_user"})
		_, err := gone.Hub.GetEvents(ctx, c.Moderator.ID, eventqueue.EventsRequest{QueueID: gone.ID, LastEventID: &gone.Last})
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
			q   *chattest.Queue
		}
		hub := eventqueue.New(svc, eventqueue.Options{})
		defer hub.Close()
		var regs []reg
		for range registrations {
			st, err := hub.Register(ctx, c.Member.ID, eventqueue.RegisterRequest{Sections: []string{"message"}, Queue: &eventqueue.QueueOptions{EventTypes: []string{"message"}}})
			is.NoErr(err) // registered
			regs = append(regs, reg{max: *st.MaxMessageID, q: &chattest.Queue{Hub: hub, User: c.Member, ID: st.QueueID, Last: -1}})
		}
		var all []chatcore.MessageID
		for id := range sent {
			all = append(all, id)
		}
		is.Equal(len(all), sends) // every send succeeded
		for _, r := range regs {
			var got []chatcore.MessageID
			for {
				evs := r.q.Poll(t)
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

// eventsForCountingStore wraps a Store and counts the EventsFor reads made
// through its read transactions.
type eventsForCountingStore struct {
	chatcore.Store
	reads atomic.Int64
}

func (s *eventsForCountingStore) View(ctx context.Context, fn func(tx chatcore.Tx) error) error {
	return s.Store.View(ctx, func(tx chatcore.Tx) error { return fn(eventsForCountingTx{tx, s}) })
}

type eventsForCountingTx struct {
	chatcore.Tx
	s *eventsForCountingStore
}

func (t eventsForCountingTx) EventsFor(ctx context.Context, q chatcore.EventLogQuery) ([]chatcore.LoggedEvent, error) {
	t.s.reads.Add(1)
	return t.Tx.EventsFor(ctx, q)
}

// TestPollReadsNoEntriesPastTheHead: a poll whose queue is at the realm's
// head reads no entries; one with entries past it reads and delivers them;
// once the client acknowledges a heartbeat, its queue is at the head again.
func TestPollReadsNoEntriesPastTheHead(t *testing.T) {
	chattest.EachStore(t, func(t *testing.T, open chattest.Open) {
		is := is.New(t)
		ctx := context.Background()
		counting := &eventsForCountingStore{}
		e := newEventsWorld(t, open, chattest.Wrap(func(st chatcore.Store) chatcore.Store { counting.Store = st; return counting }))
		c := e.c
		q := register(t, e.w, c.Member, eventqueue.QueueOptions{EventTypes: []string{"message"}})
		poll := func(last int64) eventqueue.EventsResult {
			res, err := q.Hub.GetEvents(ctx, c.Member.ID, eventqueue.EventsRequest{QueueID: q.ID, LastEventID: &last})
			is.NoErr(err)
			return res
		}

		is.Equal(len(poll(-1).Events), 0)
		is.Equal(counting.reads.Load(), int64(0)) // nothing appended since the registration: no read

		e.w.Send(t, c.Owner, e.general, "lunch", "noon")
		res := poll(-1)
		is.Equal(len(res.Events), 1) // the message
		is.Equal(res.Events[0].Type, "message")
		is.Equal(counting.reads.Load(), int64(1)) // read past the queue's position

		// Acknowledging the message: its entry is read again, since more
		// events of one entry may follow an acknowledged one.
		res = poll(res.Events[0].ID)
		is.Equal(len(res.Events), 0)
		is.Equal(counting.reads.Load(), int64(2))

		// Acknowledging the heartbeat a timed-out poll would send covers the
		// whole entry: the queue is at the head.
		poll(res.Heartbeat)
		counting.reads.Store(0)
		res = poll(res.Heartbeat)
		is.Equal(len(res.Events), 0)
		is.Equal(counting.reads.Load(), int64(0)) // nothing past the queue: no read

		e.w.Send(t, c.Owner, e.general, "lunch", "later")
		res = poll(res.Heartbeat)
		is.Equal(len(res.Events), 1) // the next message is delivered
		is.Equal(counting.reads.Load(), int64(1))
	})
}
