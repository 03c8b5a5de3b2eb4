package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore/messages"
)

// updateMessageFlags answers POST /messages/flags.
func (h *handler) updateMessageFlags(ctx context.Context, c *call) (map[string]any, error) {
	var req messages.UpdateFlagsRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := messages.UpdateFlags(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}

// updateMessageFlagsForNarrow answers POST /messages/flags/narrow.
func (h *handler) updateMessageFlagsForNarrow(ctx context.Context, c *call) (map[string]any, error) {
	var req messages.UpdateFlagsForNarrowRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := messages.UpdateFlagsForNarrow(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}

func (h *handler) messagesMatchesNarrow(ctx context.Context, c *call) (map[string]any, error) {
	var req messages.MatchesNarrowRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := messages.MatchesNarrow(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}
