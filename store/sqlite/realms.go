package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/chatcore/chatcore/store"
)

const realmCols = `id, string_id, name, name_changes_disabled, email_changes_disabled,
	require_unique_names, empty_topic_display_name, date_created, ` + policyCols

// policyCols are the columns of store.MessagePolicy, in policyArgs order.
const policyCols = `content_editing_disabled, edit_history_disabled, content_edit_limit,
	move_within_channel_limit, move_between_channels_limit, delete_own_limit, move_between_topics_group,
	move_between_channels_group, resolve_topics_group, delete_any_group, delete_own_group`

func scanRealm(r interface{ Scan(...any) error }, v *store.Realm) error {
	p := &v.Messages
	return r.Scan(num(&v.ID), &v.StringID, &v.Name, &v.NameChangesDisabled, &v.EmailChangesDisabled,
		&v.RequireUniqueNames, &v.EmptyTopicDisplayName, timeCol{&v.DateCreated},
		&p.ContentEditingDisabled, &p.EditHistoryDisabled, &p.ContentEditLimit, &p.MoveWithinChannelLimit,
		&p.MoveBetweenChannelsLimit, &p.DeleteOwnLimit, &p.MoveBetweenTopics, &p.MoveBetweenChannels,
		&p.ResolveTopics, &p.DeleteAny, &p.DeleteOwn)
}

// policyArgs returns the values of policyCols.
func policyArgs(p store.MessagePolicy) []any {
	return []any{p.ContentEditingDisabled, p.EditHistoryDisabled, int64(p.ContentEditLimit),
		int64(p.MoveWithinChannelLimit), int64(p.MoveBetweenChannelsLimit), int64(p.DeleteOwnLimit),
		string(p.MoveBetweenTopics), string(p.MoveBetweenChannels), string(p.ResolveTopics),
		string(p.DeleteAny), string(p.DeleteOwn)}
}

// Realm implements [store.RealmStore], from the row cache when it holds
// the row.
func (t *tx) Realm(ctx context.Context, id store.RealmID) (*store.Realm, error) {
	if r, ok := t.cachedRealm(id); ok {
		return r, nil
	}
	var r store.Realm
	err := scanRealm(t.queryRow(ctx, "SELECT "+realmCols+" FROM realms WHERE id = ?", id), &r)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("realm %d", id))
	}
	t.cacheRealm(&r)
	return &r, nil
}

// RealmByStringID implements [store.RealmStore].
func (t *tx) RealmByStringID(ctx context.Context, stringID string) (*store.Realm, error) {
	var r store.Realm
	err := scanRealm(t.queryRow(ctx, "SELECT "+realmCols+" FROM realms WHERE string_id = ?", stringID), &r)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("realm %q", stringID))
	}
	return &r, nil
}

// Realms implements [store.RealmStore].
func (t *tx) Realms(ctx context.Context) ([]store.Realm, error) {
	return scanAll(ctx, t, "realms", func(r *sql.Rows, v *store.Realm) error { return scanRealm(r, v) },
		"SELECT "+realmCols+" FROM realms ORDER BY id")
}

// CreateRealm implements [store.RealmStore].
func (t *tx) CreateRealm(ctx context.Context, r *store.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	args := append([]any{idArg(r.ID), r.StringID, r.Name, r.NameChangesDisabled, r.EmailChangesDisabled,
		r.RequireUniqueNames, r.EmptyTopicDisplayName, timeArg(r.DateCreated)}, policyArgs(r.Messages)...)
	err := t.queryRow(ctx, "INSERT INTO realms ("+realmCols+") VALUES (?, ?, ?, ?, ?, ?, ?, ?, "+
		"?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id", args...).Scan(&r.ID)
	return classify(err, "create realm")
}

// UpdateRealm implements [store.RealmStore].
func (t *tx) UpdateRealm(ctx context.Context, r *store.Realm) error {
	if err := t.writable(); err != nil {
		return err
	}
	args := append([]any{r.StringID, r.Name, r.NameChangesDisabled, r.EmailChangesDisabled, r.RequireUniqueNames,
		r.EmptyTopicDisplayName, timeArg(r.DateCreated)}, policyArgs(r.Messages)...)
	res, err := t.exec(ctx, `UPDATE realms SET string_id = ?, name = ?, name_changes_disabled = ?,
		email_changes_disabled = ?, require_unique_names = ?, empty_topic_display_name = ?, date_created = ?,
		content_editing_disabled = ?, edit_history_disabled = ?, content_edit_limit = ?,
		move_within_channel_limit = ?, move_between_channels_limit = ?, delete_own_limit = ?,
		move_between_topics_group = ?, move_between_channels_group = ?, resolve_topics_group = ?,
		delete_any_group = ?, delete_own_group = ?
		WHERE id = ?`, append(args, r.ID)...)
	if err != nil {
		return classify(err, fmt.Sprintf("update realm %d", r.ID))
	}
	return mustAffect(res, fmt.Sprintf("update realm %d", r.ID))
}
