package httpadapter

import (
	"context"
	"encoding/json"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/groups"
)

// The channel administration routes (package channels).

// channelSettingParams are the channel permission groups PATCH
// /streams/{stream_id} may change.
type channelSettingParams struct {
	CanAddSubscribersGroup     json.RawMessage `json:"can_add_subscribers_group"`
	CanAdministerChannelGroup  json.RawMessage `json:"can_administer_channel_group"`
	CanDeleteAnyMessageGroup   json.RawMessage `json:"can_delete_any_message_group"`
	CanDeleteOwnMessageGroup   json.RawMessage `json:"can_delete_own_message_group"`
	CanMoveMessagesOutGroup    json.RawMessage `json:"can_move_messages_out_of_channel_group"`
	CanMoveMessagesWithinGroup json.RawMessage `json:"can_move_messages_within_channel_group"`
	CanRemoveSubscribersGroup  json.RawMessage `json:"can_remove_subscribers_group"`
	CanResolveTopicsGroup      json.RawMessage `json:"can_resolve_topics_group"`
	CanSendMessageGroup        json.RawMessage `json:"can_send_message_group"`
	CanSubscribeGroup          json.RawMessage `json:"can_subscribe_group"`
}

// changes decodes the given settings as {"new": ..., "old": ...} changes.
func (p *channelSettingParams) changes() (map[string]groups.Change, error) {
	out := map[string]groups.Change{}
	for name, raw := range map[string]json.RawMessage{
		"can_add_subscribers_group": p.CanAddSubscribersGroup, "can_administer_channel_group": p.CanAdministerChannelGroup,
		"can_delete_any_message_group": p.CanDeleteAnyMessageGroup, "can_delete_own_message_group": p.CanDeleteOwnMessageGroup,
		"can_move_messages_out_of_channel_group": p.CanMoveMessagesOutGroup, "can_move_messages_within_channel_group": p.CanMoveMessagesWithinGroup,
		"can_remove_subscribers_group": p.CanRemoveSubscribersGroup, "can_resolve_topics_group": p.CanResolveTopicsGroup,
		"can_send_message_group": p.CanSendMessageGroup, "can_subscribe_group": p.CanSubscribeGroup,
	} {
		if raw == nil {
			continue
		}
		var c groups.Change
		if err := json.Unmarshal(raw, &c); err != nil || c.New == nil {
			return nil, chatcore.BadRequestf("Invalid %s", name)
		}
		out[name] = c
	}
	return out, nil
}

// updateChannel answers PATCH /streams/{stream_id}.
func (h *handler) updateChannel(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		NewName     *string `json:"new_name"`
		Description *string `json:"description"`
		IsPrivate   *bool   `json:"is_private"`
		History     *bool   `json:"history_public_to_subscribers"`
		IsWebPublic *bool   `json:"is_web_public"`
		channelSettingParams
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	changes, err := req.changes()
	if err != nil {
		return nil, err
	}
	return nil, channels.Update(ctx, h.svc, c.user.ID, pathID[chatcore.StreamID](c, "stream_id"), channels.UpdateRequest{
		NewName: req.NewName, Description: req.Description, IsPrivate: req.IsPrivate, HistoryPublicToSubscribers: req.History,
		IsWebPublic: req.IsWebPublic != nil && *req.IsWebPublic, Settings: changes})
}

// archiveChannel answers DELETE /streams/{stream_id}.
func (h *handler) archiveChannel(ctx context.Context, c *call) (map[string]any, error) {
	return nil, channels.Archive(ctx, h.svc, c.user.ID, pathID[chatcore.StreamID](c, "stream_id"))
}

// channelMembers answers GET /streams/{stream_id}/members.
func (h *handler) channelMembers(ctx context.Context, c *call) (map[string]any, error) {
	if err := c.decode(&struct{}{}); err != nil {
		return nil, err
	}
	ids, err := channels.Members(ctx, h.svc, c.user.ID, pathID[chatcore.StreamID](c, "stream_id"))
	if err != nil {
		return nil, err
	}
	return map[string]any{"subscribers": nonNil(ids)}, nil
}

// channelAdminRoutes are the channel administration routes.
func (h *handler) channelAdminRoutes() []route {
	sid := []string{"stream_id"}
	return []route{
		{pattern: "PATCH /api/v1/streams/{stream_id}", ids: sid, fn: h.updateChannel},
		{pattern: "DELETE /api/v1/streams/{stream_id}", ids: sid, fn: h.archiveChannel},
		{pattern: "GET /api/v1/streams/{stream_id}/members", ids: sid, fn: h.channelMembers},
		{pattern: "POST /api/v1/default_streams", access: chatcore.AccessAdmin, fn: h.setDefaultChannel(true)},
		{pattern: "DELETE /api/v1/default_streams", access: chatcore.AccessAdmin, fn: h.setDefaultChannel(false)},
	}
}

// setDefaultChannel answers POST and DELETE /default_streams.
func (h *handler) setDefaultChannel(on bool) func(ctx context.Context, c *call) (map[string]any, error) {
	return func(ctx context.Context, c *call) (map[string]any, error) {
		var req struct {
			StreamID *chatcore.StreamID `json:"stream_id" wire:"required"`
		}
		if err := c.decode(&req); err != nil {
			return nil, err
		}
		return nil, channels.SetDefault(ctx, h.svc, c.user.ID, *req.StreamID, on)
	}
}
