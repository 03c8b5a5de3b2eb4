package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/reactions"
)

// addReaction answers POST /messages/{message_id}/reactions.
func (h *handler) addReaction(ctx context.Context, c *call) (map[string]any, error) {
	var req reactions.AddRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, reactions.Add(ctx, h.svc, c.user.ID, pathID[chatcore.MessageID](c, "message_id"), req)
}

// removeReaction answers DELETE /messages/{message_id}/reactions.
func (h *handler) removeReaction(ctx context.Context, c *call) (map[string]any, error) {
	var req reactions.RemoveRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, reactions.Remove(ctx, h.svc, c.user.ID, pathID[chatcore.MessageID](c, "message_id"), req)
}
