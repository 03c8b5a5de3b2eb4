package chatcore

import (
	"context"
	"errors"
	"slices"

	"github.com/chatcore/chatcore/internal/slicex"
)

// TypingRequest is POST /typing: the sender starts or stops typing a direct
// message (Type "direct", the default, with To) or a channel message (Type
// "stream" or "channel", with StreamID and Topic).
type TypingRequest struct {
	Type     string    `json:"type"`
	Op       string    `json:"op" wire:"required"`
	To       []UserID  `json:"to"`
	StreamID *StreamID `json:"stream_id"`
	Topic    *string   `json:"topic"`
}

// SendTyping sends a typing event (Zulip's POST /typing). A direct message's
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
// off); "to is too long" beyond [MaxDirectRecipients]; UNAUTHORIZED for a
// missing or deactivated actor.
func (s *Service) SendTyping(ctx context.Context, actorID UserID, req TypingRequest) error {
	channel := false
	switch req.Type {
	case "", "direct":
	case "stream", "channel":
		channel = true
	default:
		return BadRequest("Invalid type")
	}
	if req.Op != "start" && req.Op != "stop" {
		return BadRequest("Invalid op")
	}
	if len(req.To) > MaxDirectRecipients {
		return BadRequestf("to is too long (limit: %d items)", MaxDirectRecipients)
	}
	return s.Update(ctx, func(tx Tx, fx *Effects) error {
		u, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		event := map[string]any{"type": "typing", "op": req.Op, "sender": map[string]any{"user_id": u.ID, "email": s.APIEmail(u)}}
		var candidates []User
		if channel {
			st, topic, err := s.typingChannel(ctx, tx, u, req)
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
				return BadRequest("Missing 'to' argument")
			}
			if len(req.To) == 0 {
				return BadRequest("Empty 'to' list")
			}
			if !u.Settings.SendPrivateTypingNotifications {
				return BadRequest("User has disabled typing notifications for direct messages")
			}
			ids := append(slicex.Unique(req.To), u.ID)
			slices.Sort(ids)
			ids = slices.Compact(ids)
			if candidates, err = tx.Users(ctx, UserFilter{RealmID: u.RealmID, IDs: ids}); err != nil {
				return err
			}
			for _, id := range ids {
				if !slices.ContainsFunc(candidates, func(c User) bool { return c.ID == id }) {
					return BadRequestf("Invalid user ID %d", id)
				}
			}
			recipients := make([]map[string]any, len(candidates))
			for i := range candidates {
				recipients[i] = map[string]any{"user_id": candidates[i].ID, "email": s.APIEmail(&candidates[i])}
			}
			event["message_type"] = "direct"
			event["recipients"] = recipients
		}
		if to := TypingNotificationRecipients(candidates); len(to) > 0 {
			fx.Event(u.RealmID, to, event)
		}
		return nil
	})
}

// typingChannel checks a channel typing request and returns its channel
// and topic as stored. A private channel the sender is not subscribed to
// reads as a missing one.
func (s *Service) typingChannel(ctx context.Context, tx Tx, u *User, req TypingRequest) (*Stream, string, error) {
	if req.StreamID == nil {
		return nil, "", BadRequest("Missing 'stream_id' argument")
	}
	if req.Topic == nil {
		return nil, "", BadRequest("Missing topic")
	}
	if !u.Settings.SendStreamTypingNotifications {
		return nil, "", BadRequest("User has disabled typing notifications for channel messages")
	}
	st, err := StreamInRealm(ctx, tx, u.RealmID, *req.StreamID)
	if errors.Is(err, ErrNotFound) {
		return nil, "", BadRequest("Invalid channel ID")
	}
	if err != nil {
		return nil, "", err
	}
	if st.InviteOnly {
		ok, err := IsSubscribed(ctx, tx, st.ID, u.ID)
		if err != nil {
			return nil, "", err
		}
		if !ok {
			return nil, "", BadRequest("Invalid channel ID")
		}
	}
	if err := CanSendToStream(ctx, tx, u, st); err != nil {
		return nil, "", err
	}
	realm, err := tx.Realm(ctx, u.RealmID)
	if err != nil {
		return nil, "", err
	}
	topic, err := NormalizeTopic(realm, *req.Topic)
	return st, topic, err
}

// subscribers returns the users with an active subscription to st.
func subscribers(ctx context.Context, tx Tx, st *Stream) ([]User, error) {
	ids, err := tx.ActiveSubscriberIDs(ctx, st.ID)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return tx.Users(ctx, UserFilter{RealmID: st.RealmID, IDs: ids})
}
