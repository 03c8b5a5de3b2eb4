package httpadapter

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
)

// principals decodes the principals parameter: a JSON list of user ids or of
// e-mail addresses (Zulip accepts either kind, not a mix).
func principals(raw json.RawMessage) (channels.Principals, error) {
	var p channels.Principals
	if raw == nil {
		return p, nil
	}
	if err := json.Unmarshal(raw, &p.IDs); err == nil {
		return p, nil
	}
	p.IDs = nil
	if err := json.Unmarshal(raw, &p.Emails); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return channels.Principals{}, chatcore.BadRequest("principals is not an allowed_type")
	}
	return p, nil
}

// subscriptions answers GET /users/me/subscriptions.
func (h *handler) subscriptions(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		IncludeSubscribers *bool `json:"include_subscribers"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	subs, err := channels.Subscriptions(ctx, h.svc, c.user.ID, req.IncludeSubscribers != nil && *req.IncludeSubscribers)
	if err != nil {
		return nil, err
	}
	return map[string]any{"subscriptions": nonNil(subs)}, nil
}

// subscribe answers POST /users/me/subscriptions.
func (h *handler) subscribe(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Subscriptions              []channels.NewChannel `json:"subscriptions" wire:"required"`
		Principals                 json.RawMessage       `json:"principals"`
		InviteOnly                 *bool                 `json:"invite_only"`
		HistoryPublicToSubscribers *bool                 `json:"history_public_to_subscribers"`
		AuthorizationErrorsFatal   *bool                 `json:"authorization_errors_fatal"`
		Announce                   *bool                 `json:"announce"`
		IsWebPublic                *bool                 `json:"is_web_public"`
		IsDefaultStream            *bool                 `json:"is_default_stream"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	p, err := principals(req.Principals)
	if err != nil {
		return nil, err
	}
	res, err := channels.Subscribe(ctx, h.svc, c.user.ID, channels.SubscribeRequest{
		Subscriptions: req.Subscriptions, Principals: p,
		InviteOnly:                 req.InviteOnly != nil && *req.InviteOnly,
		HistoryPublicToSubscribers: req.HistoryPublicToSubscribers,
		AuthorizationErrorsFatal:   req.AuthorizationErrorsFatal,
		IsWebPublic:                req.IsWebPublic != nil && *req.IsWebPublic,
	})
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}

// unsubscribe answers DELETE /users/me/subscriptions.
func (h *handler) unsubscribe(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Subscriptions []string        `json:"subscriptions" wire:"required"`
		Principals    json.RawMessage `json:"principals"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	p, err := principals(req.Principals)
	if err != nil {
		return nil, err
	}
	res, err := channels.Unsubscribe(ctx, h.svc, c.user.ID, req.Subscriptions, p)
	if err != nil {
		return nil, err
	}
	return fieldsOf(res)
}

// subscriptionProperties answers POST /users/me/subscriptions/properties.
func (h *handler) subscriptionProperties(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		SubscriptionData []struct {
			StreamID *chatcore.StreamID `json:"stream_id" wire:"required"`
			Property *string            `json:"property" wire:"required"`
			Value    json.RawMessage    `json:"value" wire:"required"`
		} `json:"subscription_data" wire:"required"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	if len(req.SubscriptionData) > channels.MaxPropertyChanges {
		return nil, chatcore.TooLongError("subscription_data", channels.MaxPropertyChanges)
	}
	changes := make([]channels.PropertyChange, len(req.SubscriptionData))
	for i, d := range req.SubscriptionData {
		var v any
		if err := json.Unmarshal(d.Value, &v); err != nil {
			return nil, chatcore.BadRequest("value is not valid JSON")
		}
		changes[i] = channels.PropertyChange{StreamID: *d.StreamID, Property: *d.Property, Value: v}
	}
	return nil, channels.UpdateProperties(ctx, h.svc, c.user.ID, changes)
}

// channelTopics answers GET /users/me/{stream_id}/topics.
func (h *handler) channelTopics(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		AllowEmptyTopicName *bool `json:"allow_empty_topic_name"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	topics, err := channels.Topics(ctx, h.svc, c.user.ID, pathID[chatcore.StreamID](c, "stream_id"),
		req.AllowEmptyTopicName != nil && *req.AllowEmptyTopicName)
	if err != nil {
		return nil, err
	}
	return map[string]any{"topics": nonNil(topics)}, nil
}

// channels answers GET /streams.
func (h *handler) channels(ctx context.Context, c *call) (map[string]any, error) {
	var req channels.ListRequest
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	list, err := channels.List(ctx, h.svc, c.user.ID, req)
	if err != nil {
		return nil, err
	}
	return map[string]any{"streams": nonNil(list)}, nil
}

// channel answers GET /streams/{stream_id}.
func (h *handler) channel(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	v, err := channels.Get(ctx, h.svc, c.user.ID, pathID[chatcore.StreamID](c, "stream_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"stream": v}, nil
}
