package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore"
)

// updateMessageFlags answers POST /messages/flags.
func (h *handler) updateMessageFlags(ctx context.Context, c *call) (map[string]any, error) {
	var req chatcore.UpdateMessageFlagsRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := h.svc.UpdateMessageFlags(ctx, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}

// updateMessageFlagsForNarrow answers POST /messages/flags/narrow.
func (h *handler) updateMessageFlagsForNarrow(ctx context.Context, c *call) (map[string]any, error) {
	var req chatcore.UpdateMessageFlagsForNarrowRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := h.svc.UpdateMessageFlagsForNarrow(ctx, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}
