package httpadapter

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/eventqueue"
	"github.com/chatcore/chatcore/typing"
)

// eventsParams are the parameters of GET /events.
type eventsParams struct {
	QueueID     *string `json:"queue_id"`
	LastEventID *int64  `json:"last_event_id"`
	DontBlock   *bool   `json:"dont_block"`
}

// getEvents answers GET /events, the long-poll of an event queue (see
// [eventqueue.Hub.Poll]). A client that hangs up ends the wait.
func (h *handler) getEvents(ctx context.Context, c *call) (map[string]any, error) {
	var p eventsParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	req := eventqueue.PollRequest{LastEventID: p.LastEventID, DontBlock: p.DontBlock != nil && *p.DontBlock}
	if p.QueueID != nil {
		req.QueueID = *p.QueueID
	}
	evs, err := h.events.Poll(ctx, c.user.ID, req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			return nil, errClientGone
		}
		return nil, err
	}
	list := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		list[i] = e.JSON
	}
	return map[string]any{"events": list}, nil
}

// errClientGone answers a poll whose client hung up; nobody reads it.
var errClientGone = &chatcore.Error{Code: chatcore.CodeBadRequest, Kind: chatcore.KindInvalid, Msg: "Client disconnected"}

// deleteEvents answers DELETE /events.
func (h *handler) deleteEvents(ctx context.Context, c *call) (map[string]any, error) {
	var p struct {
		QueueID *string `json:"queue_id"`
	}
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	id := ""
	if p.QueueID != nil {
		id = *p.QueueID
	}
	return nil, h.events.Delete(ctx, c.user.ID, id)
}

// typing answers POST /typing.
func (h *handler) typing(ctx context.Context, c *call) (map[string]any, error) {
	var req typing.Request
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, typing.Send(ctx, h.svc, c.user.ID, req)
}
