package postgres

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
)

const realmCols = `id, string_id, name, name_changes_disabled, email_changes_disabled,
	require_unique_names, empty_topic_display_name, date_created, content_editing_disabled,
	edit_history_disabled, content_edit_limit, move_within_channel_limit, move_between_channels_limit,
	delete_own_limit, move_between_topics_group, move_between_channels_group, resolve_topics_group,
	delete_any_group, delete_own_group`

// scanRealm scans the realmCols of a row into v, and the row's further
// columns into extra.
func scanRealm(r interface{ Scan(...any) error }, v *store.Realm, extra ...any) error {
	p := &v.Messages
	return r.Scan(append([]any{&v.ID, &v.StringID, &v.Name, &v.NameChangesDisabled, &v.EmailChangesDisabled,
		&v.RequireUniqueNames, &v.EmptyTopicDisplayName, timeCol{&v.DateCreated},
		&p.ContentEditingDisabled, &p.EditHistoryDisabled, &p.ContentEditLimit, &p.MoveWithinChannelLimit,
		&p.MoveBetweenChannelsLimit, &p.DeleteOwnLimit, &p.MoveBetweenTopics, &p.MoveBetweenChannels,
		&p.ResolveTopics, &p.DeleteAny, &p.DeleteOwn}, extra...)...)
}

// realmArgs returns the values of every realm column but id, in realmCols
// order.
func realmArgs(r *store.Realm) []any {
	p := r.Messages
	return []any{r.StringID, r.Name, r.NameChangesDisabled, r.EmailChangesDisabled,
		r.RequireUniqueNames, r.EmptyTopicDisplayName, timeArg(r.DateCreated),
		p.ContentEditingDisabled, p.EditHistoryDisabled, p.ContentEditLimit, p.MoveWithinChannelLimit,
		p.MoveBetweenChannelsLimit, p.DeleteOwnLimit, p.MoveBetweenTopics, p.MoveBetweenChannels,
		p.ResolveTopics, p.DeleteAny, p.DeleteOwn}
}

// realmWithVersionSQL reads realm $1 with its linkifier version.
const realmWithVersionSQL = "SELECT " + realmCols + ", coalesce((SELECT version FROM linkifier_versions WHERE realm_id = $1), 0) FROM realms WHERE id = $1"

// Realm implements [store.RealmStore].
// The realm's linkifier version comes with it (see tx.linkifierVersions):
// the Service reads it next for every message it renders.
func (t *tx) Realm(ctx context.Context, id store.RealmID) (*store.Realm, error) {
	var r store.Realm
	var version int64
	if f, ok := take(t.answers().realms, id); ok {
		if f == nil {
			return nil, notFound(fmt.Sprintf("realm %d", id))
		}
		r, version = f.realm, f.linkifiersVersion
	} else {
		row := t.queryRow(ctx, realmWithVersionSQL, id)
		if err := scanRealm(row, &r, &version); err != nil {
			return nil, classify(err, fmt.Sprintf("realm %d", id))
		}
	}
	if t.linkifierVersions == nil {
		t.linkifierVersions = map[store.RealmID]int64{}
	}
	t.linkifierVersions[id] = version
	return &r, nil
}

// RealmByStringID implements [store.RealmStore].
func (t *tx) RealmByStringID(ctx context.Context, stringID string) (*store.Realm, error) {
	var r store.Realm
	if err := scanRealm(t.queryRow(ctx, "SELECT "+realmCols+" FROM realms WHERE string_id = $1", stringID), &r); err != nil {
		return nil, classify(err, fmt.Sprintf("realm %q", stringID))
	}
	return &r, nil
}

// Realms implements [store.RealmStore].
func (t *tx) Realms(ctx context.Context) ([]store.Realm, error) {
	return scanAll(ctx, t, "realms", func(r pgx.Rows, v *store.Realm) error { return scanRealm(r, v) },
		"SELECT "+realmCols+" FROM realms ORDER BY id")
}

// CreateRealm implements [store.RealmStore].
func (t *tx) CreateRealm(ctx context.Context, r *store.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	id, err := t.insertWithID(ctx, "realms", "create realm",
		"INSERT INTO realms ("+realmCols+") VALUES ("+idValue("realms")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) RETURNING id",
		int64(r.ID), realmArgs(r)...)
	if err != nil {
		return err
	}
	r.ID = store.RealmID(id)
	return nil
}

// UpdateRealm implements [store.RealmStore].
func (t *tx) UpdateRealm(ctx context.Context, r *store.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	tag, err := t.exec(ctx, `UPDATE realms SET string_id = $1, name = $2, name_changes_disabled = $3,
		email_changes_disabled = $4, require_unique_names = $5, empty_topic_display_name = $6, date_created = $7,
		content_editing_disabled = $8, edit_history_disabled = $9, content_edit_limit = $10,
		move_within_channel_limit = $11, move_between_channels_limit = $12, delete_own_limit = $13,
		move_between_topics_group = $14, move_between_channels_group = $15, resolve_topics_group = $16,
		delete_any_group = $17, delete_own_group = $18
		WHERE id = $19`, append(realmArgs(r), r.ID)...)
	return mustAffect(tag, err, fmt.Sprintf("update realm %d", r.ID))
}
