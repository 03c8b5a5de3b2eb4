package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore"
)

// addReaction answers POST /messages/{message_id}/reactions.
func (h *handler) addReaction(ctx context.Context, c *call) (map[string]any, error) {
	var req chatcore.AddReactionRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, h.svc.AddReaction(ctx, c.user.ID, pathID[chatcore.MessageID](c, "message_id"), req)
}

// removeReaction answers DELETE /messages/{message_id}/reactions.
func (h *handler) removeReaction(ctx context.Context, c *call) (map[string]any, error) {
	var req chatcore.RemoveReactionRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, h.svc.RemoveReaction(ctx, c.user.ID, pathID[chatcore.MessageID](c, "message_id"), req)
}
