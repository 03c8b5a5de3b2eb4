package httpadapter

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
)

// me answers GET /users/me.
func (h *handler) me(ctx context.Context, c *call) (map[string]any, error) {
	v, err := accounts.Me(ctx, h.svc, c.user.ID)
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
	req := accounts.UsersRequest{IncludeCustomProfileFields: p.IncludeCustomProfileFields}
	v, err := accounts.UserWith(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "user_id"), req)
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
	req := accounts.UsersRequest{IncludeCustomProfileFields: p.IncludeCustomProfileFields}
	v, err := accounts.UserByEmail(ctx, h.svc, c.user.ID, c.r.PathValue("email"), req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user": v}, nil
}

// users answers GET /users.
func (h *handler) users(ctx context.Context, c *call) (map[string]any, error) {
	var req accounts.UsersRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	vs, err := accounts.ListUsers(ctx, h.svc, c.user.ID, req)
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
	var req accounts.DeactivateUserRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, accounts.DeactivateUser(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "user_id"), req)
}
