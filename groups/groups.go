// Package groups serves Zulip's user groups with its permission model:
// GET /user_groups, POST /user_groups/create, PATCH /user_groups/{id},
// POST /user_groups/{id}/deactivate, the members and subgroups routes, and
// the group-setting values ([Value]) that say who may manage a group, join
// it or leave it, as a Go API over a [chatcore.Service].
//
// Every realm has Zulip's system groups ([chatcore.SystemGroupDefs]),
// whose members follow the users' roles; they cannot be changed. Named
// groups have direct members and subgroups; membership is recursive. Each
// change is one transaction and publishes user_group events to the realm's
// active users after commit.
package groups

import (
	"context"
	"errors"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// Limits of what one request may carry.
const (
	MaxNameLength        = 100
	MaxDescriptionLength = 1024
	// MaxChange bounds the users or groups one request adds or removes.
	MaxChange = 1000
)

// View is a user group as GET /user_groups, realm_user_groups and the
// user_group add event show it. Members are its active direct members.
type View struct {
	ID                    chatcore.GroupID   `json:"id"`
	Name                  string             `json:"name"`
	Description           string             `json:"description"`
	Members               []chatcore.UserID  `json:"members"`
	DirectSubgroupIDs     []chatcore.GroupID `json:"direct_subgroup_ids"`
	IsSystemGroup         bool               `json:"is_system_group"`
	Deactivated           bool               `json:"deactivated"`
	DateCreated           *int64             `json:"date_created"`
	CreatorID             *chatcore.UserID   `json:"creator_id"`
	CanAddMembersGroup    Value              `json:"can_add_members_group"`
	CanJoinGroup          Value              `json:"can_join_group"`
	CanLeaveGroup         Value              `json:"can_leave_group"`
	CanManageGroup        Value              `json:"can_manage_group"`
	CanMentionGroup       Value              `json:"can_mention_group"`
	CanRemoveMembersGroup Value              `json:"can_remove_members_group"`
}

// world is what one operation reads of the actor's realm.
type world struct {
	actor *chatcore.User
	p     *chatcore.Permissions
	// users are the realm's users by id; active the active ones.
	users  map[chatcore.UserID]*chatcore.User
	active map[chatcore.UserID]bool
	order  []chatcore.UserID
}

// load reads the actor and their realm; with ensure (a write) it creates
// missing system groups first.
func load(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, actorID chatcore.UserID, ensure bool) (*world, error) {
	u, err := chatcore.Actor(ctx, tx, actorID)
	if err != nil {
		return nil, err
	}
	if ensure {
		if _, err := chatcore.EnsureSystemGroups(ctx, tx, u.RealmID, svc.Now()); err != nil {
			return nil, err
		}
	}
	p, err := chatcore.LoadPermissions(ctx, tx, u.RealmID)
	if err != nil {
		return nil, err
	}
	users, err := realmUsers(ctx, tx, u.RealmID)
	if err != nil {
		return nil, err
	}
	return newWorld(u, p, users), nil
}

// realmUsers reads the realm's users as a world needs them: their ids,
// roles and whether they are active, not their own settings.
func realmUsers(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID) ([]chatcore.User, error) {
	return tx.Users(ctx, chatcore.UserFilter{RealmID: realm, Profile: true})
}

// newWorld is the world of actor, whose realm has the permissions p and
// the users users.
func newWorld(actor *chatcore.User, p *chatcore.Permissions, users []chatcore.User) *world {
	w := &world{actor: actor, p: p, users: make(map[chatcore.UserID]*chatcore.User, len(users)), active: map[chatcore.UserID]bool{}}
	for i := range users {
		w.users[users[i].ID] = &users[i]
		w.order = append(w.order, users[i].ID)
		if users[i].IsActive {
			w.active[users[i].ID] = true
		}
	}
	return w
}

// activeIDs returns the realm's active users, ascending.
func (w *world) activeIDs() []chatcore.UserID {
	var out []chatcore.UserID
	for _, id := range w.order {
		if w.active[id] {
			out = append(out, id)
		}
	}
	return out
}

// group returns group id of the realm or "Invalid user group".
func (w *world) group(id chatcore.GroupID) (*chatcore.Group, error) {
	g := w.p.Group(id)
	if g == nil {
		return nil, errInvalidGroup()
	}
	return g, nil
}

func errInvalidGroup() *chatcore.Error     { return chatcore.BadRequest("Invalid user group") }
func errInsufficient() *chatcore.Error     { return chatcore.BadRequest("Insufficient permission") }
func errGroupDeactivated() *chatcore.Error { return chatcore.BadRequest("User group is deactivated.") }
func errGroupInUse() *chatcore.Error {
	return chatcore.BadRequest("Cannot deactivate user group in use.")
}
func errSystemGroupEdit() *chatcore.Error { return errInsufficient() }
func errNameTaken(n string) *chatcore.Error {
	return chatcore.BadRequestf("User group '%s' already exists.", n)
}

// allows reports whether the actor is in the group's setting name.
func (w *world) allows(g *chatcore.Group, name string) bool {
	def, _ := settingDef(GroupSettings, name)
	return w.p.Allows(w.actor, chatcore.SettingOfGroup, int64(g.ID), name, def.Default)
}

// managesAll reports whether the actor is in the realm's
// can_manage_all_groups.
func (w *world) managesAll() bool {
	return RealmAllows(w.p, w.actor, "can_manage_all_groups")
}

// manages reports whether the actor may manage g: never a guest, and only
// through can_manage_all_groups or the group's can_manage_group.
func (w *world) manages(g *chatcore.Group) bool {
	if w.actor.Role == chatcore.RoleGuest {
		return false
	}
	return w.managesAll() || w.allows(g, "can_manage_group")
}

// forUpdate returns group id when it may be changed at all: not a system
// group, and not deactivated unless allowDeactivated.
func (w *world) forUpdate(id chatcore.GroupID, allowDeactivated bool) (*chatcore.Group, error) {
	g, err := w.group(id)
	if err != nil {
		return nil, err
	}
	if g.IsSystemGroup {
		return nil, errSystemGroupEdit()
	}
	if g.Deactivated && !allowDeactivated {
		return nil, errGroupDeactivated()
	}
	return g, nil
}

// loadForUpdate loads the actor's world (see load) and group id from it as
// forUpdate returns it.
func loadForUpdate(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, actorID chatcore.UserID, id chatcore.GroupID, allowDeactivated bool) (*world, *chatcore.Group, error) {
	w, err := load(ctx, svc, tx, actorID, true)
	if err != nil {
		return nil, nil, err
	}
	g, err := w.forUpdate(id, allowDeactivated)
	if err != nil {
		return nil, nil, err
	}
	return w, g, nil
}

// view builds the view of g.
func (w *world) view(g *chatcore.Group) View {
	v := View{ID: g.ID, Name: g.Name, Description: g.Description, IsSystemGroup: g.IsSystemGroup, Deactivated: g.Deactivated}
	if !g.DateCreated.IsZero() {
		v.DateCreated = new(g.DateCreated.Unix())
	}
	if g.CreatorID != 0 {
		v.CreatorID = new(g.CreatorID)
	}
	if g.IsSystemGroup {
		d, _ := chatcore.SystemGroupDefOf(chatcore.SystemGroup(g.Name))
		if d.DirectRole != 0 {
			for _, id := range w.order {
				if u := w.users[id]; u.IsActive && u.Role == d.DirectRole {
					v.Members = append(v.Members, id)
				}
			}
		}
		if sub := w.p.SystemGroupID(d.Subgroup); sub != 0 {
			v.DirectSubgroupIDs = []chatcore.GroupID{sub}
		}
	} else {
		for _, id := range g.Members {
			if w.active[id] {
				v.Members = append(v.Members, id)
			}
		}
		v.DirectSubgroupIDs = slices.Clone(g.Subgroups)
	}
	slices.Sort(v.Members)
	slices.Sort(v.DirectSubgroupIDs)
	v.Members, v.DirectSubgroupIDs = slicex.OrEmpty(v.Members), slicex.OrEmpty(v.DirectSubgroupIDs)
	for _, s := range []struct {
		dst  *Value
		name string
	}{
		{&v.CanAddMembersGroup, "can_add_members_group"}, {&v.CanJoinGroup, "can_join_group"},
		{&v.CanLeaveGroup, "can_leave_group"}, {&v.CanManageGroup, "can_manage_group"},
		{&v.CanMentionGroup, "can_mention_group"}, {&v.CanRemoveMembersGroup, "can_remove_members_group"},
	} {
		def, _ := settingDef(GroupSettings, s.name)
		*s.dst = valueView(w.p, chatcore.SettingOfGroup, int64(g.ID), def)
	}
	return v
}

// Views returns the groups of viewer's realm as tx sees them, by id;
// deactivated groups only with includeDeactivated. It is the
// realm_user_groups section of POST /register. p, when not nil, holds the
// realm's permissions read in tx already, and users, when not nil, the
// realm's users (every one, as tx.Users reads them; a Profile read is
// enough).
func Views(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, p *chatcore.Permissions, users []chatcore.User, includeDeactivated bool) ([]View, error) {
	if p == nil {
		var err error
		if p, err = chatcore.LoadPermissions(ctx, tx, viewer.RealmID); err != nil {
			return nil, err
		}
	}
	if users == nil {
		var err error
		if users, err = realmUsers(ctx, tx, viewer.RealmID); err != nil {
			return nil, err
		}
	}
	w := newWorld(viewer, p, users)
	out := []View{}
	for _, g := range p.Groups() {
		if g.Deactivated && !includeDeactivated {
			continue
		}
		out = append(out, w.view(g))
	}
	return out, nil
}

// List returns the groups of the actor's realm (GET /user_groups). Any
// active user may list them. Errors: UNAUTHORIZED for a missing or
// deactivated actor.
func List(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, includeDeactivated bool) ([]View, error) {
	var out []View
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		out, err = Views(ctx, tx, u, nil, nil, includeDeactivated)
		return err
	})
	return out, err
}

// checkName trims and validates a group name.
func checkName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", chatcore.BadRequest("User group name cannot be empty.")
	}
	if utf8.RuneCountInString(name) > MaxNameLength {
		return "", chatcore.BadRequestf("User group name cannot exceed %d characters.", MaxNameLength)
	}
	for _, prefix := range []string{"@", "role:", "user:", "stream:", "channel:"} {
		if strings.HasPrefix(name, prefix) {
			return "", chatcore.BadRequestf("User group name cannot start with '%s'.", prefix)
		}
	}
	return name, nil
}

// checkDescription validates a description.
func checkDescription(d string) error {
	if utf8.RuneCountInString(d) > MaxDescriptionLength {
		return chatcore.BadRequestf("User group description cannot exceed %d characters.", MaxDescriptionLength)
	}
	return nil
}

// CreateRequest is POST /user_groups/create.
type CreateRequest struct {
	Name, Description string
	Members           []chatcore.UserID
	Subgroups         []chatcore.GroupID
	// Settings are the group settings given (the others take their
	// defaults: the creator for can_manage_group and can_add_members_group).
	Settings map[string]Value
}

// Create creates a named user group in the actor's realm and returns its
// id. The actor must be in the realm's can_create_groups (role:members by
// default; never guests). Errors: BAD_REQUEST "Insufficient permission";
// "User group '<name>' already exists."; the name and description limits;
// "Invalid user ID: N" for a member who is not an active user of the
// realm; "Invalid user group ID: N" for an unknown or deactivated group
// (subgroups and settings); "Unknown group setting: X". Publishes the
// user_group add event.
func Create(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req CreateRequest) (chatcore.GroupID, error) {
	if len(req.Members) > MaxChange || len(req.Subgroups) > MaxChange {
		return 0, chatcore.BadRequestf("A request may add at most %d members or subgroups.", MaxChange)
	}
	var id chatcore.GroupID
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		w, err := load(ctx, svc, tx, actorID, true)
		if err != nil {
			return err
		}
		if !RealmAllows(w.p, w.actor, "can_create_groups") {
			return errInsufficient()
		}
		name, err := checkName(req.Name)
		if err != nil {
			return err
		}
		if err := checkDescription(req.Description); err != nil {
			return err
		}
		for _, g := range w.p.Groups() {
			if g.Name == name {
				return errNameTaken(name)
			}
		}
		members := slicex.SortedSet(slices.Clone(req.Members))
		for _, m := range members {
			if !w.active[m] {
				return chatcore.BadRequestf("Invalid user ID: %d", m)
			}
		}
		subs := slicex.SortedSet(slices.Clone(req.Subgroups))
		for _, s := range subs {
			if g := w.p.Group(s); g == nil || g.Deactivated {
				return chatcore.BadRequestf("Invalid user group ID: %d", s)
			}
		}
		values := map[string]chatcore.GroupSettingValue{}
		for n, v := range req.Settings {
			d, ok := settingDef(GroupSettings, n)
			if !ok {
				return chatcore.BadRequestf("Unknown group setting: %s", n)
			}
			if err := checkValue(w.p, w.active, d, v.GroupSettingValue); err != nil {
				return err
			}
			values[n] = v.GroupSettingValue
		}
		g := &chatcore.Group{RealmID: w.actor.RealmID, Name: name, Description: req.Description, Members: members,
			Subgroups: subs, CreatorID: w.actor.ID, DateCreated: svc.Now()}
		if err := tx.CreateGroup(ctx, g); err != nil {
			if errors.Is(err, chatcore.ErrConflict) {
				return errNameTaken(name)
			}
			return err
		}
		id = g.ID
		for _, d := range GroupSettings {
			v, ok := values[d.Name]
			if !ok && d.Creator {
				v, ok = chatcore.GroupSettingValue{DirectMembers: []chatcore.UserID{w.actor.ID}}, true
			}
			if !ok {
				continue
			}
			s := chatcore.GroupSetting{RealmID: g.RealmID, Kind: chatcore.SettingOfGroup, ObjectID: int64(g.ID), Name: d.Name, Value: v}
			if err := tx.PutGroupSetting(ctx, s); err != nil {
				return err
			}
			w.p.Set(s.Kind, s.ObjectID, s.Name, v)
		}
		// The new group is not in w.p's list; read it back for the view.
		p, err := chatcore.LoadPermissions(ctx, tx, w.actor.RealmID)
		if err != nil {
			return err
		}
		w.p = p
		fx.Event(w.actor.RealmID, w.activeIDs(), map[string]any{"type": "user_group", "op": "add", "group": w.view(p.Group(g.ID))})
		return nil
	})
	return id, err
}
