package postgres

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore"
	"github.com/jackc/pgx/v5"
)

const realmCols = `id, string_id, name, name_changes_disabled, email_changes_disabled,
	require_unique_names, empty_topic_display_name, date_created`

func scanRealm(r interface{ Scan(...any) error }, v *chatcore.Realm) error {
	return r.Scan(&v.ID, &v.StringID, &v.Name, &v.NameChangesDisabled, &v.EmailChangesDisabled,
		&v.RequireUniqueNames, &v.EmptyTopicDisplayName, timeCol{&v.DateCreated})
}

// Realm implements [chatcore.RealmStore].
func (t *tx) Realm(ctx context.Context, id chatcore.RealmID) (*chatcore.Realm, error) {
	var r chatcore.Realm
	if err := scanRealm(t.queryRow(ctx, "SELECT "+realmCols+" FROM realms WHERE id = $1", id), &r); err != nil {
		return nil, classify(err, fmt.Sprintf("realm %d", id))
	}
	return &r, nil
}

// RealmByStringID implements [chatcore.RealmStore].
func (t *tx) RealmByStringID(ctx context.Context, stringID string) (*chatcore.Realm, error) {
	var r chatcore.Realm
	if err := scanRealm(t.queryRow(ctx, "SELECT "+realmCols+" FROM realms WHERE string_id = $1", stringID), &r); err != nil {
		return nil, classify(err, fmt.Sprintf("realm %q", stringID))
	}
	return &r, nil
}

// Realms implements [chatcore.RealmStore].
func (t *tx) Realms(ctx context.Context) ([]chatcore.Realm, error) {
	return scanAll(ctx, t, "realms", func(r pgx.Rows, v *chatcore.Realm) error { return scanRealm(r, v) },
		"SELECT "+realmCols+" FROM realms ORDER BY id")
}

// CreateRealm implements [chatcore.RealmStore].
func (t *tx) CreateRealm(ctx context.Context, r *chatcore.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	id, err := t.insertWithID(ctx, "realms", "create realm",
		"INSERT INTO realms ("+realmCols+") VALUES ("+idValue("realms")+", $2, $3, $4, $5, $6, $7, $8) RETURNING id",
		int64(r.ID), r.StringID, r.Name, r.NameChangesDisabled, r.EmailChangesDisabled,
		r.RequireUniqueNames, r.EmptyTopicDisplayName, timeArg(r.DateCreated))
	if err != nil {
		return err
	}
	r.ID = chatcore.RealmID(id)
	return nil
}

// UpdateRealm implements [chatcore.RealmStore].
func (t *tx) UpdateRealm(ctx context.Context, r *chatcore.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	tag, err := t.exec(ctx, `UPDATE realms SET string_id = $1, name = $2, name_changes_disabled = $3,
		email_changes_disabled = $4, require_unique_names = $5, empty_topic_display_name = $6, date_created = $7
		WHERE id = $8`,
		r.StringID, r.Name, r.NameChangesDisabled, r.EmailChangesDisabled, r.RequireUniqueNames,
		r.EmptyTopicDisplayName, timeArg(r.DateCreated), r.ID)
	return mustAffect(tag, err, fmt.Sprintf("update realm %d", r.ID))
}
