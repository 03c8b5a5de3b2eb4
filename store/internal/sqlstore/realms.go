package sqlstore

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

// RealmCols are the columns [ScanRealm] reads, in its order: id first,
// then those of realmArgs.
const RealmCols = `id, string_id, name, name_changes_disabled, email_changes_disabled,
	require_unique_names, empty_topic_display_name, date_created, content_editing_disabled,
	edit_history_disabled, content_edit_limit, move_within_channel_limit, move_between_channels_limit,
	delete_own_limit, move_between_topics_group, move_between_channels_group, resolve_topics_group,
	delete_any_group, delete_own_group, read_receipts_disabled, description, default_language, deactivated,
	icon_source, icon_version`

// ScanRealm scans the RealmCols of a row into v, and the row's further
// columns into extra.
func ScanRealm(r Row, v *store.Realm, extra ...any) error {
	p := &v.Messages
	return r.Scan(append([]any{Num(&v.ID), &v.StringID, &v.Name, &v.NameChangesDisabled, &v.EmailChangesDisabled,
		&v.RequireUniqueNames, &v.EmptyTopicDisplayName, Time(&v.DateCreated),
		&p.ContentEditingDisabled, &p.EditHistoryDisabled, &p.ContentEditLimit, &p.MoveWithinChannelLimit,
		&p.MoveBetweenChannelsLimit, &p.DeleteOwnLimit, &p.MoveBetweenTopics, &p.MoveBetweenChannels,
		&p.ResolveTopics, &p.DeleteAny, &p.DeleteOwn, &v.ReadReceiptsDisabled, &v.Description, &v.DefaultLanguage,
		&v.Deactivated, &v.IconSource, &v.IconVersion}, extra...)...)
}

// realmArgs returns the values of every realm column but id, in RealmCols
// order.
func (x *Tx) realmArgs(r *store.Realm) []any {
	p := r.Messages
	return []any{r.StringID, r.Name, r.NameChangesDisabled, r.EmailChangesDisabled,
		r.RequireUniqueNames, r.EmptyTopicDisplayName, x.d.Time(r.DateCreated),
		p.ContentEditingDisabled, p.EditHistoryDisabled, int64(p.ContentEditLimit),
		int64(p.MoveWithinChannelLimit), int64(p.MoveBetweenChannelsLimit), int64(p.DeleteOwnLimit),
		string(p.MoveBetweenTopics), string(p.MoveBetweenChannels), string(p.ResolveTopics),
		string(p.DeleteAny), string(p.DeleteOwn), r.ReadReceiptsDisabled, r.Description, r.DefaultLanguage,
		r.Deactivated, r.IconSource, r.IconVersion}
}

// Realm implements [store.RealmStore] with one statement.
func (x *Tx) Realm(ctx context.Context, id store.RealmID) (*store.Realm, error) {
	var r store.Realm
	if err := ScanRealm(x.q.QueryRow(ctx, "SELECT "+RealmCols+" FROM realms WHERE id = $1", id), &r); err != nil {
		return nil, x.classify(err, fmt.Sprintf("realm %d", id))
	}
	return &r, nil
}

// RealmByStringID implements [store.RealmStore].
func (x *Tx) RealmByStringID(ctx context.Context, stringID string) (*store.Realm, error) {
	var r store.Realm
	if err := ScanRealm(x.q.QueryRow(ctx, "SELECT "+RealmCols+" FROM realms WHERE string_id = $1", stringID), &r); err != nil {
		return nil, x.classify(err, fmt.Sprintf("realm %q", stringID))
	}
	return &r, nil
}

// Realms implements [store.RealmStore].
func (x *Tx) Realms(ctx context.Context) ([]store.Realm, error) {
	return scanAll(ctx, x, "realms", func(r Row, v *store.Realm) error { return ScanRealm(r, v) },
		"SELECT "+RealmCols+" FROM realms ORDER BY id")
}

// CreateRealm implements [store.RealmStore].
func (x *Tx) CreateRealm(ctx context.Context, r *store.Realm) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "realms", "create realm",
		"INSERT INTO realms ("+RealmCols+") VALUES ("+x.d.IDValue("realms")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25) RETURNING id",
		int64(r.ID), x.realmArgs(r)...)
	if err != nil {
		return err
	}
	r.ID = store.RealmID(id)
	return nil
}

// UpdateRealm implements [store.RealmStore].
func (x *Tx) UpdateRealm(ctx context.Context, r *store.Realm) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, `UPDATE realms SET string_id = $1, name = $2, name_changes_disabled = $3,
		email_changes_disabled = $4, require_unique_names = $5, empty_topic_display_name = $6, date_created = $7,
		content_editing_disabled = $8, edit_history_disabled = $9, content_edit_limit = $10,
		move_within_channel_limit = $11, move_between_channels_limit = $12, delete_own_limit = $13,
		move_between_topics_group = $14, move_between_channels_group = $15, resolve_topics_group = $16,
		delete_any_group = $17, delete_own_group = $18, read_receipts_disabled = $19, description = $20,
		default_language = $21, deactivated = $22, icon_source = $23, icon_version = $24
		WHERE id = $25`, append(x.realmArgs(r), r.ID)...)
	return x.mustAffect(n, err, fmt.Sprintf("update realm %d", r.ID))
}

// RealmUserDefaults implements [store.RealmStore]: the stored JSON object
// decoded over DefaultSettings.
func (x *Tx) RealmUserDefaults(ctx context.Context, realm store.RealmID) (store.Settings, error) {
	s := store.DefaultSettings()
	var raw string
	err := x.q.QueryRow(ctx, "SELECT settings FROM realm_user_defaults WHERE realm_id = $1", realm).Scan(&raw)
	if err != nil {
		if err = x.classify(err, fmt.Sprintf("realm %d user defaults", realm)); errors.Is(err, store.ErrNotFound) {
			return s, nil
		}
		return s, err
	}
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		return s, fmt.Errorf("sqlstore: realm %d user defaults: %w", realm, err)
	}
	return s, nil
}

// PutRealmUserDefaults implements [store.RealmStore] with one upsert of the
// settings as a JSON object.
func (x *Tx) PutRealmUserDefaults(ctx context.Context, realm store.RealmID, s *store.Settings) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	_, err = x.q.Exec(ctx, `INSERT INTO realm_user_defaults (realm_id, settings) VALUES ($1, $2)
		ON CONFLICT (realm_id) DO UPDATE SET settings = excluded.settings`, int64(realm), string(raw))
	return x.classify(err, "put realm user defaults")
}
