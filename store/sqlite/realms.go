package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/chatcore/chatcore"
)

const realmCols = `id, string_id, name, name_changes_disabled, email_changes_disabled,
	require_unique_names, empty_topic_display_name, date_created`

func scanRealm(r interface{ Scan(...any) error }, v *chatcore.Realm) error {
	return r.Scan(num(&v.ID), &v.StringID, &v.Name, &v.NameChangesDisabled, &v.EmailChangesDisabled,
		&v.RequireUniqueNames, &v.EmptyTopicDisplayName, timeCol{&v.DateCreated})
}

// Realm implements [chatcore.RealmStore].
func (t *tx) Realm(ctx context.Context, id chatcore.RealmID) (*chatcore.Realm, error) {
	var r chatcore.Realm
	err := scanRealm(t.queryRow(ctx, "SELECT "+realmCols+" FROM realms WHERE id = ?", id), &r)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("realm %d", id))
	}
	return &r, nil
}

// RealmByStringID implements [chatcore.RealmStore].
func (t *tx) RealmByStringID(ctx context.Context, stringID string) (*chatcore.Realm, error) {
	var r chatcore.Realm
	err := scanRealm(t.queryRow(ctx, "SELECT "+realmCols+" FROM realms WHERE string_id = ?", stringID), &r)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("realm %q", stringID))
	}
	return &r, nil
}

// Realms implements [chatcore.RealmStore].
func (t *tx) Realms(ctx context.Context) ([]chatcore.Realm, error) {
	return scanAll(ctx, t, "realms", func(r *sql.Rows, v *chatcore.Realm) error { return scanRealm(r, v) },
		"SELECT "+realmCols+" FROM realms ORDER BY id")
}

// CreateRealm implements [chatcore.RealmStore].
func (t *tx) CreateRealm(ctx context.Context, r *chatcore.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	err := t.queryRow(ctx, "INSERT INTO realms ("+realmCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
		idArg(r.ID), r.StringID, r.Name, r.NameChangesDisabled, r.EmailChangesDisabled,
		r.RequireUniqueNames, r.EmptyTopicDisplayName, timeArg(r.DateCreated)).Scan(&r.ID)
	return classify(err, "create realm")
}

// UpdateRealm implements [chatcore.RealmStore].
func (t *tx) UpdateRealm(ctx context.Context, r *chatcore.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	res, err := t.exec(ctx, `UPDATE realms SET string_id = ?, name = ?, name_changes_disabled = ?,
		email_changes_disabled = ?, require_unique_names = ?, empty_topic_display_name = ?, date_created = ?
		WHERE id = ?`,
		r.StringID, r.Name, r.NameChangesDisabled, r.EmailChangesDisabled, r.RequireUniqueNames,
		r.EmptyTopicDisplayName, timeArg(r.DateCreated), r.ID)
	if err != nil {
		return classify(err, fmt.Sprintf("update realm %d", r.ID))
	}
	return mustAffect(res, fmt.Sprintf("update realm %d", r.ID))
}
