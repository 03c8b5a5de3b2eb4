package httpadapter

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/invites"
	"github.com/chatcore/chatcore/people"
)

// Route paths the mux cannot hold as they are, because each overlaps another
// path with neither more specific (users/{user_id}/subscriptions/{stream_id}
// and users/me/{stream_id}/topics; invites/{invite_id}/resend and
// invites/multiuse/{invite_id}): each is registered under a broader mux
// pattern ending in {rest...}, which [handler.handlePath] narrows again.
const (
	userSubscriptionPath = "/api/v1/users/{user_id}/subscriptions/{stream_id}"
	inviteResendPath     = "/api/v1/invites/{invite_id}/resend"
)

// restPath says how a broader mux pattern stands in for a route path: the
// rest must be exact, or prefix followed by one segment, the value of the
// wildcard.
type restPath struct {
	mux, exact, prefix, wildcard string
}

var restPaths = map[string]restPath{
	userSubscriptionPath: {mux: "/api/v1/users/{user_id}/{rest...}", prefix: "subscriptions/", wildcard: "stream_id"},
	inviteResendPath:     {mux: "/api/v1/invites/{invite_id}/{rest...}", exact: "resend"},
}

// handlePath registers one path's handler with the mux.
func (h *handler) handlePath(p *path) {
	rp, ok := restPaths[p.path]
	if !ok {
		h.mux.Handle(p.path, h.dispatch(p))
		return
	}
	next := h.dispatch(p)
	h.mux.Handle(rp.mux, routeHandler(func(w http.ResponseWriter, r *http.Request) {
		rest := r.PathValue("rest")
		if rp.exact != "" {
			if rest != rp.exact {
				h.writeError(w, r, notFound())
				return
			}
		} else {
			v, ok := strings.CutPrefix(rest, rp.prefix)
			if !ok || v == "" || strings.Contains(v, "/") {
				h.writeError(w, r, notFound())
				return
			}
			r.SetPathValue(rp.wildcard, v)
		}
		next.ServeHTTP(w, r)
	}))
}

// peopleRoutes are the routes of people, bots and invitations.
func (h *handler) peopleRoutes() []route {
	return []route{
		{pattern: "POST /api/v1/users", fn: h.createUser},
		{pattern: "PATCH /api/v1/users/{user_id}", access: chatcore.AccessAdmin, ids: []string{"user_id"}, fn: h.updateUser},
		{pattern: "POST /api/v1/users/{user_id}/reactivate", access: chatcore.AccessAdmin, ids: []string{"user_id"}, fn: h.reactivateUser},
		{pattern: "GET " + userSubscriptionPath, ids: []string{"user_id", "stream_id"}, fn: h.subscriptionStatus},
		{pattern: "POST /api/v1/users/me/api_key/regenerate", access: chatcore.AccessHuman, fn: h.regenerateAPIKey},

		{pattern: "GET /api/v1/bots", fn: h.bots},
		{pattern: "POST /api/v1/bots", fn: h.createBot},
		{pattern: "PATCH /api/v1/bots/{bot_id}", ids: []string{"bot_id"}, fn: h.updateBot},
		{pattern: "DELETE /api/v1/bots/{bot_id}", ids: []string{"bot_id"}, fn: h.deactivateBot},
		{pattern: "POST /api/v1/bots/{bot_id}/api_key/regenerate", ids: []string{"bot_id"}, fn: h.regenerateBotAPIKey},

		{pattern: "GET /api/v1/invites", fn: h.invites},
		{pattern: "POST /api/v1/invites", fn: h.invite},
		{pattern: "DELETE /api/v1/invites/{invite_id}", ids: []string{"invite_id"}, fn: h.revokeInvite},
		{pattern: "POST " + inviteResendPath, ids: []string{"invite_id"}, fn: h.resendInvite},
		{pattern: "POST /api/v1/invites/multiuse", fn: h.createMultiUse},
		{pattern: "DELETE /api/v1/invites/multiuse/{invite_id}", ids: []string{"invite_id"}, fn: h.revokeMultiUse},
	}
}

// createUser answers POST /users.
func (h *handler) createUser(ctx context.Context, c *call) (map[string]any, error) {
	var req people.CreateUserRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	id, err := people.CreateUser(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user_id": id}, nil
}

// updateUser answers PATCH /users/{user_id}.
func (h *handler) updateUser(ctx context.Context, c *call) (map[string]any, error) {
	var req people.UpdateUserRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, people.UpdateUser(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "user_id"), req)
}

// reactivateUser answers POST /users/{user_id}/reactivate.
func (h *handler) reactivateUser(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, people.ReactivateUser(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "user_id"))
}

// subscriptionStatus answers GET /users/{user_id}/subscriptions/{stream_id}.
func (h *handler) subscriptionStatus(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	ok, err := people.SubscriptionStatus(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "user_id"), pathID[chatcore.StreamID](c, "stream_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"is_subscribed": ok}, nil
}

// regenerateAPIKey answers POST /users/me/api_key/regenerate.
func (h *handler) regenerateAPIKey(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	key, err := people.RegenerateAPIKey(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"api_key": key}, nil
}

// bots answers GET /bots.
func (h *handler) bots(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	bots, err := people.ListBots(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"bots": bots}, nil
}

// createBot answers POST /bots.
func (h *handler) createBot(ctx context.Context, c *call) (map[string]any, error) {
	var req people.CreateBotRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := people.CreateBot(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}

// updateBot answers PATCH /bots/{bot_id}.
func (h *handler) updateBot(ctx context.Context, c *call) (map[string]any, error) {
	var req people.UpdateBotRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	res, err := people.UpdateBot(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "bot_id"), req)
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}

// deactivateBot answers DELETE /bots/{bot_id}.
func (h *handler) deactivateBot(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, people.DeactivateBot(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "bot_id"))
}

// regenerateBotAPIKey answers POST /bots/{bot_id}/api_key/regenerate.
func (h *handler) regenerateBotAPIKey(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	key, err := people.RegenerateBotAPIKey(ctx, h.svc, c.user.ID, pathID[chatcore.UserID](c, "bot_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"api_key": key}, nil
}

// inviteParams are the parameters POST /invites and /invites/multiuse share.
type inviteParams struct {
	// Expires is invite_expires_in_minutes: an integer or null (never).
	Expires   json.RawMessage    `json:"invite_expires_in_minutes"`
	InviteAs  *chatcore.Role     `json:"invite_as"`
	DefaultOn *bool              `json:"include_realm_default_subscriptions"`
	GroupIDs  []chatcore.GroupID `json:"group_ids"`
}

// request converts the shared parameters.
func (p *inviteParams) request(streams []chatcore.StreamID) (invites.Request, error) {
	req := invites.Request{InviteAs: p.InviteAs, StreamIDs: streams, IncludeRealmDefaultStreams: p.DefaultOn != nil && *p.DefaultOn}
	if len(p.Expires) > 0 {
		if string(p.Expires) == "null" {
			req.Expires = &invites.Expiry{Never: true}
		} else {
			var n int
			if err := json.Unmarshal(p.Expires, &n); err != nil {
				return req, chatcore.BadRequest("invite_expires_in_minutes is not an integer")
			}
			req.Expires = &invites.Expiry{Minutes: n}
		}
	}
	if len(p.GroupIDs) > 0 {
		// User groups joined at sign-up are the groups helper's; none
		// can be named yet.
		return req, chatcore.BadRequestf("Invalid user group ID: %d", p.GroupIDs[0])
	}
	return req, nil
}

// invites answers GET /invites.
func (h *handler) invites(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	vs, err := invites.List(ctx, h.svc, c.user.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"invites": vs}, nil
}

// invite answers POST /invites.
func (h *handler) invite(ctx context.Context, c *call) (map[string]any, error) {
	var p struct {
		inviteParams
		InviteeEmails *string             `json:"invitee_emails" wire:"required"`
		StreamIDs     []chatcore.StreamID `json:"stream_ids" wire:"required"`
		Notify        *bool               `json:"notify_referrer_on_join"`
	}
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	req, err := p.request(p.StreamIDs)
	if err != nil {
		return nil, err
	}
	return nil, invites.Invite(ctx, h.svc, c.user.ID, invites.EmailRequest{Request: req, InviteeEmails: *p.InviteeEmails, NotifyReferrerOnJoin: p.Notify})
}

// revokeInvite answers DELETE /invites/{invite_id}.
func (h *handler) revokeInvite(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, invites.Revoke(ctx, h.svc, c.user.ID, pathID[chatcore.InviteID](c, "invite_id"))
}

// resendInvite answers POST /invites/{invite_id}/resend.
func (h *handler) resendInvite(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, invites.Resend(ctx, h.svc, c.user.ID, pathID[chatcore.InviteID](c, "invite_id"))
}

// createMultiUse answers POST /invites/multiuse.
func (h *handler) createMultiUse(ctx context.Context, c *call) (map[string]any, error) {
	var p struct {
		inviteParams
		StreamIDs []chatcore.StreamID `json:"stream_ids"`
	}
	if err := c.decode(&p); err != nil {
		return nil, err
	}
	req, err := p.request(p.StreamIDs)
	if err != nil {
		return nil, err
	}
	link, err := invites.CreateMultiUse(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"invite_link": link}, nil
}

// revokeMultiUse answers DELETE /invites/multiuse/{invite_id}.
func (h *handler) revokeMultiUse(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	return nil, invites.RevokeMultiUse(ctx, h.svc, c.user.ID, pathID[chatcore.InviteID](c, "invite_id"))
}
