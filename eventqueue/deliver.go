package eventqueue

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/eventwire"
	"github.com/chatcore/chatcore/store"
)

// EventsRequest is a poll of an event queue (GET /events, never blocking).
type EventsRequest struct {
	// QueueID is the id of the queue polled (from [Register]). Required.
	QueueID string
	// LastEventID is the id of the last event the client handled: it and
	// every earlier event are acknowledged. Required.
	LastEventID *int64
}

// EventsResult answers [Hub.GetEvents].
type EventsResult struct {
	// Events are the queue's unacknowledged events, oldest first.
	Events []QueueEvent
	// Heartbeat is the id a heartbeat answered now would take; with it
	// as last_event_id the client acknowledges nothing new.
	Heartbeat int64
	// RealmID and Public describe the queue for waking its polls: it reads
	// its user's log entries of the realm, and Public entries when Public.
	RealmID chatcore.RealmID
	Public  bool
}

// GetEvents answers a poll of one of the actor's event queues without
// blocking (GET /events with dont_block; [Hub.Poll] adds the waiting): it
// acknowledges every event up to req.LastEventID and returns the queue's
// remaining events, at most those of [MaxEventsPerPoll] log entries. A queue
// with more than [Options.QueueBacklog] entries waiting is dropped.
//
// Errors (all HTTP 400): BAD_REQUEST "Missing 'queue_id' argument",
// "Missing 'last_event_id' argument", "An event newer than <id> has
// already been pruned!" (last_event_id below one already acknowledged),
// "Event <id> was not in this queue"; BAD_EVENT_QUEUE_ID "Bad event queue
// ID: <id>" (Data queue_id) for an unknown, deleted, expired or dropped
// queue or another user's; UNAUTHORIZED for a missing or deactivated actor.
// Safe for concurrent use.
func (h *Hub) GetEvents(ctx context.Context, actorID chatcore.UserID, req EventsRequest) (EventsResult, error) {
	if req.QueueID == "" {
		return EventsResult{}, chatcore.BadRequest("Missing 'queue_id' argument")
	}
	if req.LastEventID == nil {
		return EventsResult{}, chatcore.BadRequest("Missing 'last_event_id' argument")
	}
	last := *req.LastEventID
	var (
		q      *chatcore.EventQueue
		res    EventsResult
		acked  int64
		ackErr error
		drop   bool
	)
	err := h.svc.View(ctx, func(tx chatcore.Tx) error {
		// The queue and its realm's head, the reads every poll makes, in
		// one round trip.
		store.Announce(tx, chatcore.Prefetch{EventQueues: []string{req.QueueID}})
		var err error
		if q, err = ownQueue(ctx, h.svc, tx, actorID, req.QueueID); err != nil {
			return err
		}
		res.RealmID, res.Public = q.RealmID, q.Public
		if q.Acked >= 0 && last < q.Acked {
			return chatcore.BadRequestf("An event newer than %d has already been pruned!", last)
		}
		p := queueParams{queueID: q.ID, userID: int64(q.UserID)}
		if err := json.Unmarshal(q.Params, &p.QueueOptions); err != nil {
			return err
		}
		head, err := tx.LastEventID(ctx, q.RealmID)
		if err != nil {
			return err
		}
		after := q.Position
		if q.Acked >= 0 {
			after = max(after, consumedThrough(q.Acked))
		}
		if head-after > int64(h.opts.QueueBacklog) {
			n, err := tx.CountEventsFor(ctx, chatcore.EventLogQuery{RealmID: q.RealmID, UserID: q.UserID, After: after, Public: q.Public}, h.opts.QueueBacklog+1)
			if err != nil {
				return err
			}
			if n > h.opts.QueueBacklog {
				drop = true
				return nil
			}
		}
		var entries []chatcore.LoggedEvent
		if head > after {
			// The log has entries of the realm past the queue's position
			// (none when head is at or below it: nothing to read).
			entries, err = tx.EventsFor(ctx, chatcore.EventLogQuery{RealmID: q.RealmID, UserID: q.UserID, After: after, Public: q.Public, Limit: MaxEventsPerPoll})
			if err != nil {
				return err
			}
		}
		scanned := head
		if len(entries) == MaxEventsPerPoll {
			scanned = entries[len(entries)-1].ID
		}
		var events []QueueEvent
		emptyName := ""
		for _, e := range entries {
			n := len(events)
			events = p.adapt(&h.deliveries, e, events)
			if !p.Capabilities.EmptyTopicName && len(events) > n && h.deliveries.entry(e).EmptyTopic() {
				if emptyName == "" {
					realm, err := tx.Realm(ctx, q.RealmID)
					if err != nil {
						return err
					}
					emptyName = chatcore.DisplayedEmptyTopic(realm)
				}
				for i := n; i < len(events); i++ {
					events[i].JSON = eventwire.RenameEmptyTopic(events[i].JSON, emptyName)
				}
			}
		}
		events = slices.DeleteFunc(events, func(e QueueEvent) bool { return e.ID <= q.Acked })
		acked, ackErr = ack(q.Acked, last, events, scanned, len(entries) == MaxEventsPerPoll)
		res.Events = slices.DeleteFunc(events, func(e QueueEvent) bool { return e.ID <= acked })
		res.Heartbeat = max(acked+1, scanned*eventIDStride+eventIDStride/2)
		return nil
	})
	if err != nil {
		return EventsResult{}, err
	}
	if drop {
		if err := h.svc.Store().Update(ctx, func(tx chatcore.Tx) error {
			_, err := tx.DeleteEventQueues(ctx, []string{q.ID})
			return err
		}); err != nil {
			return EventsResult{}, err
		}
		return EventsResult{}, errBadQueue(req.QueueID)
	}
	now := h.svc.Now()
	if acked != q.Acked || now.Sub(q.LastPoll) >= pollTouchInterval {
		err := h.svc.Store().Update(ctx, func(tx chatcore.Tx) error {
			cur, err := tx.EventQueue(ctx, q.ID)
			if err != nil {
				return err
			}
			cur.Acked = max(cur.Acked, acked)
			cur.Position = q.Position
			if cur.Acked >= 0 {
				cur.Position = max(cur.Position, consumedThrough(cur.Acked))
			}
			cur.LastPoll = now
			return tx.UpdateEventQueue(ctx, cur)
		})
		if errorsIsNotFound(err) {
			return EventsResult{}, errBadQueue(req.QueueID)
		}
		if err != nil {
			return EventsResult{}, err
		}
	}
	if ackErr != nil {
		return EventsResult{}, ackErr
	}
	return res, nil
}

// pollTouchInterval is how stale a queue's LastPoll may get before a poll
// that acknowledges nothing writes it: far below the shortest lifespan.
const pollTouchInterval = 30e9

// consumedThrough returns the id of the last log entry whose every event
// the acknowledged id acked covers: a heartbeat's id (in the upper half of
// its entry's range) covers its whole entry, an event's id only the entries
// before its own, whose later events may still be pending.
func consumedThrough(acked int64) int64 {
	if acked%eventIDStride >= eventIDStride/2 {
		return acked / eventIDStride
	}
	return acked/eventIDStride - 1
}

// ack applies Zulip's acknowledgement rule: last acknowledges the pending
// events up to it, and must be the id of one of them, of the last one
// acknowledged, or of a heartbeat this queue could have been sent (an id in
// the heartbeat half of an entry's range, at most scanned). Before the first
// acknowledgement an id below every pending event is accepted too. It
// returns the new acknowledged id, and an error when last is not one the
// queue gave (what was pending up to it is acknowledged all the same).
func ack(acked, last int64, pending []QueueEvent, scanned int64, truncated bool) (int64, error) {
	notInQueue := chatcore.BadRequestf("Event %d was not in this queue", last)
	newAcked := acked
	for _, e := range pending {
		if e.ID <= last {
			newAcked = e.ID
		}
	}
	switch {
	case newAcked == last:
		return newAcked, nil
	case newAcked != acked:
		return newAcked, notInQueue
	case truncated && (len(pending) == 0 || last > pending[len(pending)-1].ID):
		return acked, notInQueue
	case last%eventIDStride >= eventIDStride/2 && last/eventIDStride <= scanned:
		return last, nil // a heartbeat's id
	case acked < 0:
		return acked, nil
	}
	return acked, notInQueue
}

func errorsIsNotFound(err error) bool { return errors.Is(err, chatcore.ErrNotFound) }

// queueParams are a queue's options as its deliveries read them.
type queueParams struct {
	QueueOptions
	// queueID and userID are the queue's id and user, whom a message
	// event's local echo is for.
	queueID string
	userID  int64
}

// wants reports whether the queue's event_types take events of type t. As
// in Zulip, a queue that asked for both user_topic and muted_topics gets no
// muted_topics events (they duplicate user_topic's for older servers).
func (p *queueParams) wants(t string) bool {
	if p.EventTypes == nil {
		return true
	}
	if t == "muted_topics" && slices.Contains(p.EventTypes, "user_topic") {
		return false
	}
	return slices.Contains(p.EventTypes, t)
}

// adapt appends to out the events the log entry gives the queue, with
// their ids: none when the queue's event_types or narrow leave it out; a
// message with its content as the queue asked; a bulk deletion split per
// message for clients without bulk_message_deletion; the legacy
// realm_filters event after realm_linkifiers for clients without
// linkifier_url_template.
func (p *queueParams) adapt(c *deliveryCache, e chatcore.LoggedEvent, out []QueueEvent) []QueueEvent {
	ce := c.entry(e)
	if !ce.OK {
		return out
	}
	h := &ce.Head
	base := e.ID * eventIDStride
	switch h.Type {
	case "message":
		if !p.wants("message") || !p.matches(ce) {
			return out
		}
		data := ce.Variant(e.Data, p.ApplyMarkdown)
		if h.Echo.For(p.queueID, p.userID) {
			// Zulip's local echo: the sender's own queue learns which of
			// its unsent copies the message is.
			data = eventwire.WithLocalMessageID(data, h.Echo.LocalID)
		}
		return append(out, withID(base, h.Type, data))
	case "delete_message":
		if !p.wants(h.Type) {
			return out
		}
		if p.Capabilities.BulkMessageDeletion || h.MessageIDs == nil {
			return append(out, withID(base, h.Type, e.Data))
		}
		each, _ := eventwire.PerMessage(e.Data, h.MessageIDs)
		for i, data := range each {
			out = append(out, withID(base+int64(i), h.Type, data))
		}
		return out
	case "presence":
		if !p.wants(h.Type) {
			return out
		}
		return append(out, withID(base, h.Type, eventwire.PresenceVariant(e.Data, h.Modern, p.Capabilities.SimplifiedPresenceEvents, p.SlimPresence)))
	case "typing":
		if !p.wants(h.Type) || (h.StreamID != nil && !p.Capabilities.StreamTypingNotifications) {
			return out
		}
		return append(out, withID(base, h.Type, e.Data))
	case "realm_linkifiers":
		if p.wants(h.Type) {
			out = append(out, withID(base, h.Type, e.Data))
		}
		if !p.Capabilities.LinkifierURLTemplate && p.wants("realm_filters") {
			out = append(out, withID(base+1, "realm_filters", []byte(`{"type":"realm_filters","realm_filters":[]}`)))
		}
		return out
	}
	if !p.wants(h.Type) {
		return out
	}
	return append(out, withID(base, h.Type, e.Data))
}

// withID returns the event with "id" added to its JSON object.
func withID(id int64, typ string, data []byte) QueueEvent {
	return QueueEvent{ID: id, Type: typ, JSON: eventwire.WithID(id, data)}
}

// matches applies the queue's narrow to a message event, as Zulip's event
// narrows do: every term must hold; names compare case-insensitively.
func (p *queueParams) matches(ce *eventwire.Entry) bool {
	if len(p.Narrow) == 0 {
		return true
	}
	m, ok := ce.Message()
	if !ok {
		return false
	}
	h := &ce.Head
	for _, t := range p.Narrow {
		op, operand := t[0], t[1]
		switch {
		case op == "channel" || op == "stream":
			var name string
			if m.Type != "stream" || json.Unmarshal(m.DisplayRecipient, &name) != nil || !strings.EqualFold(name, operand) {
				return false
			}
		case op == "topic":
			if m.Type != "stream" || !strings.EqualFold(m.Subject, operand) {
				return false
			}
		case op == "sender":
			if !strings.EqualFold(m.SenderEmail, operand) {
				return false
			}
		case op == "is" && (operand == "dm" || operand == "private"):
			if m.Type != "private" {
				return false
			}
		case op == "is" && operand == "starred":
			if !slices.Contains(h.Flags, "starred") {
				return false
			}
		case op == "is" && operand == "unread":
			if slices.Contains(h.Flags, "read") {
				return false
			}
		case op == "is" && (operand == "alerted" || operand == "mentioned"):
			if !slices.Contains(h.Flags, "mentioned") {
				return false
			}
		case op == "is" && operand == "resolved":
			if m.Type != "stream" || !strings.HasPrefix(m.Subject, "✔ ") {
				return false
			}
		}
	}
	return true
}
