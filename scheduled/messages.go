package scheduled

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// CreateRequest holds the parameters of POST
// /scheduled_messages, in the order Zulip reads them. The wire decoder fills
// every field but DeliverAt, which the caller sets from
// scheduled_delivery_timestamp; content, to and type are required.
type CreateRequest struct {
	// Content is the message's Markdown.
	Content string `json:"content" wire:"required"`
	// To is the JSON text of the destination, Zulip's Json[int | list[int]]:
	// a channel id for a channel message, e.g. json.RawMessage("61"), or a
	// list of user ids for a direct message, e.g. json.RawMessage("[12,31]").
	// Unlike [chatcore.SendMessageRequest], channel names and e-mails are not accepted.
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

// scheduledTo is the destination of a CreateRequest after its
// parameters are checked: a channel id, or user ids.
type scheduledTo struct {
	channel   chatcore.StreamID
	users     []chatcore.UserID
	isChannel bool // To is an integer (else a list)
}

// parseScheduledParams checks req's parameters as Zulip's parameter parsing
// does, before anything else: the required ones present, type one of the
// known values, to an integer or a list of integers.
func parseScheduledParams(req CreateRequest) (scheduledTo, error) {
	var to scheduledTo
	raw := bytes.TrimSpace(req.To)
	if len(raw) == 0 {
		return to, chatcore.MissingArgument("to")
	}
	if req.Type == "" {
		return to, chatcore.MissingArgument("type")
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
	return chatcore.BadRequest("Invalid type: Value error, Not in the list of possible values")
}

// parseScheduledTo parses the JSON text of "to" as Zulip's Json[int |
// list[int]]: an integer, or a list of integers bounded by
// [chatcore.MaxDirectRecipients] (deduplicated).
func parseScheduledTo(raw []byte) (scheduledTo, error) {
	var to scheduledTo
	notInteger := chatcore.BadRequest("to is not an integer") // pydantic's first error for int | list[int]
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return to, chatcore.BadRequest("to is not valid JSON")
	}
	switch v := v.(type) {
	case json.Number:
		n, err := strictInt(v)
		if err != nil {
			return to, notInteger
		}
		to.channel, to.isChannel = chatcore.StreamID(n), true
	case []any:
		if len(v) > chatcore.MaxDirectRecipients {
			return to, chatcore.TooLongError("to", chatcore.MaxDirectRecipients)
		}
		to.users = make([]chatcore.UserID, 0, len(v))
		for _, item := range v {
			num, ok := item.(json.Number)
			if !ok {
				return to, notInteger
			}
			n, err := strictInt(num)
			if err != nil {
				return to, notInteger
			}
			to.users = append(to.users, chatcore.UserID(n))
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

// View is a scheduled message in the wire format of GET
// /scheduled_messages and of scheduled_messages events.
type View struct {
	ScheduledMessageID chatcore.ScheduledMessageID `json:"scheduled_message_id"`
	// Type is "stream" or "private".
	Type chatcore.MessageType `json:"type"`
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

// view builds the wire form of a scheduled message.
func view(m *chatcore.ScheduledMessage) View {
	v := View{
		ScheduledMessageID:         m.ID,
		Type:                       m.Type,
		Content:                    m.Content,
		RenderedContent:            m.RenderedContent,
		ScheduledDeliveryTimestamp: m.DeliverAt.Unix(),
		Failed:                     m.Failed,
	}
	if m.Type == chatcore.MessageTypeStream {
		v.To = m.StreamID
		v.Topic = new(m.Topic)
	} else {
		to := slices.Clone(m.DirectMembers)
		if to == nil {
			to = []chatcore.UserID{}
		}
		v.To = to
	}
	return v
}

// errFutureDelivery is Zulip's error for a delivery time that is not in the
// future.
func errFutureDelivery() *chatcore.Error {
	return chatcore.BadRequest("Scheduled delivery time must be in the future.")
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
		return chatcore.BadRequest("scheduled_delivery_timestamp is too large")
	case sec < minDeliveryUnix:
		return chatcore.BadRequest("scheduled_delivery_timestamp is too small")
	}
	if !t.After(now) {
		return errFutureDelivery()
	}
	return nil
}

// Create schedules a message from actor for delivery at req.DeliverAt by
// [DeliverDue], and returns its id. Any user, bots included, may schedule
// messages. The destination and content are validated as
// [chatcore.Service.SendMessage] validates them (and checked again at
// delivery), the content is stored normalised and rendered, and a
// scheduled_messages "add" event goes to actor after commit.
//
// Errors (BAD_REQUEST unless noted), in the order Zulip checks: the parameters,
// before any store access: REQUEST_VARIABLE_MISSING "Missing 'to' argument" for
// an empty To and "Missing 'type' argument" for an empty Type, "to is not valid
// JSON", "to is not an integer" (To neither an integer nor a list of integers),
// "to is too long (limit: 1000 items)" (a list over
// [chatcore.MaxDirectRecipients]; repeated ids count once otherwise), "Invalid
// type: Value error, Not in the list of possible values"; then
// "scheduled_delivery_timestamp is too large" / "is too small" when
// req.DeliverAt is outside years 1 to 9999, "Scheduled delivery time must be in
// the future." when it is not after the Service clock's now; then UNAUTHORIZED
// for a missing or deactivated actor; then "Invalid data type for channel ID"
// (a channel message to a list) or "Invalid data type for recipients" (a direct
// message to an integer), "Missing topic", and every error
// [chatcore.Service.SendMessage] lists for the channel, recipients, topic and
// content.
func Create(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req CreateRequest) (chatcore.ScheduledMessageID, error) {
	to, err := parseScheduledParams(req)
	if err != nil {
		return 0, err
	}
	if err := checkDeliveryTime(req.DeliverAt, svc.Now()); err != nil {
		return 0, err
	}
	var id chatcore.ScheduledMessageID
	pre := svc.Prerender(ctx, actorID, nil, req.Content) // before the write lock
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		sender, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		var dest chatcore.Destination
		switch req.Type {
		case "stream", "channel":
			if !to.isChannel {
				return chatcore.BadRequest("Invalid data type for channel ID")
			}
			if req.Topic == nil {
				return chatcore.BadRequest("Missing topic")
			}
			if to.channel <= 0 {
				return chatcore.ChannelIDDoesNotExistError(to.channel) // no such id; 0 would read as "no channel"
			}
			dest = chatcore.Destination{StreamID: to.channel, Topic: *req.Topic}
		default:
			if to.isChannel {
				return chatcore.BadRequest("Invalid data type for recipients")
			}
			dest = chatcore.Destination{To: to.users}
		}
		m := &chatcore.ScheduledMessage{
			RealmID:   sender.RealmID,
			SenderID:  sender.ID,
			Kind:      chatcore.ScheduledSendLater,
			DeliverAt: req.DeliverAt.UTC(),
		}
		if err := checkDestination(ctx, svc, tx, sender, dest, req.Content, m, pre); err != nil {
			return err
		}
		if err := tx.CreateScheduledMessage(ctx, m); err != nil {
			return err
		}
		id = m.ID
		fx.Event(sender.RealmID, []chatcore.UserID{sender.ID}, map[string]any{
			"type":               "scheduled_messages",
			"op":                 "add",
			"scheduled_messages": []View{view(m)},
		})
		return nil
	})
	return id, err
}

// checkDestination applies the checks SendInTx makes on content,
// topic, channel and recipients without sending, and fills in the
// destination, content and rendered content of m, reusing pre (see
// RenderChecked; nil for none).
func checkDestination(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, sender *chatcore.User, dest chatcore.Destination, content string, m *chatcore.ScheduledMessage, pre *chatcore.Prerendered) error {
	body, err := chatcore.NormalizeContent(content)
	if err != nil {
		return err
	}
	if err := checkRecipient(ctx, tx, sender, dest, m); err != nil {
		return err
	}
	r, err := svc.RenderChecked(ctx, tx, sender.RealmID, body, pre)
	if err != nil {
		return err
	}
	m.Content = body
	m.RenderedContent = r.HTML
	return nil
}

// checkRecipient applies the checks SendInTx makes on topic, channel
// and recipients without sending, and fills in the destination of m.
func checkRecipient(ctx context.Context, tx chatcore.Tx, sender *chatcore.User, dest chatcore.Destination, m *chatcore.ScheduledMessage) error {
	realm, err := tx.Realm(ctx, sender.RealmID)
	if err != nil {
		return err
	}
	if dest.StreamID != 0 {
		topic, err := chatcore.NormalizeTopic(realm, dest.Topic)
		if err != nil {
			return err
		}
		st, err := chatcore.StreamInRealm(ctx, tx, sender.RealmID, dest.StreamID)
		if errors.Is(err, chatcore.ErrNotFound) {
			return chatcore.ChannelIDDoesNotExistError(dest.StreamID)
		}
		if err != nil {
			return err
		}
		if err := chatcore.CanSendToStream(ctx, tx, sender, st); err != nil {
			return err
		}
		m.Type = chatcore.MessageTypeStream
		m.StreamID = st.ID
		m.Topic = topic
		m.DirectMembers = nil
	} else {
		if len(dest.To) == 0 {
			return chatcore.BadRequest("Message must have recipients")
		}
		recipients, err := chatcore.ActiveRecipients(ctx, tx, sender.RealmID, dest.To)
		if err != nil {
			return err
		}
		others := slices.DeleteFunc(recipients, func(id chatcore.UserID) bool { return id == sender.ID })
		slices.Sort(others)
		if len(others) == 0 {
			others = []chatcore.UserID{sender.ID} // a message to themself
		}
		m.Type = chatcore.MessageTypePrivate
		m.StreamID, m.Topic = 0, ""
		m.DirectMembers = others
	}
	return nil
}

// List returns actor's undelivered scheduled messages (failed ones
// included, reminders excluded), ordered by delivery time, then id. Errors:
// UNAUTHORIZED for a missing or deactivated actor; others are internal.
func List(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) ([]View, error) {
	return listOwn(ctx, svc, actorID, Views)
}

// Views returns u's pending scheduled messages (never nil).
func Views(ctx context.Context, tx chatcore.Tx, u *chatcore.User) ([]View, error) {
	return pending(ctx, tx, u, chatcore.ScheduledSendLater, view)
}

// Delete deletes (cancels) one of actor's scheduled messages and, after commit,
// sends a scheduled_messages "remove" event to actor. Any user may delete their
// own; a row that was already delivered but is still stored can be deleted too
// (it does not un-send the message).
//
// Errors: "Scheduled message does not exist" (code BAD_REQUEST, kind
// [chatcore.KindNotFound]) for an unknown id, someone else's scheduled message,
// one of another realm, or a reminder id; UNAUTHORIZED for a missing or
// deactivated actor.
func Delete(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.ScheduledMessageID) error {
	return deleteOwn(ctx, svc, actorID, id, chatcore.ScheduledSendLater, "Scheduled message does not exist")
}

// ownScheduled returns u's row of the kind with the id, or nil when there is
// none (missing, someone else's, another realm's, or of the other kind).
func ownScheduled(ctx context.Context, tx chatcore.Tx, u *chatcore.User, id chatcore.ScheduledMessageID, kind chatcore.ScheduledKind) (*chatcore.ScheduledMessage, error) {
	m, err := tx.ScheduledMessage(ctx, id)
	if errors.Is(err, chatcore.ErrNotFound) {
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

// listOwn returns, in one View, actor's pending rows as views reads them.
func listOwn[T any](ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, views func(context.Context, chatcore.Tx, *chatcore.User) ([]T, error)) ([]T, error) {
	var out []T
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		out, err = views(ctx, tx, u)
		return err
	})
	return out, err
}

// pending returns u's undelivered rows of the kind (failed ones included),
// ordered by delivery time, then id, each in its wire form (never nil).
func pending[T any](ctx context.Context, tx chatcore.Tx, u *chatcore.User, kind chatcore.ScheduledKind, wire func(*chatcore.ScheduledMessage) T) ([]T, error) {
	rows, err := tx.ScheduledMessages(ctx, chatcore.ScheduledFilter{
		RealmID: u.RealmID, SenderID: u.ID, Kind: kind, Delivered: new(false),
	})
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(rows))
	for i := range rows {
		out = append(out, wire(&rows[i]))
	}
	return out, nil
}

// deleteOwn deletes actor's row of the kind with the id and, after commit,
// tells actor (see removed); missing is the message of the KindNotFound
// error for an id that is not one of actor's rows of the kind.
func deleteOwn(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.ScheduledMessageID, kind chatcore.ScheduledKind, missing string) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := ownScheduled(ctx, tx, u, id, kind)
		if err != nil {
			return err
		}
		if m == nil {
			return chatcore.NotFound(missing)
		}
		if err := tx.DeleteScheduledMessage(ctx, m.ID); err != nil {
			return err
		}
		removed(fx, m)
		return nil
	})
}

// removed records the event that tells m's owner that m is no longer
// pending (deleted or delivered): reminders "remove" for a reminder,
// scheduled_messages "remove" otherwise.
func removed(fx *chatcore.Effects, m *chatcore.ScheduledMessage) {
	data := map[string]any{"type": "scheduled_messages", "op": "remove", "scheduled_message_id": m.ID}
	if m.Kind == chatcore.ScheduledReminder {
		data = map[string]any{"type": "reminders", "op": "remove", "reminder_id": m.ID}
	}
	fx.Event(m.RealmID, []chatcore.UserID{m.SenderID}, data)
}
