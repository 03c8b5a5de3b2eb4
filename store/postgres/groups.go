package postgres

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
)

// Group implements [store.GroupStore].
func (t *tx) Group(ctx context.Context, id store.GroupID) (*store.Group, error) {
	var g store.Group
	err := t.queryRow(ctx, "SELECT id, realm_id, name, description FROM user_groups WHERE id = $1", id).
		Scan(&g.ID, &g.RealmID, &g.Name, &g.Description)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("group %d", id))
	}
	if err := t.attachGroupEdges(ctx, []*store.Group{&g}, "group_id = $1", id); err != nil {
		return nil, err
	}
	return &g, nil
}

// Groups implements [store.GroupStore].
func (t *tx) Groups(ctx context.Context, realm store.RealmID) ([]store.Group, error) {
	groups, err := scanAll(ctx, t, "groups", func(r pgx.Rows, g *store.Group) error {
		return r.Scan(&g.ID, &g.RealmID, &g.Name, &g.Description)
	}, "SELECT id, realm_id, name, description FROM user_groups WHERE realm_id = $1 ORDER BY id", realm)
	if err != nil || len(groups) == 0 {
		return groups, err
	}
	ptrs := make([]*store.Group, len(groups))
	for i := range groups {
		ptrs[i] = &groups[i]
	}
	err = t.attachGroupEdges(ctx, ptrs, "group_id IN (SELECT id FROM user_groups WHERE realm_id = $1)", realm)
	return groups, err
}

// attachGroupEdges loads the members and subgroups of groups (two queries,
// rows selected by where/args), sorted by id.
func (t *tx) attachGroupEdges(ctx context.Context, groups []*store.Group, where string, args ...any) error {
	byID := make(map[store.GroupID]*store.Group, len(groups))
	for _, g := range groups {
		byID[g.ID] = g
	}
	type edge struct {
		group store.GroupID
		other int64
	}
	scanEdge := func(r pgx.Rows, e *edge) error { return r.Scan(&e.group, &e.other) }
	members, err := scanAll(ctx, t, "group members", scanEdge,
		"SELECT group_id, user_id FROM group_members WHERE "+where+" ORDER BY group_id, user_id", args...)
	if err != nil {
		return err
	}
	for _, e := range members {
		if g := byID[e.group]; g != nil {
			g.Members = append(g.Members, store.UserID(e.other))
		}
	}
	subs, err := scanAll(ctx, t, "subgroups", scanEdge,
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
func (t *tx) CreateGroup(ctx context.Context, g *store.Group) error {
	if err := t.writable(); err != nil {
		return err
	}
	id, err := t.InsertWithID(ctx, "user_groups", "create group",
		"INSERT INTO user_groups (id, realm_id, name, description) VALUES ("+idValue("user_groups")+", $2, $3, $4) RETURNING id",
		int64(g.ID), g.RealmID, g.Name, g.Description)
	if err != nil {
		return err
	}
	g.ID = store.GroupID(id)
	if len(g.Members) > 0 {
		_, err := t.exec(ctx, `INSERT INTO group_members (group_id, user_id)
			SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`, g.ID, g.Members)
		if err != nil {
			return classify(err, "create group members")
		}
	}
	if len(g.Subgroups) > 0 {
		_, err := t.exec(ctx, `INSERT INTO group_subgroups (group_id, subgroup_id)
			SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`, g.ID, g.Subgroups)
		if err != nil {
			return classify(err, "create subgroups")
		}
	}
	return nil
}

// groupMembersSQL expands groups through their subgroups (UNION ends cycles)
// and returns their active human members.
const groupMembersSQL = `WITH RECURSIVE grp(id) AS (
		SELECT unnest($1::bigint[])
		UNION
		SELECT s.subgroup_id FROM group_subgroups s JOIN grp ON s.group_id = grp.id
	)
	SELECT DISTINCT u.id FROM grp
		JOIN group_members m ON m.group_id = grp.id
		JOIN users u ON u.id = m.user_id
	WHERE u.is_active AND NOT u.is_bot
	ORDER BY u.id`

// GroupMembers implements [store.GroupStore] with one recursive query.
func (t *tx) GroupMembers(ctx context.Context, ids []store.GroupID) ([]store.UserID, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return scanIDs[store.UserID](ctx, t, "group members", groupMembersSQL, ids)
}
