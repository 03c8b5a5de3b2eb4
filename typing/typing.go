// Package typing sends Zulip's typing notifications (POST /typing) to the
// users who should see them.
package typing

import (
	"context"
	"errors"
	"slices"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// Request is POST /typing: the sender starts or stops typing a direct
// message (Type "direct", the default, with To) or a channel message (Type
// "stream" or "channel", with StreamID and Topic).
type Request struct {
	Type     string             `json:"type"`
	Op       string             `json:"op" wire:"required"`
	To       []chatcore.UserID  `json:"to"`
	StreamID *chatcore.StreamID `json:"stream_id"`
	Topic    *string            `json:"topic"`
}

// Send sends a typing event (Zulip's POST /typing). A direct message's
// event goes to its users, the sender included; a channel's to its active
// subscribers; in both cases only to active users whose
// receives_typing_notifications is on, and channel typing only to queues
// with the stream_typing_notifications capability.
//
// Errors (BAD_REQUEST): "Invalid type", "Invalid op", "Missing 'to'
// argument", "Empty 'to' list", "Invalid user ID <id>", "Missing
// 'stream_id' argument", "Missing topic", "Invalid channel ID", "Not
// authorized to send to channel '<name>'", "User has disabled typing
// notifications for direct messages" / "... for channel messages" (the
// sender's send_private_typing_notifications / send_stream_typing_notifications
// off); "to is too long" beyond [chatcore.MaxDirectRecipients]; UNAUTHORIZED for a
// missing or deactivated actor.
func Send(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req Request) error {
	channel := false
	switch req.Type {
	case "", "direct":
	case "stream", "channel":
		channel = true
	default:
		return chatcore.BadRequest("Invalid type")
	}
	if req.Op != "start" && req.Op != "stop" {
		return chatcore.BadRequest("Invalid op")
	}
	if len(req.To) > chatcore.MaxDirectRecipients {
		return chatcore.TooLongError("to", chatcore.MaxDirectRecipients)
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		event := map[string]any{"type": "typing", "op": req.Op, "sender": map[string]any{"user_id": u.ID, "email": svc.APIEmail(u)}}
		var candidates []chatcore.User
		if channel {
			st, topic, err := typingChannel(ctx, svc, tx, u, req)
			if err != nil {
				return err
			}
			if candidates, err = subscribers(ctx, tx, st); err != nil {
				return err
			}
			event["message_type"] = "stream"
			event["stream_id"] = st.ID
			event["topic"] = topic
		} else {
			if req.To == nil {
				return chatcore.BadRequest("Missing 'to' argument")
			}
			if len(req.To) == 0 {
				return chatcore.BadRequest("Empty 'to' list")
			}
			if !u.Settings.SendPrivateTypingNotifications {
				return chatcore.BadRequest("User has disabled typing notifications for direct messages")
			}
			ids := slicex.SortedSet(append(slices.Clone(req.To), u.ID))
			if candidates, err = tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, IDs: ids}); err != nil {
				return err
			}
			for _, id := range ids {
				if !slices.ContainsFunc(candidates, func(c chatcore.User) bool { return c.ID == id }) {
					return chatcore.BadRequestf("Invalid user ID %d", id)
				}
			}
			recipients := make([]map[string]any, len(candidates))
			for i := range candidates {
				recipients[i] = map[string]any{"user_id": candidates[i].ID, "email": svc.APIEmail(&candidates[i])}
			}
			event["message_type"] = "direct"
			event["recipients"] = recipients
		}
		if to := NotificationRecipients(candidates); len(to) > 0 {
			fx.Event(u.RealmID, to, event)
		}
		return nil
	})
}

// typingChannel checks a channel typing request and returns its channel
// and topic as stored. A private channel the sender is not subscribed to
// reads as a missing one.
func typingChannel(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, u *chatcore.User, req Request) (*chatcore.Stream, string, error) {
	if req.StreamID == nil {
		return nil, "", chatcore.BadRequest("Missing 'stream_id' argument")
	}
	if req.Topic == nil {
		return nil, "", chatcore.BadRequest("Missing topic")
	}
	if !u.Settings.SendStreamTypingNotifications {
		return nil, "", chatcore.BadRequest("User has disabled typing notifications for channel messages")
	}
	st, err := chatcore.StreamInRealm(ctx, tx, u.RealmID, *req.StreamID)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, "", chatcore.BadRequest("Invalid channel ID")
	}
	if err != nil {
		return nil, "", err
	}
	if st.InviteOnly {
		ok, err := chatcore.IsSubscribed(ctx, tx, st.ID, u.ID)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", chatcore.BadRequest("Invalid channel ID")
		}
	}
	if err := chatcore.CanSendToStream(ctx, tx, u, st); err != nil {
		return nil, "", err
	}
	realm, err := tx.Realm(ctx, u.RealmID)
	if err != nil {
		return nil, "", err
	}
	topic, err := chatcore.NormalizeTopic(realm, *req.Topic)
	return st, topic, err
}

// subscribers returns the users with an active subscription to st.
func subscribers(ctx context.Context, tx chatcore.Tx, st *chatcore.Stream) ([]chatcore.User, error) {
	ids, err := tx.ActiveSubscriberIDs(ctx, st.ID)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return tx.Users(ctx, chatcore.UserFilter{RealmID: st.RealmID, IDs: ids})
}
