package eventqueue

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

	"github.com/chatcore/chatcore"
)

// Event queue bounds.
const (
	// DefaultQueueLifespan is how long a queue lives without a poll unless
	// registered for longer; also the shortest lifespan.
	DefaultQueueLifespan = 10 * time.Minute
	// MaxQueueLifespan is the longest lifespan a queue may ask for.
	MaxQueueLifespan = 7 * 24 * time.Hour
	// DefaultQueueBacklog is how many unacknowledged log entries addressed
	// to a queue's user it may hold by default ([Options.QueueBacklog]); a
	// queue further behind is dropped.
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
	// SimplifiedPresenceEvents: presence events in the modern format
	// ({"presences": {user_id: {active_timestamp, idle_timestamp}}}).
	SimplifiedPresenceEvents bool `json:"simplified_presence_events,omitzero"`
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
	// to guests. [Register] sets it from the request's AllPublicStreams.
	AllPublicStreams bool `json:"all_public_streams,omitzero"`
	// ApplyMarkdown gives message content rendered as HTML instead of raw
	// Markdown.
	ApplyMarkdown bool `json:"apply_markdown,omitzero"`
	// ClientGravatar is accepted for compatibility; avatar_url is always set.
	ClientGravatar bool `json:"client_gravatar,omitzero"`
	// SlimPresence leaves the deprecated email out of legacy presence
	// events, as the register's slim_presence does.
	SlimPresence bool `json:"slim_presence,omitzero"`
	// Capabilities are the client capabilities that change events.
	Capabilities ClientCapabilities `json:"capabilities,omitzero"`
	// Lifespan is how long the queue lives without a poll: at least
	// DefaultQueueLifespan (also the value for 0), at most MaxQueueLifespan.
	Lifespan time.Duration `json:"-"`
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

// errBadQueue is Zulip's answer for a queue that does not exist for the
// caller: unknown, deleted, expired, dropped or another user's.
func errBadQueue(id string) *chatcore.Error {
	return &chatcore.Error{Code: chatcore.CodeBadEventQueueID, Kind: chatcore.KindInvalid, Msg: "Bad event queue ID: " + id, Data: map[string]any{"queue_id": id}}
}

// CollectResult reports what [Hub.Collect] did.
type CollectResult struct {
	// Expired and Dropped count the queues deleted for having outlived
	// their lifespan and for having fallen too far behind.
	Expired, Dropped int
	// Pruned counts the log entries deleted.
	Pruned int
}

// collect deletes the queues that expired (no poll for their lifespan) or
// fell more than backlog entries behind, and prunes the log entries no
// queue needs any more, in bounded batches.
func collect(ctx context.Context, svc *chatcore.Service, backlog int) (CollectResult, error) {
	var res CollectResult
	st := svc.Store()
	for {
		var n int
		err := st.Update(ctx, func(tx chatcore.Tx) error {
			expired, err := tx.EventQueues(ctx, chatcore.EventQueueFilter{ExpiredAt: svc.Now(), Limit: chatcore.CollectBatch})
			if err != nil {
				return err
			}
			n, err = chatcore.DeleteQueues(ctx, tx, expired)
			return err
		})
		if err != nil {
			return res, err
		}
		res.Expired += n
		if n < chatcore.CollectBatch {
			break
		}
	}
	after := ""
	for {
		var page []chatcore.EventQueue
		err := st.Update(ctx, func(tx chatcore.Tx) error {
			head, err := tx.LastEventID(ctx, 0)
			if err != nil || head <= int64(backlog) {
				return err
			}
			page, err = tx.EventQueues(ctx, chatcore.EventQueueFilter{PositionBelow: head - int64(backlog), AfterID: after, Limit: 100})
			if err != nil {
				return err
			}
			var behind []chatcore.EventQueue
			for _, q := range page {
				n, err := tx.CountEventsFor(ctx, chatcore.EventLogQuery{RealmID: q.RealmID, UserID: q.UserID, After: q.Position, Public: q.Public}, backlog+1)
				if err != nil {
					return err
				}
				if n > backlog {
					behind = append(behind, q)
				}
			}
			n, err := chatcore.DeleteQueues(ctx, tx, behind)
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
		err := st.Update(ctx, func(tx chatcore.Tx) error {
			var err error
			n, err = chatcore.PruneEventLog(ctx, tx, chatcore.CollectBatch)
			return err
		})
		if err != nil {
			return res, err
		}
		res.Pruned += n
		if n < chatcore.CollectBatch {
			return res, nil
		}
	}
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
var errRegisterRetry = errors.New("eventqueue: event log pruned past the registration snapshot")

// queueLimits are the bounds [Hub] options set on a user's and a realm's
// queues.
type queueLimits struct{ perUser, perRealm int }

// defaultLimits are the bounds of [Register].
var defaultLimits = queueLimits{perUser: DefaultMaxQueuesPerUser, perRealm: DefaultMaxQueuesPerRealm}

// createQueue creates the queue of a registration whose state was read at
// log position head, with the events after head still to deliver, and the
// stored options params (see encodeParams). In the same transaction it
// deletes the actor's queues idle the longest that would leave them more
// than lim.perUser, and returns their ids; it refuses the queue when the
// realm holds lim.perRealm already. (Two registrations committing at once
// on a store with concurrent writers may each see room for one: the bounds
// can be passed by the number of registrations in flight, never more.)
func createQueue(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, o *QueueOptions, params []byte, head int64, lim queueLimits) (string, []string, error) {
	id := newQueueID()
	var evicted []string
	err := svc.Store().Update(ctx, func(tx chatcore.Tx) error {
		evicted = nil
		u, err := chatcore.Actor(ctx, tx, actorID)
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
		mine, err := tx.CountEventQueues(ctx, chatcore.EventQueueFilter{UserID: u.ID, Limit: lim.perUser + 1})
		if err != nil {
			return err
		}
		if mine >= lim.perUser {
			oldest, err := tx.EventQueues(ctx, chatcore.EventQueueFilter{UserID: u.ID, OldestPollFirst: true, Limit: mine - lim.perUser + 1})
			if err != nil {
				return err
			}
			if _, err := chatcore.DeleteQueues(ctx, tx, oldest); err != nil {
				return err
			}
			for _, q := range oldest {
				evicted = append(evicted, q.ID)
			}
		} else {
			all, err := tx.CountEventQueues(ctx, chatcore.EventQueueFilter{RealmID: u.RealmID, Limit: lim.perRealm})
			if err != nil {
				return err
			}
			if all >= lim.perRealm {
				return tooManyRealmQueues(lim.perRealm)
			}
		}
		now := svc.Now()
		return tx.CreateEventQueue(ctx, &chatcore.EventQueue{
			ID: id, RealmID: u.RealmID, UserID: u.ID, Params: params,
			Public:   (o.AllPublicStreams || len(o.Narrow) > 0) && u.Role != chatcore.RoleGuest,
			Lifespan: o.lifespan(), Position: head, Acked: -1, Created: now, LastPoll: now,
		})
	})
	if err != nil {
		return "", nil, err
	}
	return id, evicted, nil
}

// DeleteQueue deletes one of the actor's event queues (DELETE /events);
// [Hub.Delete] also answers a poll waiting on it.
//
// Errors: BAD_EVENT_QUEUE_ID "Bad event queue ID: <id>" (with Data
// queue_id) for an unknown queue or another user's; BAD_REQUEST "Missing
// 'queue_id' argument"; UNAUTHORIZED for a missing or deactivated actor.
func DeleteQueue(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, queueID string) error {
	if queueID == "" {
		return chatcore.BadRequest("Missing 'queue_id' argument")
	}
	return svc.Store().Update(ctx, func(tx chatcore.Tx) error {
		if _, err := ownQueue(ctx, svc, tx, actorID, queueID); err != nil {
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
func ownQueue(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, actorID chatcore.UserID, id string) (*chatcore.EventQueue, error) {
	q, err := tx.EventQueue(ctx, id)
	if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
		return nil, err
	}
	if err == nil && q.UserID == actorID && !q.LastPoll.Add(q.Lifespan).Before(svc.Now()) {
		return q, nil
	}
	if _, err := chatcore.Actor(ctx, tx, actorID); err != nil {
		return nil, err
	}
	return nil, errBadQueue(id)
}

// AnnounceRestart queues a restart event for every live queue, after every
// event committed before it: a server calls it once it has started, so
// clients of queues that outlived the previous process learn of the restart.
// It reads the queues page by page and appends the events of at most
// restartRealms realms per write. Errors come from the store.
func AnnounceRestart(ctx context.Context, svc *chatcore.Service) error {
	users := map[chatcore.RealmID][]chatcore.UserID{}
	for after := ""; ; {
		var page []chatcore.EventQueue
		err := svc.View(ctx, func(tx chatcore.Tx) error {
			var err error
			page, err = tx.EventQueues(ctx, chatcore.EventQueueFilter{AfterID: after, Limit: chatcore.CollectBatch})
			return err
		})
		if err != nil {
			return err
		}
		for _, q := range page {
			users[q.RealmID] = append(users[q.RealmID], q.UserID)
		}
		if len(page) < chatcore.CollectBatch {
			break
		}
		after = page[len(page)-1].ID
	}
	realms := slices.Sorted(maps.Keys(users))
	for chunk := range slices.Chunk(realms, restartRealms) {
		err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
			for _, r := range chunk {
				fx.Event(r, users[r], map[string]any{
					"type": "restart", "zulip_version": "chatcore " + chatcore.Version, "zulip_merge_base": "chatcore " + chatcore.Version,
					"zulip_feature_level": chatcore.FeatureLevel, "server_generation": svc.Now().Unix(), "immediate": false,
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
