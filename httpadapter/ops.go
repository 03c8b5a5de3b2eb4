package httpadapter

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/scheduled"
)

// nonNil turns a nil slice into an empty one, so it encodes as [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// deleteScheduledMessage answers DELETE /scheduled_messages/{scheduled_message_id}.
func (h *handler) deleteScheduledMessage(ctx context.Context, c *call) (map[string]any, error) {
	return nil, scheduled.Delete(ctx, h.svc, c.user.ID, pathID[chatcore.ScheduledMessageID](c, "scheduled_message_id"))
}

// scheduledMessages answers GET /scheduled_messages.
func (h *handler) scheduledMessages(ctx context.Context, c *call) (map[string]any, error) {
	list, err := scheduled.List(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"scheduled_messages": nonNil(list)}, nil
}

// reminders answers GET /reminders.
func (h *handler) reminders(ctx context.Context, c *call) (map[string]any, error) {
	list, err := scheduled.Reminders(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"reminders": nonNil(list)}, nil
}

// deleteReminder answers DELETE /reminders/{reminder_id}.
func (h *handler) deleteReminder(ctx context.Context, c *call) (map[string]any, error) {
	return nil, scheduled.DeleteReminder(ctx, h.svc, c.user.ID, pathID[chatcore.ScheduledMessageID](c, "reminder_id"))
}

// linkifiers answers GET /realm/linkifiers.
func (h *handler) linkifiers(ctx context.Context, c *call) (map[string]any, error) {
	list, err := linkifiers.List(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"linkifiers": nonNil(list)}, nil
}

// removeLinkifier answers DELETE /realm/filters/{filter_id}.
func (h *handler) removeLinkifier(ctx context.Context, c *call) (map[string]any, error) {
	return nil, linkifiers.Remove(ctx, h.svc, c.user.ID, pathID[chatcore.LinkifierID](c, "filter_id"))
}

// updateSettings answers PATCH /settings (and its aliases /settings/display
// and /settings/notifications).
func (h *handler) updateSettings(ctx context.Context, c *call) (map[string]any, error) {
	var req accounts.SettingsUpdate
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	req.Authenticated = c.user
	return nil, accounts.UpdateSettings(ctx, h.svc, c.user.ID, req)
}

// confirmEmailChange answers the confirmation link of an e-mail change,
// GET /accounts/confirm_new_email/{key} (no authentication: the key is the
// credential).
func (h *handler) confirmEmailChange(ctx context.Context, c *call) (map[string]any, error) {
	if err := accounts.ConfirmEmailChange(ctx, h.svc, c.r.PathValue("key")); err != nil {
		return nil, err
	}
	return nil, nil
}

// deleteTopic answers POST /streams/{stream_id}/delete_topic.
func (h *handler) deleteTopic(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		TopicName *string `json:"topic_name" wire:"required"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := channels.DeleteTopic(ctx, h.svc, c.user.ID, pathID[chatcore.StreamID](c, "stream_id"), *req.TopicName)
	if err != nil {
		return nil, err
	}
	return map[string]any{"complete": res.Complete}, nil
}

// sendMessage answers POST /messages.
func (h *handler) sendMessage(ctx context.Context, c *call) (map[string]any, error) {
	var wire struct {
		chatcore.SendMessageRequest
		// ClientName is Zulip's "client" parameter, which names the sending
		// client ahead of the User-Agent (zerver parse_client).
		ClientName *string `json:"client"`
	}
	if err := c.decode(&wire); err != nil {
		return nil, err
	}
	req := wire.SendMessageRequest
	req.Client = clientName(c.r)
	if wire.ClientName != nil {
		req.Client = *wire.ClientName
	}
	req.Authenticated = c.user
	id, err := h.svc.SendMessage(ctx, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": id}, nil
}

// message answers GET /messages/{message_id}.
func (h *handler) message(ctx context.Context, c *call) (map[string]any, error) {
	var req messages.OneRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	v, raw, err := messages.One(ctx, h.svc, c.user.ID, pathID[chatcore.MessageID](c, "message_id"), req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"message": v, "raw_content": raw}, nil
}

// createScheduledMessage answers POST /scheduled_messages.
func (h *handler) createScheduledMessage(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		scheduled.CreateRequest
		ScheduledDeliveryTimestamp *int64 `json:"scheduled_delivery_timestamp" wire:"required"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	r := req.CreateRequest
	r.DeliverAt = time.Unix(*req.ScheduledDeliveryTimestamp, 0)
	id, err := scheduled.Create(ctx, h.svc, c.user.ID, r)
	if err != nil {
		return nil, err
	}
	return map[string]any{"scheduled_message_id": id}, nil
}

// editScheduledMessage answers PATCH /scheduled_messages/{scheduled_message_id}.
func (h *handler) editScheduledMessage(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		scheduled.EditRequest
		ScheduledDeliveryTimestamp *int64 `json:"scheduled_delivery_timestamp"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	r := req.EditRequest
	if req.ScheduledDeliveryTimestamp != nil {
		r.DeliverAt = new(time.Unix(*req.ScheduledDeliveryTimestamp, 0))
	}
	id := pathID[chatcore.ScheduledMessageID](c, "scheduled_message_id")
	return nil, scheduled.Edit(ctx, h.svc, c.user.ID, id, r)
}

// createReminder answers POST /reminders.
func (h *handler) createReminder(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		MessageID                  *chatcore.MessageID `json:"message_id" wire:"required"`
		ScheduledDeliveryTimestamp *int64              `json:"scheduled_delivery_timestamp" wire:"required"`
		Note                       *string             `json:"note"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	id, err := scheduled.CreateReminder(ctx, h.svc, c.user.ID, *req.MessageID, time.Unix(*req.ScheduledDeliveryTimestamp, 0), req.Note)
	if err != nil {
		return nil, err
	}
	return map[string]any{"reminder_id": id}, nil
}

// linkifierParams are the parameters of POST /realm/filters and
// PATCH /realm/filters/{filter_id}.
type linkifierParams struct {
	Pattern     *string `json:"pattern" wire:"required"`
	URLTemplate *string `json:"url_template" wire:"required"`
}

// addLinkifier answers POST /realm/filters.
func (h *handler) addLinkifier(ctx context.Context, c *call) (map[string]any, error) {
	var req linkifierParams
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	id, err := linkifiers.Add(ctx, h.svc, c.user.ID, *req.Pattern, *req.URLTemplate)
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": id}, nil
}

// updateLinkifier answers PATCH /realm/filters/{filter_id}.
func (h *handler) updateLinkifier(ctx context.Context, c *call) (map[string]any, error) {
	var req linkifierParams
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, linkifiers.Update(ctx, h.svc, c.user.ID, pathID[chatcore.LinkifierID](c, "filter_id"), *req.Pattern, *req.URLTemplate)
}

// reorderLinkifiers answers PATCH /realm/linkifiers.
func (h *handler) reorderLinkifiers(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		OrderedLinkifierIDs []chatcore.LinkifierID `json:"ordered_linkifier_ids" wire:"required"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, linkifiers.Reorder(ctx, h.svc, c.user.ID, req.OrderedLinkifierIDs)
}

// clientName derives the sending client's name from the User-Agent as Zulip
// does: the product token before the first "/" ("ZulipPython/0.9.1 ..." is
// "ZulipPython"); no User-Agent means "API".
func clientName(r *http.Request) string {
	ua := strings.TrimSpace(r.UserAgent())
	name, _, _ := strings.Cut(ua, "/")
	name, _, _ = strings.Cut(name, " ")
	if name == "" || len(name) > 30 {
		return "API"
	}
	return name
}

// messages answers GET /messages.
func (h *handler) messages(ctx context.Context, c *call) (map[string]any, error) {
	var req messages.Request
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := messages.Get(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	res.Messages = nonNil(res.Messages)
	return fieldsOf(res)
}
