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

// oneUserParams are the parameters of GET /users/{user_id} and
// /users/{email}.
type oneUserParams struct {
	IncludeCustomProfileFields *bool `json:"include_custom_profile_fields"`
}

// user answers GET /users/{user_id}.
func (h *handler) user(ctx context.Context, c *call) (map[string]any, error) {
	var p oneUserParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	req := chatcore.UsersRequest{IncludeCustomProfileFields: p.IncludeCustomProfileFields}
	v, err := h.svc.UserWith(ctx, c.user.ID, pathID[chatcore.UserID](c, "user_id"), req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user": v}, nil
}

// userByEmail answers GET /users/{email}: every value of the path segment
// that is not a user id.
func (h *handler) userByEmail(ctx context.Context, c *call) (map[string]any, error) {
	var p oneUserParams
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	req := chatcore.UsersRequest{IncludeCustomProfileFields: p.IncludeCustomProfileFields}
	v, err := h.svc.UserByEmail(ctx, c.user.ID, c.r.PathValue("email"), req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user": v}, nil
}

// users answers GET /users.
func (h *handler) users(ctx context.Context, c *call) (map[string]any, error) {
	var req chatcore.UsersRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	vs, err := h.svc.ListUsers(ctx, c.user.ID, req)
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
