package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// UpdateGroup implements [store.GroupAdminStore].
func (x *Tx) UpdateGroup(ctx context.Context, g *store.Group) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, "UPDATE user_groups SET name = $1, description = $2, deactivated = $3 WHERE id = $4",
		g.Name, g.Description, g.Deactivated, int64(g.ID))
	return x.mustAffect(n, err, fmt.Sprintf("update group %d", g.ID))
}

// groupExists returns ErrNotFound unless group id exists.
func (x *Tx) groupExists(ctx context.Context, id store.GroupID) error {
	var n int64
	err := x.q.QueryRow(ctx, "SELECT id FROM user_groups WHERE id = $1", int64(id)).Scan(&n)
	return x.classify(err, fmt.Sprintf("group %d", id))
}

// changeEdges adds and removes rows (group_id, col) of table for group id.
func changeEdges[T ~int64](ctx context.Context, x *Tx, table, col string, id store.GroupID, add, remove []T) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	if err := x.groupExists(ctx, id); err != nil {
		return err
	}
	if len(add) > 0 {
		_, err := x.q.Exec(ctx, `INSERT INTO `+table+` (group_id, `+col+`)
			SELECT $1, value FROM `+x.d.Each("$2", "bigint")+` WHERE true ON CONFLICT DO NOTHING`, int64(id), List(x.d, add))
		if err != nil {
			return x.classify(err, "add to "+table)
		}
	}
	if len(remove) > 0 {
		_, err := x.q.Exec(ctx, `DELETE FROM `+table+` WHERE group_id = $1 AND `+x.d.In(col, "$2", "bigint"), int64(id), List(x.d, remove))
		if err != nil {
			return x.classify(err, "remove from "+table)
		}
	}
	return nil
}

// ChangeGroupMembers implements [store.GroupAdminStore].
func (x *Tx) ChangeGroupMembers(ctx context.Context, id store.GroupID, add, remove []store.UserID) error {
	return changeEdges(ctx, x, "group_members", "user_id", id, add, remove)
}

// ChangeSubgroups implements [store.GroupAdminStore].
func (x *Tx) ChangeSubgroups(ctx context.Context, id store.GroupID, add, remove []store.GroupID) error {
	return changeEdges(ctx, x, "group_subgroups", "subgroup_id", id, add, remove)
}

// ScanGroupSetting scans a row of group_settings: realm_id, kind,
// object_id, name, value.
func ScanGroupSetting(r Row, s *store.GroupSetting) error {
	var raw string
	if err := r.Scan(Num(&s.RealmID), &s.Kind, &s.ObjectID, &s.Name, &raw); err != nil {
		return err
	}
	return json.Unmarshal([]byte(raw), &s.Value)
}

// GroupSettings implements [store.GroupAdminStore].
func (x *Tx) GroupSettings(ctx context.Context, realm store.RealmID) ([]store.GroupSetting, error) {
	return scanAll(ctx, x, "group settings", ScanGroupSetting, "SELECT realm_id, kind, object_id, name, value FROM group_settings WHERE realm_id = $1 ORDER BY kind"+x.d.ByteOrder+
		", object_id, name"+x.d.ByteOrder, int64(realm))
}

// PutGroupSetting implements [store.GroupAdminStore].
func (x *Tx) PutGroupSetting(ctx context.Context, s store.GroupSetting) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	raw, err := json.Marshal(s.Value)
	if err != nil {
		return err
	}
	_, err = x.q.Exec(ctx, `INSERT INTO group_settings (realm_id, kind, object_id, name, value) VALUES ($1, $2, $3, $4, $5)
		ON CONFLICT (kind, object_id, name) DO UPDATE SET value = excluded.value, realm_id = excluded.realm_id`,
		int64(s.RealmID), s.Kind, s.ObjectID, s.Name, string(raw))
	return x.classify(err, "put group setting "+s.Name)
}

// ChannelGroupSettings implements [store.GroupAdminStore].
func (x *Tx) ChannelGroupSettings(ctx context.Context, stream store.StreamID) ([]store.GroupSetting, error) {
	return scanAll(ctx, x, "channel group settings", ScanGroupSetting, ChannelGroupSettingsSQL(x.d.ByteOrder), int64(stream))
}

// ChannelGroupSettingsSQL returns the statement that reads the group
// settings of the channel $1 ordered by name, its rows scanned with
// ScanGroupSetting; byteOrder is the dialect's ByteOrder.
func ChannelGroupSettingsSQL(byteOrder string) string {
	return "SELECT realm_id, kind, object_id, name, value FROM group_settings WHERE kind = '" + store.SettingOfChannel +
		"' AND object_id = $1 ORDER BY name" + byteOrder
}
