package chatcore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/chatcore/chatcore/internal/eventwire"
)

// Event queue bounds.
const (
	// DefaultQueueLifespan is how long a queue lives without a poll unless
	// registered for longer; also the shortest lifespan.
	DefaultQueueLifespan = 10 * time.Minute
	// MaxQueueLifespan is the longest lifespan a queue may ask for.
	MaxQueueLifespan = 7 * 24 * time.Hour
	// DefaultQueueBacklog is how many unacknowledged log entries addressed
	// to a queue's user it may hold by default ([WithQueueBacklog]); a queue
	// further behind is dropped.
	DefaultQueueBacklog = 10000
	// MaxEventsPerPoll bounds the log entries one poll answers with; the
	// client's next poll gets the rest.
	MaxEventsPerPoll = 1000
)

// eventIDStride spaces the event ids of consecutive log entries: a queue
// event's id is its entry's id times the stride plus its index among the
// events the entry gives the queue (a bulk deletion split per message, a
// legacy event after its modern one). Heartbeats take ids from the upper
// half of an entry's range, so they never collide with an entry's events.
const eventIDStride = 1 << 20

// WithQueueBacklog sets how many unacknowledged log entries addressed to its
// user an event queue may hold before it is dropped (default
// [DefaultQueueBacklog]). Values below 1 keep the default.
func WithQueueBacklog(n int) Option {
	return func(s *Service) {
		if n >= 1 {
			s.queueBacklog = n
		}
	}
}

// ClientCapabilities are the client_capabilities of POST /register that
// change the events a queue receives.
type ClientCapabilities struct {
	// BulkMessageDeletion: one delete_message event with message_ids
	// instead of one event per message.
	BulkMessageDeletion bool `json:"bulk_message_deletion,omitzero"`
	// StreamTypingNotifications: channel typing events too.
	StreamTypingNotifications bool `json:"stream_typing_notifications,omitzero"`
	// LinkifierURLTemplate: no legacy realm_filters event.
	LinkifierURLTemplate bool `json:"linkifier_url_template,omitzero"`
	// EmptyTopicName: the empty topic is sent as ""; without it, as the
	// realm's display name for it.
	EmptyTopicName bool `json:"empty_topic_name,omitzero"`
}

// QueueOptions are the event queue options of POST /register.
type QueueOptions struct {
	// EventTypes are the event types the queue receives; nil means all.
	EventTypes []string `json:"event_types,omitzero"`
	// Narrow keeps only message events matching every [operator, operand]
	// term (operators channel/stream, topic, sender, is).
	Narrow [][]string `json:"narrow,omitzero"`
	// AllPublicStreams adds the messages of every public channel; refused
	// to guests.
	AllPublicStreams bool `json:"all_public_streams,omitzero"`
	// ApplyMarkdown gives message content rendered as HTML instead of raw
	// Markdown.
	ApplyMarkdown bool `json:"apply_markdown,omitzero"`
	// ClientGravatar is accepted for compatibility; avatar_url is always set.
	ClientGravatar bool `json:"client_gravatar,omitzero"`
	// Capabilities are the client capabilities that change events.
	Capabilities ClientCapabilities `json:"capabilities,omitzero"`
	// Lifespan is how long the queue lives without a poll: at least
	// DefaultQueueLifespan (also the value for 0), at most MaxQueueLifespan.
	Lifespan time.Duration `json:"-"`
}

// checkNarrow applies Zulip's rule for narrows of event queues.
func (o *QueueOptions) checkNarrow() error {
	for _, t := range o.Narrow {
		if len(t) != 2 {
			return BadRequest("Invalid narrow")
		}
		switch t[0] {
		case "channel", "stream", "topic", "sender":
		case "is":
			if t[1] == "followed" {
				return BadRequestf("Operand %s not supported.", t[1])
			}
		default:
			return BadRequestf("Operator %s not supported.", t[0])
		}
	}
	return nil
}

// lifespan returns the queue's lifespan within Zulip's bounds.
func (o *QueueOptions) lifespan() time.Duration {
	return min(max(o.Lifespan, DefaultQueueLifespan), MaxQueueLifespan)
}

// QueueEvent is one event as an event queue delivers it.
type QueueEvent struct {
	// ID is the event's id in its queue; ids increase within a queue.
	ID int64
	// Type is the event's "type".
	Type string
	// JSON is the whole event object, "id" and "type" included.
	JSON json.RawMessage
}

// Decode unmarshals the event's JSON into v.
func (e QueueEvent) Decode(v any) error { return json.Unmarshal(e.JSON, v) }

// EventsRequest is a poll of an event queue (GET /events, never blocking).
type EventsRequest struct {
	QueueID string
	// LastEventID is the id of the last event the client handled: it and
	// every earlier event are acknowledged. Required.
	LastEventID *int64
}

// EventsResult answers [Service.GetEvents].
type EventsResult struct {
	// Events are the queue's unacknowledged events, oldest first.
	Events []QueueEvent
	// Heartbeat is the id a heartbeat answered now would take; with it
	// as last_event_id the client acknowledges nothing new.
	Heartbeat int64
	// RealmID and Public describe the queue for waking its polls: it reads
	// its user's log entries of the realm, and Public entries when Public.
	RealmID RealmID
	Public  bool
}

// errBadQueue is Zulip's answer for a queue that does not exist for the
// caller: unknown, deleted, expired, dropped or another user's.
func errBadQueue(id string) *Error {
	return &Error{Code: CodeBadEventQueueID, Kind: KindInvalid, Msg: "Bad event queue ID: " + id, Data: map[string]any{"queue_id": id}}
}

// EventNotice tells, after a commit, which queues may have new events: the
// queues of UserIDs in the realm and, when Public is set, the realm's
// queues that receive every public channel message.
type EventNotice struct {
	RealmID RealmID
	UserIDs []UserID
	Public  bool
	// LastID is the highest log id the commit appended.
	LastID int64
}

// OnEventsCommitted registers fn to be called after every commit that
// appended events to the log, with one notice per realm, on the committing
// goroutine (fn must not block). It returns a function that unregisters fn.
// Package eventqueue uses it to wake waiting polls.
func (s *Service) OnEventsCommitted(fn func([]EventNotice)) (stop func()) {
	return s.notify.Add(fn)
}

// noticeEvents tells the registered functions about the logged events.
func (s *Service) noticeEvents(logged []LoggedEvent) {
	if s.notify.Len() == 0 || len(logged) == 0 {
		return
	}
	s.notify.Call(EventNotices(logged))
}

// EventNotices groups committed log entries into the notices
// [Service.OnEventsCommitted] functions receive: one per realm, in the order
// the realms first appear, with its users sorted and without duplicates, and
// the highest log id. A Bus that carries commits to other processes can send
// these.
func EventNotices(logged []LoggedEvent) []EventNotice {
	var out []EventNotice
	for _, e := range logged {
		i := slices.IndexFunc(out, func(n EventNotice) bool { return n.RealmID == e.RealmID })
		if i < 0 {
			out = append(out, EventNotice{RealmID: e.RealmID})
			i = len(out) - 1
		}
		n := &out[i]
		n.UserIDs = append(n.UserIDs, e.UserIDs...)
		n.Public = n.Public || e.Public
		n.LastID = max(n.LastID, e.ID)
	}
	for i := range out {
		slices.Sort(out[i].UserIDs)
		out[i].UserIDs = slices.Compact(out[i].UserIDs)
	}
	return out
}

// logEvents appends the operation's events to the store's event log inside
// its transaction, and every so often collects what the log no longer needs.
func (s *Service) logEvents(ctx context.Context, tx Tx, events []Event) ([]LoggedEvent, error) {
	logged := make([]LoggedEvent, 0, len(events))
	for _, e := range events {
		data, err := json.Marshal(e.Data)
		if err != nil {
			return nil, err
		}
		if e.markdown != nil {
			raw, err := json.Marshal(*e.markdown)
			if err != nil {
				return nil, err
			}
			data = append(append(append([]byte(`{"`+rawContentKey+`":`), raw...), ','), data[1:]...)
		}
		users := slices.Clone(e.UserIDs)
		slices.Sort(users)
		logged = append(logged, LoggedEvent{RealmID: e.RealmID, UserIDs: slices.Compact(users), Public: e.public, Group: e.group, Data: data})
	}
	if err := tx.AppendEvents(ctx, logged); err != nil {
		return nil, err
	}
	last := logged[len(logged)-1].ID
	if last/collectEvery != (logged[0].ID-1)/collectEvery {
		if err := s.collectInTx(ctx, tx, collectBatch); err != nil {
			return nil, err
		}
	}
	return logged, nil
}

// rawContentKey holds a message event's Markdown in the log; it is never
// delivered.
const rawContentKey = eventwire.RawContentKey

// The log is collected in the write that appends every collectEvery-th
// entry, at most collectBatch entries and queues at a time.
const (
	collectEvery = 256
	collectBatch = 1024
)

// collectInTx deletes up to limit expired queues and prunes up to limit log
// entries that no queue needs.
func (s *Service) collectInTx(ctx context.Context, tx Tx, limit int) error {
	expired, err := tx.EventQueues(ctx, EventQueueFilter{ExpiredAt: s.clock.Now(), Limit: limit})
	if err != nil {
		return err
	}
	if len(expired) > 0 {
		ids := make([]string, len(expired))
		for i, q := range expired {
			ids[i] = q.ID
		}
		if _, err := tx.DeleteEventQueues(ctx, ids); err != nil {
			return err
		}
	}
	_, err = pruneLog(ctx, tx, limit)
	return err
}

// pruneLog deletes up to limit log entries that no queue still needs: those
// at or below the bound the store gives (the oldest queue's position, or
// higher where a realm's ids run apart from the others'), or the whole log
// when no queue is left. It returns how many it deleted.
func pruneLog(ctx context.Context, tx Tx, limit int) (int, error) {
	through, ok, err := tx.OldestEventQueuePosition(ctx)
	if err != nil {
		return 0, err
	}
	if !ok {
		if through, err = tx.LastEventID(ctx, 0); err != nil {
			return 0, err
		}
	}
	return tx.PruneEvents(ctx, through, limit)
}

// CollectResult reports what [Service.CollectEventQueues] did.
type CollectResult struct {
	// Expired and Dropped count the queues deleted for having outlived
	// their lifespan and for having fallen too far behind.
	Expired, Dropped int
	// Pruned counts the log entries deleted.
	Pruned int
}

// CollectEventQueues deletes the queues that expired (no poll for their
// lifespan) or fell more than [WithQueueBacklog] entries behind, and prunes
// the log entries no queue needs any more, in bounded batches. Package
// eventqueue runs it about every minute; writes also collect a little as
// they go. Errors come from the store.
func (s *Service) CollectEventQueues(ctx context.Context) (CollectResult, error) {
	var res CollectResult
	for {
		var n int
		err := s.store.Update(ctx, func(tx Tx) error {
			expired, err := tx.EventQueues(ctx, EventQueueFilter{ExpiredAt: s.clock.Now(), Limit: collectBatch})
			if err != nil {
				return err
			}
			n, err = deleteQueues(ctx, tx, expired)
			return err
		})
		if err != nil {
			return res, err
		}
		res.Expired += n
		if n < collectBatch {
			break
		}
	}
	after := ""
	for {
		var page []EventQueue
		err := s.store.Update(ctx, func(tx Tx) error {
			head, err := tx.LastEventID(ctx, 0)
			if err != nil || head <= int64(s.queueBacklog) {
				return err
			}
			page, err = tx.EventQueues(ctx, EventQueueFilter{PositionBelow: head - int64(s.queueBacklog), AfterID: after, Limit: 100})
			if err != nil {
				return err
			}
			var behind []EventQueue
			for _, q := range page {
				n, err := tx.CountEventsFor(ctx, EventLogQuery{RealmID: q.RealmID, UserID: q.UserID, After: q.Position, Public: q.Public}, s.queueBacklog+1)
				if err != nil {
					return err
				}
				if n > s.queueBacklog {
					behind = append(behind, q)
				}
			}
			n, err := deleteQueues(ctx, tx, behind)
			res.Dropped += n
			return err
		})
		if err != nil {
			return res, err
		}
		if len(page) < 100 {
			break
		}
		after = page[len(page)-1].ID
	}
	for {
		var n int
		err := s.store.Update(ctx, func(tx Tx) error {
			var err error
			n, err = pruneLog(ctx, tx, collectBatch)
			return err
		})
		if err != nil {
			return res, err
		}
		res.Pruned += n
		if n < collectBatch {
			return res, nil
		}
	}
}

func deleteQueues(ctx context.Context, tx Tx, qs []EventQueue) (int, error) {
	if len(qs) == 0 {
		return 0, nil
	}
	ids := make([]string, len(qs))
	for i, q := range qs {
		ids[i] = q.ID
	}
	return tx.DeleteEventQueues(ctx, ids)
}

// newQueueID returns a random queue id shaped as a UUID, as Zulip's are.
func newQueueID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return strings.Join([]string{h[:8], h[8:12], h[12:16], h[16:20], h[20:]}, "-")
}

// errRegisterRetry makes createQueue start over: the log was pruned past
// the registration's snapshot.
var errRegisterRetry = errors.New("chatcore: event log pruned past the registration snapshot")

// createQueue creates the queue of a registration whose state was read at
// log position head, with the events after head still to deliver.
func (s *Service) createQueue(ctx context.Context, actorID UserID, o *QueueOptions, head int64) (string, error) {
	params, err := json.Marshal(o)
	if err != nil {
		return "", err
	}
	id := newQueueID()
	err = s.store.Update(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		pruned, err := tx.EventsPrunedThrough(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if pruned > head {
			return errRegisterRetry
		}
		now := s.clock.Now()
		return tx.CreateEventQueue(ctx, &EventQueue{
			ID: id, RealmID: u.RealmID, UserID: u.ID, Params: params,
			Public:   (o.AllPublicStreams || len(o.Narrow) > 0) && u.Role != RoleGuest,
			Lifespan: o.lifespan(), Position: head, Acked: -1, Created: now, LastPoll: now,
		})
	})
	return id, err
}

// DeleteEventQueue deletes one of the actor's event queues (DELETE /events).
//
// Errors: BAD_EVENT_QUEUE_ID "Bad event queue ID: <id>" (with Data
// queue_id) for an unknown queue or another user's; BAD_REQUEST "Missing
// 'queue_id' argument"; UNAUTHORIZED for a missing or deactivated actor.
func (s *Service) DeleteEventQueue(ctx context.Context, actorID UserID, queueID string) error {
	if queueID == "" {
		return BadRequest("Missing 'queue_id' argument")
	}
	return s.store.Update(ctx, func(tx Tx) error {
		if _, err := s.ownQueue(ctx, tx, actorID, queueID); err != nil {
			return err
		}
		_, err := tx.DeleteEventQueues(ctx, []string{queueID})
		return err
	})
}

// ownQueue returns the actor's live queue with the id, or BAD_EVENT_QUEUE_ID.
// A queue's user is active (deactivation deletes a user's queues), so the
// actor is read only when the queue is not theirs, to tell a deactivated or
// unknown actor (UNAUTHORIZED) from a bad queue id.
func (s *Service) ownQueue(ctx context.Context, tx Tx, actorID UserID, id string) (*EventQueue, error) {
	q, err := tx.EventQueue(ctx, id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	if err == nil && q.UserID == actorID && !q.LastPoll.Add(q.Lifespan).Before(s.clock.Now()) {
		return q, nil
	}
	if _, err := Actor(ctx, tx, actorID); err != nil {
		return nil, err
	}
	return nil, errBadQueue(id)
}

// deleteUserQueues deletes every event queue of the user (deactivation).
func deleteUserQueues(ctx context.Context, tx Tx, user UserID) error {
	qs, err := tx.EventQueues(ctx, EventQueueFilter{UserID: user})
	if err != nil {
		return err
	}
	_, err = deleteQueues(ctx, tx, qs)
	return err
}

// AnnounceRestart queues a restart event for every live queue, after every
// event committed before it: a server calls it once it has started, so
// clients of queues that outlived the previous process learn of the restart.
// It reads the queues page by page and appends the events of at most
// restartRealms realms per write. Errors come from the store.
func (s *Service) AnnounceRestart(ctx context.Context) error {
	users := map[RealmID][]UserID{}
	for after := ""; ; {
		var page []EventQueue
		err := s.View(ctx, func(tx Tx) error {
			var err error
			page, err = tx.EventQueues(ctx, EventQueueFilter{AfterID: after, Limit: collectBatch})
			return err
		})
		if err != nil {
			return err
		}
		for _, q := range page {
			users[q.RealmID] = append(users[q.RealmID], q.UserID)
		}
		if len(page) < collectBatch {
			break
		}
		after = page[len(page)-1].ID
	}
	realms := slices.Sorted(maps.Keys(users))
	for chunk := range slices.Chunk(realms, restartRealms) {
		err := s.Update(ctx, func(tx Tx, fx *Effects) error {
			for _, r := range chunk {
				fx.Event(r, users[r], map[string]any{
					"type": "restart", "zulip_version": "chatcore " + Version, "zulip_merge_base": "chatcore " + Version,
					"zulip_feature_level": FeatureLevel, "server_generation": s.clock.Now().Unix(), "immediate": false,
				})
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// restartRealms bounds the realms whose restart events one write appends (a
// store with concurrent writers takes a lock per realm it appends to).
const restartRealms = 256
