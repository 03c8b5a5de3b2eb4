package httpadapter

// The routes of a user's own settings: topic visibility policies, muted
// users, status and alert words.

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/alertwords"
	"github.com/chatcore/chatcore/mutedusers"
	"github.com/chatcore/chatcore/userstatus"
	"github.com/chatcore/chatcore/usertopics"
)

// personalRoutes are the routes of this file, added to routes.
func (h *handler) personalRoutes() []route {
	return []route{
		{pattern: "POST /api/v1/user_topics", fn: h.setUserTopic},
		// /users/me/muted_users/{muted_user_id}, spelled with a wildcard for
		// muted_users: ServeMux finds the literal form and
		// /users/me/{stream_id}/topics equally specific (see mutedUsersPath).
		{pattern: "POST /api/v1/users/me/{collection}/{muted_user_id}", ids: []string{"muted_user_id"}, fn: h.muteUser},
		{pattern: "DELETE /api/v1/users/me/{collection}/{muted_user_id}", ids: []string{"muted_user_id"}, fn: h.unmuteUser},
		{pattern: "POST /api/v1/users/me/status", fn: h.updateStatus},
		{pattern: "GET /api/v1/users/{user_id}/status", ids: []string{"user_id"}, fn: h.userStatus},
		{pattern: "GET /api/v1/users/me/alert_words", fn: h.alertWords},
		{pattern: "POST /api/v1/users/me/alert_words", fn: h.addAlertWords},
		{pattern: "DELETE /api/v1/users/me/alert_words", fn: h.removeAlertWords},
	}
}

// setUserTopic answers POST /user_topics.
func (h *handler) setUserTopic(ctx context.Context, c *call) (map[string]any, error) {
	var req usertopics.SetRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, usertopics.Set(ctx, h.svc, c.user.ID, req)
}

// mutedUsersPath reports whether the path of c is
// /users/me/muted_users/{muted_user_id}; any other path its pattern
// matches is a 404, as in Zulip.
func mutedUsersPath(c *call) error {
	if c.r.PathValue("collection") != "muted_users" {
		return notFound()
	}
	return nil
}

// muteUser answers POST /users/me/muted_users/{muted_user_id}.
func (h *handler) muteUser(ctx context.Context, c *call) (map[string]any, error) {
	if err := mutedUsersPath(c); err != nil {
		return nil, err
	}
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, mutedusers.Mute(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "muted_user_id"))
}

// unmuteUser answers DELETE /users/me/muted_users/{muted_user_id}.
func (h *handler) unmuteUser(ctx context.Context, c *call) (map[string]any, error) {
	if err := mutedUsersPath(c); err != nil {
		return nil, err
	}
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, mutedusers.Unmute(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "muted_user_id"))
}

// updateStatus answers POST /users/me/status.
func (h *handler) updateStatus(ctx context.Context, c *call) (map[string]any, error) {
	var req userstatus.UpdateRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, userstatus.Update(ctx, h.svc, c.user.ID, req)
}

// userStatus answers GET /users/{user_id}/status.
func (h *handler) userStatus(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	v, err := userstatus.Get(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "user_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"status": v}, nil
}

// alertWords answers GET /users/me/alert_words.
func (h *handler) alertWords(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	words, err := alertwords.List(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"alert_words": words}, nil
}

// addAlertWords answers POST /users/me/alert_words.
func (h *handler) addAlertWords(ctx context.Context, c *call) (map[string]any, error) {
	var req alertwords.Request
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	words, err := alertwords.Add(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"alert_words": words}, nil
}

// removeAlertWords answers DELETE /users/me/alert_words.
func (h *handler) removeAlertWords(ctx context.Context, c *call) (map[string]any, error) {
	var req alertwords.Request
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	words, err := alertwords.Remove(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"alert_words": words}, nil
}
