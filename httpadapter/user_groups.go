package httpadapter

import (
	"context"
	"encoding/json"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
)

// The user group routes (package groups).

// groupSettingParams are the group settings a user group request may carry.
type groupSettingParams struct {
	CanAddMembersGroup    json.RawMessage `json:"can_add_members_group"`
	CanJoinGroup          json.RawMessage `json:"can_join_group"`
	CanLeaveGroup         json.RawMessage `json:"can_leave_group"`
	CanManageGroup        json.RawMessage `json:"can_manage_group"`
	CanMentionGroup       json.RawMessage `json:"can_mention_group"`
	CanRemoveMembersGroup json.RawMessage `json:"can_remove_members_group"`
}

// each returns the settings given, by name.
func (p *groupSettingParams) each() map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for name, raw := range map[string]json.RawMessage{
		"can_add_members_group": p.CanAddMembersGroup, "can_join_group": p.CanJoinGroup,
		"can_leave_group": p.CanLeaveGroup, "can_manage_group": p.CanManageGroup,
		"can_mention_group": p.CanMentionGroup, "can_remove_members_group": p.CanRemoveMembersGroup,
	} {
		if raw != nil {
			out[name] = raw
		}
	}
	return out
}

// values decodes the settings as plain group-setting values.
func (p *groupSettingParams) values() (map[string]groups.Value, error) {
	out := map[string]groups.Value{}
	for name, raw := range p.each() {
		var v groups.Value
		if err := json.Unmarshal(raw, &v); err != nil {
			return nil, chatcore.BadRequestf("Invalid %s", name)
		}
		out[name] = v
	}
	return out, nil
}

// changes decodes the settings as {"new": ..., "old": ...} changes.
func (p *groupSettingParams) changes() (map[string]groups.Change, error) {
	out := map[string]groups.Change{}
	for name, raw := range p.each() {
		var c groups.Change
		if err := json.Unmarshal(raw, &c); err != nil || c.New == nil {
			return nil, chatcore.BadRequestf("Invalid %s", name)
		}
		out[name] = c
	}
	return out, nil
}

// userGroups answers GET /user_groups.
func (h *handler) userGroups(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		IncludeDeactivated *bool `json:"include_deactivated_groups"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	list, err := groups.List(ctx, h.svc, c.user.ID, req.IncludeDeactivated != nil && *req.IncludeDeactivated)
	if err != nil {
		return nil, err
	}
	return map[string]any{"user_groups": nonNil(list)}, nil
}

// createUserGroup answers POST /user_groups/create.
func (h *handler) createUserGroup(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Name        *string            `json:"name" wire:"required"`
		Description *string            `json:"description" wire:"required"`
		Members     []chatcore.UserID  `json:"members" wire:"required"`
		Subgroups   []chatcore.GroupID `json:"subgroups"`
		groupSettingParams
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	settings, err := req.values()
	if err != nil {
		return nil, err
	}
	id, err := groups.Create(ctx, h.svc, c.user.ID, groups.CreateRequest{Name: *req.Name, Description: *req.Description,
		Members: req.Members, Subgroups: req.Subgroups, Settings: settings})
	if err != nil {
		return nil, err
	}
	return map[string]any{"group_id": id}, nil
}

// updateUserGroup answers PATCH /user_groups/{user_group_id}.
func (h *handler) updateUserGroup(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Name        *string `json:"name"`
		Description *string `json:"description"`
		Deactivated *bool   `json:"deactivated"`
		groupSettingParams
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	changes, err := req.changes()
	if err != nil {
		return nil, err
	}
	return nil, groups.Update(ctx, h.svc, c.user.ID, pathID[chatcore.GroupID](c, "user_group_id"),
		groups.UpdateRequest{Name: req.Name, Description: req.Description, Deactivated: req.Deactivated, Settings: changes})
}

// deactivateUserGroup answers POST /user_groups/{user_group_id}/deactivate.
func (h *handler) deactivateUserGroup(ctx context.Context, c *call) (map[string]any, error) {
	return nil, groups.Deactivate(ctx, h.svc, c.user.ID, pathID[chatcore.GroupID](c, "user_group_id"))
}

// updateUserGroupMembers answers POST /user_groups/{user_group_id}/members.
func (h *handler) updateUserGroupMembers(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Add             []chatcore.UserID  `json:"add"`
		Delete          []chatcore.UserID  `json:"delete"`
		AddSubgroups    []chatcore.GroupID `json:"add_subgroups"`
		DeleteSubgroups []chatcore.GroupID `json:"delete_subgroups"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, groups.UpdateMembers(ctx, h.svc, c.user.ID, pathID[chatcore.GroupID](c, "user_group_id"),
		groups.MembersChange{Add: req.Add, Delete: req.Delete, AddSubgroups: req.AddSubgroups, DeleteSubgroups: req.DeleteSubgroups})
}

// updateUserGroupSubgroups answers POST /user_groups/{user_group_id}/subgroups.
func (h *handler) updateUserGroupSubgroups(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Add    []chatcore.GroupID `json:"add"`
		Delete []chatcore.GroupID `json:"delete"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	return nil, groups.UpdateSubgroups(ctx, h.svc, c.user.ID, pathID[chatcore.GroupID](c, "user_group_id"), req.Add, req.Delete)
}

// userGroupMembers answers GET /user_groups/{user_group_id}/members.
func (h *handler) userGroupMembers(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Direct *bool `json:"direct_member_only"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	ids, err := groups.Members(ctx, h.svc, c.user.ID, pathID[chatcore.GroupID](c, "user_group_id"), req.Direct != nil && *req.Direct)
	if err != nil {
		return nil, err
	}
	return map[string]any{"members": nonNil(ids)}, nil
}

// userGroupMember answers GET /user_groups/{user_group_id}/members/{user_id}.
func (h *handler) userGroupMember(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Direct *bool `json:"direct_member_only"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	ok, err := groups.IsMember(ctx, h.svc, c.user.ID, pathID[chatcore.GroupID](c, "user_group_id"),
		pathID[chatcore.UserID](c, "user_id"), req.Direct != nil && *req.Direct)
	if err != nil {
		return nil, err
	}
	return map[string]any{"is_user_group_member": ok}, nil
}

// userGroupSubgroups answers GET /user_groups/{user_group_id}/subgroups.
func (h *handler) userGroupSubgroups(ctx context.Context, c *call) (map[string]any, error) {
	var req struct {
		Direct *bool `json:"direct_subgroup_only"`
	}
	if err := c.decode(&req); err != nil {
		return nil, err
	}
	ids, err := groups.Subgroups(ctx, h.svc, c.user.ID, pathID[chatcore.GroupID](c, "user_group_id"), req.Direct != nil && *req.Direct)
	if err != nil {
		return nil, err
	}
	return map[string]any{"subgroups": nonNil(ids)}, nil
}

// userGroupRoutes are the user group routes.
func (h *handler) userGroupRoutes() []route {
	gid := []string{"user_group_id"}
	return []route{
		{pattern: "GET /api/v1/user_groups", fn: h.userGroups},
		{pattern: "POST /api/v1/user_groups/create", fn: h.createUserGroup},
		{pattern: "PATCH /api/v1/user_groups/{user_group_id}", ids: gid, fn: h.updateUserGroup},
		{pattern: "POST /api/v1/user_groups/{user_group_id}/deactivate", ids: gid, fn: h.deactivateUserGroup},
		{pattern: "POST /api/v1/user_groups/{user_group_id}/members", ids: gid, fn: h.updateUserGroupMembers},
		{pattern: "GET /api/v1/user_groups/{user_group_id}/members", ids: gid, fn: h.userGroupMembers},
		{pattern: "GET /api/v1/user_groups/{user_group_id}/members/{user_id}", ids: []string{"user_group_id", "user_id"}, fn: h.userGroupMember},
		{pattern: "POST /api/v1/user_groups/{user_group_id}/subgroups", ids: gid, fn: h.updateUserGroupSubgroups},
		{pattern: "GET /api/v1/user_groups/{user_group_id}/subgroups", ids: gid, fn: h.userGroupSubgroups},
	}
}
