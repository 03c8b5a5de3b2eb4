package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore"
)

// me answers GET /users/me.
func (h *handler) me(ctx context.Context, c *call) (map[string]any, error) {
	v, err := h.svc.Me(ctx, c.user.ID)
	if err != nil {
		return nil, err
	}
	return fieldsOf(v)
}

// user answers GET /users/{user_id}.
func (h *handler) user(ctx context.Context, c *call) (map[string]any, error) {
	v, err := h.svc.User(ctx, c.user.ID, pathID[chatcore.UserID](c, "user_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"user": v}, nil
}

// users answers GET /users.
func (h *handler) users(ctx context.Context, c *call) (map[string]any, error) {
	vs, err := h.svc.Users(ctx, c.user.ID)
	if err != nil {
		return nil, err
	}
	if vs == nil {
		vs = []chatcore.UserView{}
	}
	return map[string]any{"members": vs}, nil
}

// deactivateUser answers DELETE /users/{user_id}.
func (h *handler) deactivateUser(ctx context.Context, c *call) (map[string]any, error) {
	var req chatcore.DeactivateUserRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, h.svc.DeactivateUser(ctx, c.user.ID, pathID[chatcore.UserID](c, "user_id"), req)
}
