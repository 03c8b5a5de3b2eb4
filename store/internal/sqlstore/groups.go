package sqlstore

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// scanGroup scans the columns of a group but its edges.
func scanGroup(r Row, g *store.Group) error {
	return r.Scan(Num(&g.ID), Num(&g.RealmID), &g.Name, &g.Description, &g.IsSystemGroup, Num(&g.SystemRole),
		&g.Deactivated, ID(&g.CreatorID), Time(&g.DateCreated))
}

// groupCols are the columns scanGroup reads.
const groupCols = "id, realm_id, name, description, is_system, system_role, deactivated, creator_id, date_created"

// Group implements [store.GroupStore].
func (x *Tx) Group(ctx context.Context, id store.GroupID) (*store.Group, error) {
	var g store.Group
	err := scanGroup(x.q.QueryRow(ctx, "SELECT "+groupCols+" FROM user_groups WHERE id = $1", id), &g)
	if err != nil {
		return nil, x.classify(err, fmt.Sprintf("group %d", id))
	}
	if err := x.attachGroupEdges(ctx, []*store.Group{&g}, "group_id = $1", id); err != nil {
		return nil, err
	}
	return &g, nil
}

// Groups implements [store.GroupStore].
func (x *Tx) Groups(ctx context.Context, realm store.RealmID) ([]store.Group, error) {
	groups, err := scanAll(ctx, x, "groups", scanGroup,
		"SELECT "+groupCols+" FROM user_groups WHERE realm_id = $1 ORDER BY id", realm)
	if err != nil || len(groups) == 0 {
		return groups, err
	}
	ptrs := make([]*store.Group, len(groups))
	for i := range groups {
		ptrs[i] = &groups[i]
	}
	err = x.attachGroupEdges(ctx, ptrs, "group_id IN (SELECT id FROM user_groups WHERE realm_id = $1)", realm)
	return groups, err
}

// attachGroupEdges loads the members and subgroups of groups (two queries,
// rows selected by where/args), sorted by id.
func (x *Tx) attachGroupEdges(ctx context.Context, groups []*store.Group, where string, args ...any) error {
	byID := make(map[store.GroupID]*store.Group, len(groups))
	for _, g := range groups {
		byID[g.ID] = g
	}
	type edge struct {
		group store.GroupID
		other int64
	}
	scanEdge := func(r Row, e *edge) error { return r.Scan(Num(&e.group), &e.other) }
	members, err := scanAll(ctx, x, "group members", scanEdge,
		"SELECT group_id, user_id FROM group_members WHERE "+where+" ORDER BY group_id, user_id", args...)
	if err != nil {
		return err
	}
	for _, e := range members {
		if g := byID[e.group]; g != nil {
			g.Members = append(g.Members, store.UserID(e.other))
		}
	}
	subs, err := scanAll(ctx, x, "subgroups", scanEdge,
		"SELECT group_id, subgroup_id FROM group_subgroups WHERE "+where+" ORDER BY group_id, subgroup_id", args...)
	if err != nil {
		return err
	}
	for _, e := range subs {
		if g := byID[e.group]; g != nil {
			g.Subgroups = append(g.Subgroups, store.GroupID(e.other))
		}
	}
	return nil
}

// CreateGroup implements [store.GroupStore]. Members and subgroups are
// inserted with one statement each.
func (x *Tx) CreateGroup(ctx context.Context, g *store.Group) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "user_groups", "create group",
		"INSERT INTO user_groups ("+groupCols+") VALUES ("+x.d.IDValue("user_groups")+", $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
		int64(g.ID), int64(g.RealmID), g.Name, g.Description, g.IsSystemGroup, int64(g.SystemRole), g.Deactivated,
		IDArg(g.CreatorID), x.d.Time(g.DateCreated))
	if err != nil {
		return err
	}
	g.ID = store.GroupID(id)
	if len(g.Members) > 0 {
		_, err := x.q.Exec(ctx, `INSERT INTO group_members (group_id, user_id)
			SELECT $1, value FROM `+x.d.Each("$2", "bigint")+` WHERE true ON CONFLICT DO NOTHING`, id, List(x.d, g.Members))
		if err != nil {
			return x.classify(err, "create group members")
		}
	}
	if len(g.Subgroups) > 0 {
		_, err := x.q.Exec(ctx, `INSERT INTO group_subgroups (group_id, subgroup_id)
			SELECT $1, value FROM `+x.d.Each("$2", "bigint")+` WHERE true ON CONFLICT DO NOTHING`, id, List(x.d, g.Subgroups))
		if err != nil {
			return x.classify(err, "create subgroups")
		}
	}
	return nil
}

// groupMembersSQL expands groups through their subgroups (UNION ends
// cycles) and returns their active human members: the member rows, and for
// a system group the users of its realm with a role up to its system_role.
func (d *Dialect) groupMembersSQL() string {
	return `WITH RECURSIVE grp(id) AS (
		SELECT value FROM ` + d.Each("$1", "bigint") + `
		UNION
		SELECT s.subgroup_id FROM group_subgroups s JOIN grp ON s.group_id = grp.id
	),
	member(id) AS (
		SELECT m.user_id FROM grp ` + d.OrderedJoin + ` group_members m ON m.group_id = grp.id
		UNION
		SELECT su.id FROM grp ` + d.OrderedJoin + ` user_groups g ON g.id = grp.id
			` + d.OrderedJoin + ` users su ON su.realm_id = g.realm_id AND su.role <= g.system_role
		WHERE g.is_system = true
	)
	SELECT u.id FROM member ` + d.OrderedJoin + ` users u ON u.id = member.id
	WHERE u.is_active = true AND u.is_bot = false
	ORDER BY u.id`
}

// GroupMembers implements [store.GroupStore] with one recursive query.
func (x *Tx) GroupMembers(ctx context.Context, ids []store.GroupID) ([]store.UserID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return scanAll(ctx, x, "group members", func(r Row, id *store.UserID) error { return r.Scan(Num(id)) },
		x.d.groupMembersSQL(), List(x.d, ids))
}
