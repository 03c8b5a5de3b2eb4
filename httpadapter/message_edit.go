package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/edits"
	"github.com/chatcore/chatcore/messages"
)

// updateMessage answers PATCH /messages/{message_id}.
func (h *handler) updateMessage(ctx context.Context, c *call) (map[string]any, error) {
	var req edits.Request
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, edits.Update(ctx, h.svc, c.user.ID, pathID[chatcore.MessageID](c, "message_id"), req)
}

// deleteMessage answers DELETE /messages/{message_id}.
func (h *handler) deleteMessage(ctx context.Context, c *call) (map[string]any, error) {
	return nil, edits.Delete(ctx, h.svc, c.user.ID, pathID[chatcore.MessageID](c, "message_id"))
}

// messageHistory answers GET /messages/{message_id}/history.
func (h *handler) messageHistory(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		AllowEmptyTopicName *bool `json:"allow_empty_topic_name"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	allow := req.AllowEmptyTopicName != nil && *req.AllowEmptyTopicName
	list, err := messages.History(ctx, h.svc, c.user.ID, pathID[chatcore.MessageID](c, "message_id"), allow)
	if err != nil {
		return nil, err
	}
	return map[string]any{"message_history": list}, nil
}
