package chatcore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatcore/chatcore/internal/slicex"
)

// CreateScheduledMessageRequest holds the parameters of POST
// /scheduled_messages, in the order Zulip reads them. The wire decoder fills
// every field but DeliverAt, which the caller sets from
// scheduled_delivery_timestamp; content, to and type are required.
type CreateScheduledMessageRequest struct {
	// Content is the message's Markdown.
	Content string `json:"content" wire:"required"`
	// To is the JSON text of the destination, Zulip's Json[int | list[int]]:
	// a channel id for a channel message, e.g. json.RawMessage("61"), or a
	// list of user ids for a direct message, e.g. json.RawMessage("[12,31]").
	// Unlike [SendMessageRequest], channel names and e-mails are not accepted.
	To json.RawMessage `json:"to" wire:"required"`
	// Type is "stream" or "channel" for a channel message, "private" or
	// "direct" for a direct message.
	Type string `json:"type" wire:"required"`
	// Topic is the topic of a channel message (required for one; ignored for
	// a direct message); the realm's empty-topic display name means the empty
	// topic.
	Topic *string `json:"topic"`
	// DeliverAt is scheduled_delivery_timestamp: when to send the message.
	DeliverAt time.Time `json:"-"`
}

// scheduledTo is the destination of a CreateScheduledMessageRequest after its
// parameters are checked: a channel id, or user ids.
type scheduledTo struct {
	channel   StreamID
	users     []UserID
	isChannel bool // To is an integer (else a list)
}

// parseScheduledParams checks req's parameters as Zulip's parameter parsing
// does, before anything else: the required ones present, type one of the
// known values, to an integer or a list of integers.
func parseScheduledParams(req CreateScheduledMessageRequest) (scheduledTo, error) {
	var to scheduledTo
	raw := bytes.TrimSpace(req.To)
	if len(raw) == 0 {
		return to, MissingArgument("to")
	}
	if req.Type == "" {
		return to, MissingArgument("type")
	}
	to, err := parseScheduledTo(raw)
	if err != nil {
		return to, err
	}
	if err := checkScheduledType(req.Type); err != nil {
		return to, err
	}
	return to, nil
}

// checkScheduledType refuses a type that is none of Zulip's recipient types.
func checkScheduledType(t string) error {
	switch t {
	case "stream", "channel", "private", "direct":
		return nil
	}
	return BadRequest("Invalid type: Value error, Not in the list of possible values")
}

// parseScheduledTo parses the JSON text of "to" as Zulip's Json[int |
// list[int]]: an integer, or a list of integers bounded by
// [MaxDirectRecipients] (deduplicated).
func parseScheduledTo(raw []byte) (scheduledTo, error) {
	var to scheduledTo
	notInteger := BadRequest("to is not an integer") // pydantic's first error for int | list[int]
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return to, BadRequest("to is not valid JSON")
	}
	switch v := v.(type) {
	case json.Number:
		n, err := strictInt(v)
		if err != nil {
			return to, notInteger
		}
		to.channel, to.isChannel = StreamID(n), true
	case []any:
		if len(v) > MaxDirectRecipients {
			return to, TooLongError("to", MaxDirectRecipients)
		}
		to.users = make([]UserID, 0, len(v))
		for _, item := range v {
			num, ok := item.(json.Number)
			if !ok {
				return to, notInteger
			}
			n, err := strictInt(num)
			if err != nil {
				return to, notInteger
			}
			to.users = append(to.users, UserID(n))
		}
		to.users = slicex.Unique(to.users)
	default:
		return to, notInteger
	}
	return to, nil
}

// strictInt parses a JSON number that is written as an integer.
func strictInt(n json.Number) (int64, error) {
	if strings.ContainsAny(n.String(), ".eE") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(n.String(), 10, 64)
}

// ScheduledMessageView is a scheduled message in the wire format of GET
// /scheduled_messages and of scheduled_messages events.
type ScheduledMessageView struct {
	ScheduledMessageID ScheduledMessageID `json:"scheduled_message_id"`
	// Type is "stream" or "private".
	Type MessageType `json:"type"`
	// To is the channel id (a StreamID) of a channel message, or the recipients
	// of a direct message ([]UserID, the sender excluded unless the message is
	// to themself).
	To any `json:"to"`
	// Topic is present for channel messages only.
	Topic                      *string `json:"topic,omitempty"`
	Content                    string  `json:"content"`
	RenderedContent            string  `json:"rendered_content"`
	ScheduledDeliveryTimestamp int64   `json:"scheduled_delivery_timestamp"`
	// Failed is true once a delivery attempt failed.
	Failed bool `json:"failed"`
}

// scheduledView builds the wire form of a scheduled message.
func scheduledView(m *ScheduledMessage) ScheduledMessageView {
	v := ScheduledMessageView{
		ScheduledMessageID:         m.ID,
		Type:                       m.Type,
		Content:                    m.Content,
		RenderedContent:            m.RenderedContent,
		ScheduledDeliveryTimestamp: m.DeliverAt.Unix(),
		Failed:                     m.Failed,
	}
	if m.Type == MessageTypeStream {
		v.To = m.StreamID
		v.Topic = new(m.Topic)
	} else {
		to := slices.Clone(m.DirectMembers)
		if to == nil {
			to = []UserID{}
		}
		v.To = to
	}
	return v
}

// errFutureDelivery is Zulip's error for a delivery time that is not in the future.
func errFutureDelivery() *Error {
	return BadRequest("Scheduled delivery time must be in the future.")
}

// Delivery times outside Python's datetime range (years 1 to 9999) are
// refused, as Zulip cannot convert them: in UNIX seconds,
// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
const (
	minDeliveryUnix = -62135596800
	maxDeliveryUnix = 253402300799
)

// checkDeliveryTime refuses a delivery time outside years 1 to 9999 with
// "scheduled_delivery_timestamp is too large" / "is too small", and one not
// after now with "Scheduled delivery time must be in the future.". It reads
// t.Unix() first: a time built with time.Unix from a huge timestamp wraps
// around in time.Time's internal representation (so it compares as a time
// in the past), but its Unix() is the timestamp it was built from.
func checkDeliveryTime(t, now time.Time) error {
	switch sec := t.Unix(); {
	case sec > maxDeliveryUnix:
		return BadRequest("scheduled_delivery_timestamp is too large")
	case sec < minDeliveryUnix:
		return BadRequest("scheduled_delivery_timestamp is too small")
	}
	if !t.After(now) {
		return errFutureDelivery()
	}
	return nil
}

// CreateScheduledMessage schedules a message from actor for delivery at
// req.DeliverAt by [Service.DeliverScheduledMessage], and returns its id. Any
// user, bots included, may schedule messages. The destination and content are validated
// as [Service.SendMessage] validates them (and checked again at delivery), the
// content is stored normalised and rendered, and a scheduled_messages "add"
// event goes to actor after commit.
//
// Errors (BAD_REQUEST unless noted), in the order Zulip checks: the
// parameters, before any store access: REQUEST_VARIABLE_MISSING "Missing 'to'
// argument" for an empty To and "Missing 'type' argument" for an empty Type,
// "to is not valid JSON", "to is not an integer" (To neither an integer nor a
// list of integers), "to is too long (limit: 1000 items)" (a list over
// [MaxDirectRecipients]; repeated ids count once otherwise), "Invalid type:
// Value error, Not in the list of possible values"; then
// "scheduled_delivery_timestamp is too large" / "is too small" when
// req.DeliverAt is outside years 1 to 9999, "Scheduled delivery time must be
// in the future." when it is not after the Service clock's now; then
// UNAUTHORIZED for a missing or deactivated actor; then "Invalid data
// type for channel ID" (a channel message to a list) or "Invalid data type
// for recipients" (a direct message to an integer), "Missing topic", and
// every error [Service.SendMessage] lists for the channel, recipients, topic
// and content.
func (s *Service) CreateScheduledMessage(ctx context.Context, actorID UserID, req CreateScheduledMessageRequest) (ScheduledMessageID, error) {
	to, err := parseScheduledParams(req)
	if err != nil {
		return 0, err
	}
	if err := checkDeliveryTime(req.DeliverAt, s.clock.Now()); err != nil {
		return 0, err
	}
	var id ScheduledMessageID
	pre := s.Prerender(ctx, actorID, nil, req.Content) // before the write lock; see render.go
	err = s.Update(ctx, func(tx Tx, fx *Effects) error {
		sender, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		var dest Destination
		switch req.Type {
		case "stream", "channel":
			if !to.isChannel {
				return BadRequest("Invalid data type for channel ID")
			}
			if req.Topic == nil {
				return BadRequest("Missing topic")
			}
			if to.channel <= 0 {
				return errChannelIDDoesNotExist(to.channel) // no such id; 0 would read as "no channel"
			}
			dest = Destination{StreamID: to.channel, Topic: *req.Topic}
		default:
			if to.isChannel {
				return BadRequest("Invalid data type for recipients")
			}
			dest = Destination{To: to.users}
		}
		m := &ScheduledMessage{
			RealmID:   sender.RealmID,
			SenderID:  sender.ID,
			Kind:      ScheduledSendLater,
			DeliverAt: req.DeliverAt.UTC(),
		}
		if err := s.checkScheduledDestination(ctx, tx, sender, dest, req.Content, m, pre); err != nil {
			return err
		}
		if err := tx.CreateScheduledMessage(ctx, m); err != nil {
			return err
		}
		id = m.ID
		fx.Event(sender.RealmID, []UserID{sender.ID}, map[string]any{
			"type":               "scheduled_messages",
			"op":                 "add",
			"scheduled_messages": []ScheduledMessageView{scheduledView(m)},
		})
		return nil
	})
	return id, err
}

// checkScheduledDestination applies the checks sendInTx makes on content,
// topic, channel and recipients without sending, and fills in the
// destination, content and rendered content of m, reusing pre (see
// renderChecked; nil for none).
func (s *Service) checkScheduledDestination(ctx context.Context, tx Tx, sender *User, dest Destination, content string, m *ScheduledMessage, pre *Prerendered) error {
	body, err := NormalizeContent(content)
	if err != nil {
		return err
	}
	if err := checkScheduledRecipient(ctx, tx, sender, dest, m); err != nil {
		return err
	}
	r, err := s.RenderChecked(ctx, tx, sender.RealmID, body, pre)
	if err != nil {
		return err
	}
	m.Content = body
	m.RenderedContent = r.HTML
	return nil
}

// checkScheduledRecipient applies the checks sendInTx makes on topic, channel
// and recipients without sending, and fills in the destination of m.
func checkScheduledRecipient(ctx context.Context, tx Tx, sender *User, dest Destination, m *ScheduledMessage) error {
	realm, err := tx.Realm(ctx, sender.RealmID)
	if err != nil {
		return err
	}
	if dest.StreamID != 0 {
		topic, err := NormalizeTopic(realm, dest.Topic)
		if err != nil {
			return err
		}
		st, err := StreamInRealm(ctx, tx, sender.RealmID, dest.StreamID)
		if errors.Is(err, ErrNotFound) {
			return errChannelIDDoesNotExist(dest.StreamID)
		}
		if err != nil {
			return err
		}
		if err := CanSendToStream(ctx, tx, sender, st); err != nil {
			return err
		}
		m.Type = MessageTypeStream
		m.StreamID = st.ID
		m.Topic = topic
		m.DirectMembers = nil
	} else {
		if len(dest.To) == 0 {
			return BadRequest("Message must have recipients")
		}
		recipients, err := activeRecipients(ctx, tx, sender.RealmID, dest.To)
		if err != nil {
			return err
		}
		others := slices.DeleteFunc(recipients, func(id UserID) bool { return id == sender.ID })
		slices.Sort(others)
		if len(others) == 0 {
			others = []UserID{sender.ID} // a message to themself
		}
		m.Type = MessageTypePrivate
		m.StreamID, m.Topic = 0, ""
		m.DirectMembers = others
	}
	return nil
}

// ScheduledMessages returns actor's undelivered scheduled messages (failed ones
// included, reminders excluded), ordered by delivery time, then id. Errors:
// UNAUTHORIZED for a missing or deactivated actor; others are internal.
func (s *Service) ScheduledMessages(ctx context.Context, actorID UserID) ([]ScheduledMessageView, error) {
	var out []ScheduledMessageView
	err := s.View(ctx, func(tx Tx) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		out, err = ScheduledViews(ctx, tx, u)
		return err
	})
	return out, err
}

// ScheduledViews returns u's pending scheduled messages (never nil).
func ScheduledViews(ctx context.Context, tx Tx, u *User) ([]ScheduledMessageView, error) {
	rows, err := tx.ScheduledMessages(ctx, ScheduledFilter{
		RealmID: u.RealmID, SenderID: u.ID, Kind: ScheduledSendLater, Delivered: new(false),
	})
	if err != nil {
		return nil, err
	}
	out := make([]ScheduledMessageView, 0, len(rows))
	for i := range rows {
		out = append(out, scheduledView(&rows[i]))
	}
	return out, nil
}

// DeleteScheduledMessage deletes (cancels) one of actor's scheduled messages
// and, after commit, sends a scheduled_messages "remove" event to actor. Any
// user may delete their own; a row that was already delivered but is still
// stored can be deleted too (it does not un-send the message).
//
// Errors: "Scheduled message does not exist" (code BAD_REQUEST, kind
// [KindNotFound]) for an unknown id, someone else's scheduled message, one of
// another realm, or a reminder id; UNAUTHORIZED for a missing or deactivated
// actor.
func (s *Service) DeleteScheduledMessage(ctx context.Context, actorID UserID, id ScheduledMessageID) error {
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := ownScheduled(ctx, tx, u, id, ScheduledSendLater)
		if err != nil {
			return err
		}
		if m == nil {
			return NotFound("Scheduled message does not exist")
		}
		if err := tx.DeleteScheduledMessage(ctx, m.ID); err != nil {
			return err
		}
		fx.Event(u.RealmID, []UserID{u.ID}, map[string]any{
			"type":                 "scheduled_messages",
			"op":                   "remove",
			"scheduled_message_id": m.ID,
		})
		return nil
	})
}

// ownScheduled returns u's row of the kind with the id, or nil when there is
// none (missing, someone else's, another realm's, or of the other kind).
func ownScheduled(ctx context.Context, tx Tx, u *User, id ScheduledMessageID, kind ScheduledKind) (*ScheduledMessage, error) {
	m, err := tx.ScheduledMessage(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if m.RealmID != u.RealmID || m.SenderID != u.ID || m.Kind != kind {
		return nil, nil
	}
	return m, nil
}
