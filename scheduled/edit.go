package scheduled

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/chatcore/chatcore"
)

// EditRequest holds the parameters of PATCH
// /scheduled_messages/{scheduled_message_id}. Every field is optional; at
// least one must be set. The wire decoder fills every field but DeliverAt,
// which the caller sets from scheduled_delivery_timestamp.
type EditRequest struct {
	// Type is the new type: "stream" or "channel", "private" or "direct".
	// Changing it needs To (and Topic for a channel).
	Type *string `json:"type"`
	// To is the JSON text of the new destination, as in
	// [CreateRequest.To]; empty keeps the destination.
	To json.RawMessage `json:"to"`
	// Topic is the new topic; ignored for a direct message.
	Topic *string `json:"topic"`
	// Content is the new Markdown content.
	Content *string `json:"content"`
	// DeliverAt is the new delivery time (scheduled_delivery_timestamp).
	DeliverAt *time.Time `json:"-"`
}

// Edit changes one of actor's undelivered scheduled messages as Zulip's
// edit_scheduled_message does: a changed type, destination or content is
// checked again as [Create] checks it (the fields not given keep their stored
// values), a topic alone is checked against the channel rules, and a message
// whose delivery failed is queued for delivery again (its failed flag cleared),
// which needs a new delivery time. After commit a scheduled_messages "update"
// event with the new state goes to actor.
//
// Errors (BAD_REQUEST unless noted), in Zulip's order: the parameters, before
// any store access: "to is not valid JSON", "to is not an integer", "to is too
// long (limit: 1000 items)", "Invalid type: Value error, Not in the list of
// possible values"; "Nothing to change" when no field is set; "Recipient
// required when updating type of scheduled message." (Type without To); "Topic
// required when updating scheduled message type to channel.";
// "scheduled_delivery_timestamp is too large" / "is too small" and "Scheduled
// delivery time must be in the future."; then UNAUTHORIZED for a missing or
// deactivated actor; "Scheduled message does not exist" (kind
// [chatcore.KindNotFound]) for an id that is not one of actor's scheduled
// messages; "Scheduled message was already sent"; "Scheduled delivery time must
// be in the future." for a failed message edited without a new time; then the
// destination and content errors Create lists.
func Edit(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.ScheduledMessageID, req EditRequest) error {
	var to *scheduledTo
	if raw := bytes.TrimSpace(req.To); len(raw) > 0 {
		t, err := parseScheduledTo(raw)
		if err != nil {
			return err
		}
		to = &t
	}
	if req.Type != nil {
		if err := checkScheduledType(*req.Type); err != nil {
			return err
		}
	}
	if req.Type == nil && to == nil && req.Topic == nil && req.Content == nil && req.DeliverAt == nil {
		return chatcore.BadRequest("Nothing to change")
	}
	var newType chatcore.MessageType // "" keeps the stored type
	if req.Type != nil && *req.Type != "" {
		if to == nil {
			return chatcore.BadRequest("Recipient required when updating type of scheduled message.")
		}
		newType = chatcore.MessageTypePrivate
		if *req.Type == "stream" || *req.Type == "channel" {
			newType = chatcore.MessageTypeStream
		}
	}
	if newType == chatcore.MessageTypeStream && req.Topic == nil {
		return chatcore.BadRequest("Topic required when updating scheduled message type to channel.")
	}
	if req.DeliverAt != nil {
		if err := checkDeliveryTime(*req.DeliverAt, svc.Now()); err != nil {
			return err
		}
	}
	var pre *chatcore.Prerendered
	if req.Content != nil {
		pre = svc.Prerender(ctx, actorID, nil, *req.Content) // before the write lock
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		sender, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := ownScheduled(ctx, tx, sender, id, chatcore.ScheduledSendLater)
		if err != nil {
			return err
		}
		if m == nil {
			return chatcore.NotFound("Scheduled message does not exist")
		}
		if m.Delivered {
			return chatcore.BadRequest("Scheduled message was already sent")
		}
		if m.Failed && req.DeliverAt == nil {
			return errFutureDelivery() // a failed message needs a new time
		}
		switch {
		case newType != "" || to != nil || req.Content != nil:
			dest, err := editedDestination(m, newType, to, req.Topic)
			if err != nil {
				return err
			}
			if req.Content != nil {
				err = checkDestination(ctx, svc, tx, sender, dest, *req.Content, m, pre)
			} else {
				// The stored content was checked when it was stored; its
				// rendering stays, as in Zulip.
				err = checkRecipient(ctx, tx, sender, dest, m)
			}
			if err != nil {
				return err
			}
		case req.Topic != nil && m.Type == chatcore.MessageTypeStream:
			realm, err := tx.Realm(ctx, sender.RealmID)
			if err != nil {
				return err
			}
			topic, err := chatcore.NormalizeTopic(realm, *req.Topic)
			if err != nil {
				return err
			}
			m.Topic = topic
		}
		if req.DeliverAt != nil {
			m.DeliverAt = req.DeliverAt.UTC()
		}
		m.Failed, m.FailureMessage = false, ""
		if err := tx.UpdateScheduledMessage(ctx, m); err != nil {
			return err
		}
		fx.Event(sender.RealmID, []chatcore.UserID{sender.ID}, map[string]any{
			"type":              "scheduled_messages",
			"op":                "update",
			"scheduled_message": view(m),
		})
		return nil
	})
}

// editedDestination is the destination of m after an edit: the new type (or
// the stored one), the new "to" (or the stored recipients) and the new topic
// (or the stored one).
func editedDestination(m *chatcore.ScheduledMessage, newType chatcore.MessageType, to *scheduledTo, topic *string) (chatcore.Destination, error) {
	typ := newType
	if typ == "" {
		typ = m.Type
	}
	if typ == chatcore.MessageTypeStream {
		channel := m.StreamID
		if to != nil {
			if !to.isChannel {
				return chatcore.Destination{}, chatcore.BadRequest("Invalid data type for channel ID")
			}
			if to.channel <= 0 {
				return chatcore.Destination{}, chatcore.ChannelIDDoesNotExistError(to.channel) // 0 would read as "no channel"
			}
			channel = to.channel
		}
		t := m.Topic
		if topic != nil {
			t = *topic
		}
		return chatcore.Destination{StreamID: channel, Topic: t}, nil
	}
	users := m.DirectMembers
	if to != nil {
		if to.isChannel {
			return chatcore.Destination{}, chatcore.BadRequest("Invalid data type for recipients")
		}
		users = to.users
	}
	return chatcore.Destination{To: users}, nil
}
