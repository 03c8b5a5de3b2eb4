package groups

import (
	"context"
	"errors"
	"slices"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// UpdateRequest is PATCH /user_groups/{id}: nil fields are left alone.
type UpdateRequest struct {
	Name, Description *string
	// Deactivated false reactivates a deactivated group.
	Deactivated *bool
	Settings    map[string]Change
}

// Update changes a named group's name, description, deactivation or group
// settings. The actor must manage the group (the realm's
// can_manage_all_groups or the group's can_manage_group; never a guest).
// Errors: "Invalid user group"; "Insufficient permission" (also for system
// groups); the name and description errors of [Create]; "'old' value does
// not match the expected value." for a setting change whose old value is
// not the current one; "No new data supplied" for an empty request.
// Publishes the user_group update event with what changed.
func Update(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.GroupID, req UpdateRequest) error {
	if req.Name == nil && req.Description == nil && req.Deactivated == nil && len(req.Settings) == 0 {
		return chatcore.BadRequest("No new data supplied")
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		w, g, err := loadForUpdate(ctx, svc, tx, actorID, id, true)
		if err != nil {
			return err
		}
		if !w.manages(g) {
			return errInsufficient()
		}
		data := map[string]any{}
		changed := *g
		if req.Name != nil {
			name, err := checkName(*req.Name)
			if err != nil {
				return err
			}
			if name != g.Name {
				for _, o := range w.p.Groups() {
					if o.Name == name {
						return errNameTaken(name)
					}
				}
				changed.Name, data["name"] = name, name
			}
		}
		if req.Description != nil && *req.Description != g.Description {
			if err := checkDescription(*req.Description); err != nil {
				return err
			}
			changed.Description, data["description"] = *req.Description, *req.Description
		}
		if req.Deactivated != nil && *req.Deactivated != g.Deactivated {
			if *req.Deactivated {
				if err := w.checkUnused(g); err != nil {
					return err
				}
			}
			changed.Deactivated, data["deactivated"] = *req.Deactivated, *req.Deactivated
		}
		for _, name := range sortedKeys(req.Settings) {
			c := req.Settings[name]
			d, ok := settingDef(GroupSettings, name)
			if !ok {
				return chatcore.BadRequestf("Unknown group setting: %s", name)
			}
			if c.New == nil {
				return chatcore.BadRequestf("Invalid %s", name)
			}
			cur := w.p.Value(chatcore.SettingOfGroup, int64(g.ID), name, d.Default)
			if c.Old != nil && !sameValue(c.Old.GroupSettingValue, cur) {
				return chatcore.BadRequest("'old' value does not match the expected value.")
			}
			if err := checkValue(w.p, w.active, d, c.New.GroupSettingValue); err != nil {
				return err
			}
			if sameValue(c.New.GroupSettingValue, cur) {
				continue
			}
			s := chatcore.GroupSetting{RealmID: g.RealmID, Kind: chatcore.SettingOfGroup, ObjectID: int64(g.ID), Name: name, Value: c.New.GroupSettingValue}
			if err := tx.PutGroupSetting(ctx, s); err != nil {
				return err
			}
			data[name] = *c.New
		}
		if changed.Name != g.Name || changed.Description != g.Description || changed.Deactivated != g.Deactivated {
			if err := tx.UpdateGroup(ctx, &changed); err != nil {
				if errors.Is(err, chatcore.ErrConflict) {
					return errNameTaken(changed.Name)
				}
				return err
			}
		}
		if len(data) > 0 {
			fx.Event(w.actor.RealmID, w.activeIDs(), map[string]any{"type": "user_group", "op": "update", "group_id": g.ID, "data": data})
		}
		return nil
	})
}

// sortedKeys returns the keys of m sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkUnused refuses to deactivate g while a setting or an active
// named group uses it.
func (w *world) checkUnused(g *chatcore.Group) error {
	for _, o := range w.p.Groups() {
		if o.ID != g.ID && !o.Deactivated && !o.IsSystemGroup && slices.Contains(o.Subgroups, g.ID) {
			return errGroupInUse()
		}
	}
	if w.p.UsesGroup(g.ID) {
		return errGroupInUse()
	}
	return nil
}

// Deactivate deactivates a named group (POST /user_groups/{id}/deactivate):
// it keeps its members, leaves most lists and can no longer be used in
// settings. Errors: those of [Update], and "Cannot deactivate user group
// in use." while a group setting or an active group's subgroups name it.
// Publishes the user_group update event {"deactivated": true}.
func Deactivate(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.GroupID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		w, g, err := loadForUpdate(ctx, svc, tx, actorID, id, false)
		if err != nil {
			return err
		}
		if !w.manages(g) {
			return errInsufficient()
		}
		if err := w.checkUnused(g); err != nil {
			return err
		}
		c := *g
		c.Deactivated = true
		if err := tx.UpdateGroup(ctx, &c); err != nil {
			return err
		}
		fx.Event(w.actor.RealmID, w.activeIDs(), map[string]any{"type": "user_group", "op": "update", "group_id": g.ID,
			"data": map[string]any{"deactivated": true}})
		return nil
	})
}

// MembersChange is POST /user_groups/{id}/members: users to add and
// delete, and subgroups to add and delete.
type MembersChange struct {
	Add, Delete                   []chatcore.UserID
	AddSubgroups, DeleteSubgroups []chatcore.GroupID
}

// UpdateMembers adds and removes direct members (and subgroups) of a named
// group. Adding others needs can_manage_group, can_add_members_group or
// the realm's can_manage_all_groups; adding oneself also can_join_group.
// Removing others needs those or can_remove_members_group; removing
// oneself also can_leave_group. Errors: "Invalid user group";
// "Insufficient permission"; "User group is deactivated."; "Invalid user
// ID: N"; "User N is already a member of this group"; "There is no member
// 'N' in this user group"; and those of [UpdateSubgroups]. Publishes
// user_group add_members / remove_members (and subgroup) events.
func UpdateMembers(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.GroupID, c MembersChange) error {
	if len(c.Add)+len(c.Delete) > MaxChange || len(c.AddSubgroups)+len(c.DeleteSubgroups) > MaxChange {
		return chatcore.BadRequestf("A request may change at most %d members or subgroups.", MaxChange)
	}
	if len(c.Add)+len(c.Delete)+len(c.AddSubgroups)+len(c.DeleteSubgroups) == 0 {
		return chatcore.BadRequest("Nothing to do. Specify at least one of \"add\", \"delete\", \"add_subgroups\" or \"delete_subgroups\".")
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		w, g, err := loadForUpdate(ctx, svc, tx, actorID, id, false)
		if err != nil {
			return err
		}
		add, del := slicex.SortedSet(slices.Clone(c.Add)), slicex.SortedSet(slices.Clone(c.Delete))
		if len(add) > 0 {
			self := len(add) == 1 && add[0] == w.actor.ID
			if !w.manages(g) && !w.allowsNonGuest(g, "can_add_members_group") && !(self && w.allows(g, "can_join_group")) {
				return errInsufficient()
			}
			for _, m := range add {
				if !w.active[m] {
					return chatcore.BadRequestf("Invalid user ID: %d", m)
				}
				if slices.Contains(g.Members, m) {
					return chatcore.BadRequestf("User %d is already a member of this group", m)
				}
			}
		}
		if len(del) > 0 {
			self := len(del) == 1 && del[0] == w.actor.ID
			if !w.manages(g) && !w.allowsNonGuest(g, "can_remove_members_group") && !(self && w.allows(g, "can_leave_group")) {
				return errInsufficient()
			}
			for _, m := range del {
				if _, ok := w.users[m]; !ok {
					return chatcore.BadRequestf("Invalid user ID: %d", m)
				}
				if !slices.Contains(g.Members, m) {
					return chatcore.BadRequestf("There is no member '%d' in this user group", m)
				}
			}
		}
		if len(add)+len(del) > 0 {
			if err := tx.ChangeGroupMembers(ctx, g.ID, add, del); err != nil {
				return err
			}
		}
		users := w.activeIDs()
		if len(add) > 0 {
			fx.Event(w.actor.RealmID, users, map[string]any{"type": "user_group", "op": "add_members", "group_id": g.ID, "user_ids": add})
		}
		if len(del) > 0 {
			fx.Event(w.actor.RealmID, users, map[string]any{"type": "user_group", "op": "remove_members", "group_id": g.ID, "user_ids": del})
		}
		return w.changeSubgroups(ctx, tx, fx, g, c.AddSubgroups, c.DeleteSubgroups)
	})
}

// allowsNonGuest is allows for settings guests can never use on others.
func (w *world) allowsNonGuest(g *chatcore.Group, name string) bool {
	return w.actor.Role != chatcore.RoleGuest && w.allows(g, name)
}

// UpdateSubgroups adds and removes direct subgroups of a named group (POST
// /user_groups/{id}/subgroups). Adding needs the rights to add members,
// removing those to remove members (see [UpdateMembers]). Errors: "Invalid
// user group"; "Insufficient permission"; "User group is deactivated.";
// "Invalid user group ID: N"; "User group N is already a subgroup of this
// group."; "User group N is not a subgroup of this group."; "User group N
// is already a subgroup of one of the passed subgroups." (a cycle).
// Publishes user_group add_subgroups / remove_subgroups.
func UpdateSubgroups(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.GroupID, add, del []chatcore.GroupID) error {
	if len(add)+len(del) > MaxChange {
		return chatcore.BadRequestf("A request may change at most %d subgroups.", MaxChange)
	}
	if len(add)+len(del) == 0 {
		return chatcore.BadRequest("Nothing to do. Specify at least one of \"add\" or \"delete\".")
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		w, g, err := loadForUpdate(ctx, svc, tx, actorID, id, false)
		if err != nil {
			return err
		}
		return w.changeSubgroups(ctx, tx, fx, g, add, del)
	})
}

// changeSubgroups checks and applies a subgroup change of g.
func (w *world) changeSubgroups(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, g *chatcore.Group, add, del []chatcore.GroupID) error {
	add, del = slicex.SortedSet(slices.Clone(add)), slicex.SortedSet(slices.Clone(del))
	if len(add)+len(del) == 0 {
		return nil
	}
	if len(add) > 0 && !w.manages(g) && !w.allowsNonGuest(g, "can_add_members_group") {
		return errInsufficient()
	}
	if len(del) > 0 && !w.manages(g) && !w.allowsNonGuest(g, "can_remove_members_group") {
		return errInsufficient()
	}
	for _, s := range append(slices.Clone(add), del...) {
		if sg := w.p.Group(s); sg == nil || sg.Deactivated && slices.Contains(add, s) {
			return chatcore.BadRequestf("Invalid user group ID: %d", s)
		}
	}
	for _, s := range add {
		if slices.Contains(g.Subgroups, s) {
			return chatcore.BadRequestf("User group %d is already a subgroup of this group.", s)
		}
		if w.p.Contains(s, g.ID) {
			return chatcore.BadRequestf("User group %d is already a subgroup of one of the passed subgroups.", g.ID)
		}
	}
	for _, s := range del {
		if !slices.Contains(g.Subgroups, s) {
			return chatcore.BadRequestf("User group %d is not a subgroup of this group.", s)
		}
	}
	if err := tx.ChangeSubgroups(ctx, g.ID, add, del); err != nil {
		return err
	}
	users := w.activeIDs()
	if len(add) > 0 {
		fx.Event(w.actor.RealmID, users, map[string]any{"type": "user_group", "op": "add_subgroups", "group_id": g.ID, "direct_subgroup_ids": add})
	}
	if len(del) > 0 {
		fx.Event(w.actor.RealmID, users, map[string]any{"type": "user_group", "op": "remove_subgroups", "group_id": g.ID, "direct_subgroup_ids": del})
	}
	return nil
}

// readWorld runs fn on the actor's realm in a read transaction.
func readWorld(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, fn func(w *world) error) error {
	return svc.View(ctx, func(tx chatcore.Tx) error {
		w, err := load(ctx, svc, tx, actorID, false)
		if err != nil {
			return err
		}
		return fn(w)
	})
}

// members returns the active members of g, direct or recursive.
func (w *world) members(g *chatcore.Group, direct bool) []chatcore.UserID {
	if direct {
		return w.view(g).Members
	}
	out := []chatcore.UserID{}
	for _, id := range w.order {
		if w.active[id] && w.p.InGroup(w.users[id], g.ID) {
			out = append(out, id)
		}
	}
	return out
}

// Members returns the active members of a group (GET
// /user_groups/{id}/members): direct ones only with direct, else
// recursively through subgroups. Any active user may read them. Errors:
// "Invalid user group".
func Members(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.GroupID, direct bool) ([]chatcore.UserID, error) {
	var out []chatcore.UserID
	err := readWorld(ctx, svc, actorID, func(w *world) error {
		g, err := w.group(id)
		if err != nil {
			return err
		}
		out = w.members(g, direct)
		return nil
	})
	return out, err
}

// IsMember reports whether user is a member of the group (GET
// /user_groups/{id}/members/{user_id}). Errors: "Invalid user group";
// "No such user" for a user not of the realm.
func IsMember(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.GroupID, user chatcore.UserID, direct bool) (bool, error) {
	var out bool
	err := readWorld(ctx, svc, actorID, func(w *world) error {
		g, err := w.group(id)
		if err != nil {
			return err
		}
		if _, ok := w.users[user]; !ok {
			return chatcore.BadRequest("No such user")
		}
		out = slices.Contains(w.members(g, direct), user)
		return nil
	})
	return out, err
}

// Subgroups returns the subgroups of a group (GET
// /user_groups/{id}/subgroups): direct ones with direct, else recursively.
// Errors: "Invalid user group".
func Subgroups(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.GroupID, direct bool) ([]chatcore.GroupID, error) {
	var out []chatcore.GroupID
	err := readWorld(ctx, svc, actorID, func(w *world) error {
		g, err := w.group(id)
		if err != nil {
			return err
		}
		if direct {
			out = w.view(g).DirectSubgroupIDs
			return nil
		}
		out = []chatcore.GroupID{}
		for _, o := range w.p.Groups() {
			if o.ID != g.ID && w.p.Contains(g.ID, o.ID) {
				out = append(out, o.ID)
			}
		}
		return nil
	})
	return out, err
}
