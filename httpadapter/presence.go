package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore/presence"
)

// updatePresence answers POST /users/me/presence: nothing more with
// ping_only, else presences, server_timestamp and presence_last_update_id.
func (h *handler) updatePresence(ctx context.Context, c *call) (map[string]any, error) {
	var req presence.UpdateRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	ans, err := presence.Update(ctx, h.svc, c.user.ID, req)
	if err != nil || req.PingOnly != nil && *req.PingOnly {
		return nil, err
	}
	return map[string]any{
		"presences": ans.Presences, "server_timestamp": ans.ServerTimestamp,
		"presence_last_update_id": ans.LastUpdateID,
	}, nil
}

// realmPresence answers GET /realm/presence.
func (h *handler) realmPresence(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	ans, err := presence.Realm(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"presences": ans.Presences, "server_timestamp": ans.ServerTimestamp}, nil
}

// userPresence answers GET /users/{user_id_or_email}/presence.
func (h *handler) userPresence(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		SlimPresence *bool `json:"slim_presence"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	p, err := presence.User(ctx, h.svc, c.user.ID, c.r.PathValue("user_id_or_email"), req.SlimPresence != nil && *req.SlimPresence)
	if err != nil {
		return nil, err
	}
	return map[string]any{"presence": p}, nil
}
