package groups_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/matryer/is"
)

// org is the test organization: chattest's messaging realm with an owner.
type org struct {
	*chattest.Messaging
	Owner *chatcore.User
}

func newOrg(t *testing.T) (*chattest.World, *org) {
	w, m := chattest.NewMessaging(t)
	return w, &org{Messaging: m, Owner: w.AddUser(t, m.Realm, "Desdemona", chatcore.RoleOwner)}
}

func wantErr(t *testing.T, err error, msg string) {
	t.Helper()
	chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, msg)
}

// byName returns the group of the list with the name.
func byName(t *testing.T, list []groups.View, name string) groups.View {
	t.Helper()
	for _, g := range list {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %q", name)
	return groups.View{}
}

func TestSystemGroups(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	w, o := newOrg(t)
	// A write creates the realm's missing system groups.
	_, err := groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: "first", Members: []chatcore.UserID{}})
	is.NoErr(err)
	list, err := groups.List(ctx, w.Svc, o.Guest.ID, false)
	is.NoErr(err) // guests may list groups
	owners, admins, members := byName(t, list, "role:owners"), byName(t, list, "role:administrators"), byName(t, list, "role:members")
	everyone := byName(t, list, "role:everyone")
	is.True(owners.IsSystemGroup)                                                   // a system group
	is.Equal(owners.Members, []chatcore.UserID{o.Owner.ID})                         // members by role
	is.Equal(admins.Members, []chatcore.UserID{o.Admin.ID})                         // the owner is in it through the subgroup
	is.Equal(admins.DirectSubgroupIDs, []chatcore.GroupID{owners.ID})               // role:owners under role:administrators
	is.Equal(members.Members, []chatcore.UserID{o.Member.ID, o.Other.ID, o.Bot.ID}) // bots have roles too
	is.Equal(everyone.Members, []chatcore.UserID{o.Guest.ID})                       // guests are direct members of everyone only
	is.Equal(len(list), 9)                                                          // eight system groups and the new one
	all, err := groups.Members(ctx, w.Svc, o.Member.ID, everyone.ID, false)
	is.NoErr(err)
	is.Equal(all, []chatcore.UserID{o.Admin.ID, o.Member.ID, o.Other.ID, o.Guest.ID, o.Bot.ID, o.Owner.ID}) // recursively, every active user
	// System groups cannot be changed.
	err = groups.UpdateMembers(ctx, w.Svc, o.Owner.ID, admins.ID, groups.MembersChange{Add: []chatcore.UserID{o.Member.ID}})
	wantErr(t, err, "Insufficient permission")
	err = groups.Update(ctx, w.Svc, o.Owner.ID, admins.ID, groups.UpdateRequest{Description: new("x")})
	wantErr(t, err, "Insufficient permission")
	// A role change moves the user between system groups.
	w.UpdateUser(t, o.Member.ID, func(u *chatcore.User) { u.Role = chatcore.RoleAdministrator })
	list, err = groups.List(ctx, w.Svc, o.Member.ID, false)
	is.NoErr(err)
	is.Equal(byName(t, list, "role:administrators").Members, []chatcore.UserID{o.Admin.ID, o.Member.ID}) // follows the role
	// Another realm's groups are invisible.
	_, err = groups.Members(ctx, w.Svc, o.Stranger.ID, everyone.ID, false)
	wantErr(t, err, "Invalid user group")
}

func TestCreateAndUpdate(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	w, o := newOrg(t)
	_, err := groups.Create(ctx, w.Svc, o.Guest.ID, groups.CreateRequest{Name: "g"})
	wantErr(t, err, "Insufficient permission") // guests never create groups
	for _, tc := range []struct{ name, msg string }{
		{"", "User group name cannot be empty."},
		{"role:x", "User group name cannot start with 'role:'."},
		{"@all", "User group name cannot start with '@'."},
		{strings.Repeat("x", 101), "User group name cannot exceed 100 characters."},
	} {
		_, err := groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: tc.name})
		wantErr(t, err, tc.msg)
	}
	_, err = groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: "g", Members: []chatcore.UserID{o.Stranger.ID}})
	wantErr(t, err, "Invalid user ID: "+itoa(int64(o.Stranger.ID))) // another realm's user
	w.Events.Reset()
	id, err := groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: "support", Description: "helps",
		Members: []chatcore.UserID{o.Other.ID, o.Member.ID}})
	is.NoErr(err) // a member creates a group
	evs := w.Events.All()
	is.Equal(len(evs), 1)              // one event
	is.Equal(evs[0].Data["op"], "add") // user_group add
	v := evs[0].Data["group"].(groups.View)
	is.Equal(v.ID, id)
	is.Equal(v.Members, []chatcore.UserID{o.Member.ID, o.Other.ID})                            // sorted members
	is.Equal(*v.CreatorID, o.Member.ID)                                                        // the creator is recorded
	is.Equal(v.CanManageGroup.GroupSettingValue.DirectMembers, []chatcore.UserID{o.Member.ID}) // the creator manages it
	is.True(slices.Contains(evs[0].UserIDs, o.Guest.ID))                                       // every active user hears of it
	_, err = groups.Create(ctx, w.Svc, o.Other.ID, groups.CreateRequest{Name: "support"})
	wantErr(t, err, "User group 'support' already exists.")

	// The creator manages it; another member and an administrator do not
	// (can_manage_all_groups is role:owners); the owner does.
	is.NoErr(groups.Update(ctx, w.Svc, o.Member.ID, id, groups.UpdateRequest{Name: new("helpdesk")}))
	wantErr(t, groups.Update(ctx, w.Svc, o.Other.ID, id, groups.UpdateRequest{Name: new("x")}), "Insufficient permission")
	wantErr(t, groups.Update(ctx, w.Svc, o.Admin.ID, id, groups.UpdateRequest{Name: new("x")}), "Insufficient permission")
	w.Events.Reset()
	is.NoErr(groups.Update(ctx, w.Svc, o.Owner.ID, id, groups.UpdateRequest{Description: new("new")}))
	evs = w.Events.All()
	is.Equal(evs[0].Data["op"], "update")
	is.Equal(evs[0].Data["data"], map[string]any{"description": "new"}) // only what changed
	wantErr(t, groups.Update(ctx, w.Svc, o.Owner.ID, 99999, groups.UpdateRequest{Name: new("x")}), "Invalid user group")
}

// TestPermissionFollowsGroup changes the group a setting names and sees
// the rule follow it.
func TestPermissionFollowsGroup(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	w, o := newOrg(t)
	target, err := groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: "target"})
	is.NoErr(err)
	managers, err := groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: "managers"})
	is.NoErr(err)
	rename := func(u *chatcore.User, name string) error {
		return groups.Update(ctx, w.Svc, u.ID, target, groups.UpdateRequest{Name: new(name)})
	}
	wantErr(t, rename(o.Other, "a"), "Insufficient permission") // not yet
	mg := groups.Value{GroupSettingValue: chatcore.GroupSettingValue{GroupID: managers}}
	wantErr(t, groups.Update(ctx, w.Svc, o.Member.ID, target, groups.UpdateRequest{Settings: map[string]groups.Change{
		"can_manage_group": {New: &mg, Old: &mg}}}), "'old' value does not match the expected value.")
	is.NoErr(groups.Update(ctx, w.Svc, o.Member.ID, target, groups.UpdateRequest{Settings: map[string]groups.Change{
		"can_manage_group": {New: &mg}}})) // managers manage target
	wantErr(t, rename(o.Other, "a"), "Insufficient permission") // managers is empty
	is.NoErr(groups.UpdateMembers(ctx, w.Svc, o.Member.ID, managers, groups.MembersChange{Add: []chatcore.UserID{o.Other.ID}}))
	is.NoErr(rename(o.Other, "b")) // Othello joined managers: he may now
	// Through a subgroup too.
	helpers, err := groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: "helpers", Members: []chatcore.UserID{o.Guest.ID, o.Admin.ID}})
	is.NoErr(err)
	is.NoErr(groups.UpdateSubgroups(ctx, w.Svc, o.Member.ID, managers, []chatcore.GroupID{helpers}, nil))
	is.NoErr(rename(o.Admin, "c"))                              // Iago is in managers through helpers
	wantErr(t, rename(o.Guest, "d"), "Insufficient permission") // guests never manage groups
	is.NoErr(groups.UpdateMembers(ctx, w.Svc, o.Member.ID, managers, groups.MembersChange{Delete: []chatcore.UserID{o.Other.ID}}))
	wantErr(t, rename(o.Other, "e"), "Insufficient permission") // removed: the right went with him
	// A group in use cannot be deactivated; once unused it can.
	wantErr(t, groups.Deactivate(ctx, w.Svc, o.Member.ID, managers), "Cannot deactivate user group in use.")
	wantErr(t, groups.Deactivate(ctx, w.Svc, o.Member.ID, helpers), "Cannot deactivate user group in use.") // a subgroup of managers
}

func TestMembersAndSubgroups(t *testing.T) {
	is := is.New(t)
	ctx := context.Background()
	w, o := newOrg(t)
	a, err := groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: "a", Members: []chatcore.UserID{o.Member.ID}})
	is.NoErr(err)
	b, err := groups.Create(ctx, w.Svc, o.Member.ID, groups.CreateRequest{Name: "b", Members: []chatcore.UserID{o.Other.ID}})
	is.NoErr(err)
	wantErr(t, groups.UpdateMembers(ctx, w.Svc, o.Member.ID, a, groups.MembersChange{Add: []chatcore.UserID{o.Member.ID}}),
		"User "+itoa(int64(o.Member.ID))+" is already a member of this group")
	wantErr(t, groups.UpdateMembers(ctx, w.Svc, o.Member.ID, a, groups.MembersChange{Delete: []chatcore.UserID{o.Other.ID}}),
		"There is no member '"+itoa(int64(o.Other.ID))+"' in this user group")
	wantErr(t, groups.UpdateMembers(ctx, w.Svc, o.Other.ID, a, groups.MembersChange{Add: []chatcore.UserID{o.Other.ID}}),
		"Insufficient permission") // can_join_group is nobody
	w.Events.Reset()
	is.NoErr(groups.UpdateSubgroups(ctx, w.Svc, o.Member.ID, a, []chatcore.GroupID{b}, nil))
	evs := w.Events.All()
	is.Equal(evs[0].Data["op"], "add_subgroups")
	is.Equal(evs[0].Data["direct_subgroup_ids"], []chatcore.GroupID{b})
	wantErr(t, groups.UpdateSubgroups(ctx, w.Svc, o.Member.ID, b, []chatcore.GroupID{a}, nil),
		"User group "+itoa(int64(b))+" is already a subgroup of one of the passed subgroups.") // no cycles
	wantErr(t, groups.UpdateSubgroups(ctx, w.Svc, o.Member.ID, a, []chatcore.GroupID{b}, nil),
		"User group "+itoa(int64(b))+" is already a subgroup of this group.")
	all, err := groups.Members(ctx, w.Svc, o.Guest.ID, a, false)
	is.NoErr(err)
	is.Equal(all, []chatcore.UserID{o.Member.ID, o.Other.ID}) // recursive
	direct, err := groups.Members(ctx, w.Svc, o.Guest.ID, a, true)
	is.NoErr(err)
	is.Equal(direct, []chatcore.UserID{o.Member.ID}) // direct only
	in, err := groups.IsMember(ctx, w.Svc, o.Guest.ID, a, o.Other.ID, false)
	is.NoErr(err)
	is.True(in) // through b
	in, err = groups.IsMember(ctx, w.Svc, o.Guest.ID, a, o.Other.ID, true)
	is.NoErr(err)
	is.True(!in) // not directly
	subs, err := groups.Subgroups(ctx, w.Svc, o.Guest.ID, a, false)
	is.NoErr(err)
	is.Equal(subs, []chatcore.GroupID{b})
	// Members leave by themselves (can_leave_group is everyone).
	is.NoErr(groups.UpdateMembers(ctx, w.Svc, o.Other.ID, b, groups.MembersChange{Delete: []chatcore.UserID{o.Other.ID}}))
	// Deactivation.
	is.NoErr(groups.UpdateSubgroups(ctx, w.Svc, o.Member.ID, a, nil, []chatcore.GroupID{b}))
	w.Events.Reset()
	is.NoErr(groups.Deactivate(ctx, w.Svc, o.Member.ID, b))
	is.Equal(w.Events.All()[0].Data["data"], map[string]any{"deactivated": true})
	wantErr(t, groups.UpdateMembers(ctx, w.Svc, o.Member.ID, b, groups.MembersChange{Add: []chatcore.UserID{o.Admin.ID}}),
		"User group is deactivated.")
	list, err := groups.List(ctx, w.Svc, o.Member.ID, false)
	is.NoErr(err)
	for _, g := range list {
		is.True(g.ID != b) // deactivated groups are left out
	}
	list, err = groups.List(ctx, w.Svc, o.Member.ID, true)
	is.NoErr(err)
	is.True(byName(t, list, "b").Deactivated) // unless asked for
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
