package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/drafts"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/submessages"
)

// readReceipts answers GET /messages/{message_id}/read_receipts.
func (h *handler) readReceipts(ctx context.Context, c *call) (map[string]any, error) {
	ids, err := messages.ReadReceipts(ctx, h.svc, c.user.ID, pathID[chatcore.MessageID](c, "message_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"user_ids": ids}, nil
}

// listDrafts answers GET /drafts.
func (h *handler) listDrafts(ctx context.Context, c *call) (map[string]any, error) {
	list, err := drafts.List(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"count": len(list), "drafts": nonNil(list)}, nil
}

// createDrafts answers POST /drafts.
func (h *handler) createDrafts(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Drafts *[]drafts.Request `json:"drafts" wire:"required"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	ids, err := drafts.Create(ctx, h.svc, c.user.ID, *req.Drafts)
	if err != nil {
		return nil, err
	}
	return map[string]any{"ids": nonNil(ids)}, nil
}

// editDraft answers PATCH /drafts/{draft_id}.
func (h *handler) editDraft(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Draft *drafts.Request `json:"draft" wire:"required"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, drafts.Edit(ctx, h.svc, c.user.ID, pathID[chatcore.DraftID](c, "draft_id"), *req.Draft)
}

// deleteDraft answers DELETE /drafts/{draft_id}.
func (h *handler) deleteDraft(ctx context.Context, c *call) (map[string]any, error) {
	return nil, drafts.Delete(ctx, h.svc, c.user.ID, pathID[chatcore.DraftID](c, "draft_id"))
}

// addSubmessage answers POST /submessage.
func (h *handler) addSubmessage(ctx context.Context, c *call) (map[string]any, error) {
	var req submessages.Request
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	_, err := submessages.Add(ctx, h.svc, c.user.ID, req)
	return nil, err
}
