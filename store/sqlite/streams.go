package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
)

const streamCols = `id, realm_id, recipient_id, name, description, invite_only,
	history_public_to_subscribers, is_archived, first_message_id, date_created,
	creator_id, rendered_description`

func scanStream(r interface{ Scan(...any) error }, s *store.Stream) error {
	return r.Scan(num(&s.ID), num(&s.RealmID), num(&s.RecipientID), &s.Name, &s.Description, &s.InviteOnly,
		&s.HistoryPublicToSubscribers, &s.IsArchived, sqlstore.ID(&s.FirstMessageID),
		timeCol{&s.DateCreated}, sqlstore.ID(&s.CreatorID), &s.RenderedDescription)
}

// Stream implements [store.StreamStore], from the row cache when it
// holds the row.
func (t *tx) Stream(ctx context.Context, id store.StreamID) (*store.Stream, error) {
	if s, ok := t.cachedStream(id); ok {
		return s, nil
	}
	var s store.Stream
	if err := scanStream(t.queryRow(ctx, "SELECT "+streamCols+" FROM streams WHERE id = ?", id), &s); err != nil {
		return nil, classify(err, fmt.Sprintf("stream %d", id))
	}
	t.cacheStream(&s)
	return &s, nil
}

// StreamByName implements [store.StreamStore], from the row cache when it
// holds the row.
func (t *tx) StreamByName(ctx context.Context, realm store.RealmID, name string) (*store.Stream, error) {
	key := store.FoldKey(name)
	if s, ok := t.cachedStreamByName(realm, key); ok {
		return s, nil
	}
	var s store.Stream
	err := scanStream(t.queryRow(ctx, "SELECT "+streamCols+" FROM streams WHERE realm_id = ? AND name_key = ?",
		realm, key), &s)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("stream %q", name))
	}
	t.cacheStream(&s)
	return &s, nil
}

// Streams implements [store.StreamStore].
func (t *tx) Streams(ctx context.Context, realm store.RealmID) ([]store.Stream, error) {
	return scanAll(ctx, t, "streams", func(r *sql.Rows, s *store.Stream) error { return scanStream(r, s) },
		"SELECT "+streamCols+" FROM streams WHERE realm_id = ? ORDER BY id", realm)
}

// CreateStream implements [store.StreamStore]. The channel's recipient id
// comes from the recipients table, shared with direct conversations.
func (t *tx) CreateStream(ctx context.Context, s *store.Stream) error {
	if err := t.writable(); err != nil {
		return err
	}
	var rid store.RecipientID
	err := t.queryRow(ctx, "INSERT INTO recipients (id, realm_id) VALUES (?, ?) RETURNING id",
		idArg(s.RecipientID), s.RealmID).Scan(&rid)
	if err != nil {
		return classify(err, "create stream recipient")
	}
	var id store.StreamID
	err = t.queryRow(ctx, "INSERT INTO streams ("+streamCols+", name_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
		idArg(s.ID), s.RealmID, rid, s.Name, s.Description, s.InviteOnly, s.HistoryPublicToSubscribers,
		s.IsArchived, idArg(s.FirstMessageID), timeArg(s.DateCreated), idArg(s.CreatorID), s.RenderedDescription,
		store.FoldKey(s.Name)).Scan(&id)
	if err != nil {
		return classify(err, "create stream")
	}
	s.ID, s.RecipientID = id, rid
	return nil
}

// UpdateStream implements [store.StreamStore]. The recipient id is kept.
func (t *tx) UpdateStream(ctx context.Context, s *store.Stream) error {
	if err := t.writable(); err != nil {
		return err
	}
	what := fmt.Sprintf("update stream %d", s.ID)
	res, err := t.exec(ctx, `UPDATE streams SET realm_id = ?, name = ?, name_key = ?, description = ?,
		invite_only = ?, history_public_to_subscribers = ?, is_archived = ?, first_message_id = ?,
		date_created = ?, creator_id = ?, rendered_description = ? WHERE id = ?`,
		s.RealmID, s.Name, store.FoldKey(s.Name), s.Description, s.InviteOnly, s.HistoryPublicToSubscribers,
		s.IsArchived, idArg(s.FirstMessageID), timeArg(s.DateCreated), idArg(s.CreatorID), s.RenderedDescription, s.ID)
	if err != nil {
		return classify(err, what)
	}
	return mustAffect(res, what)
}

const subscriptionCols = `stream_id, user_id, active, first_visible_message_id, since_message_id,
	color, pin_to_top, is_muted, desktop_notifications, audible_notifications, push_notifications,
	email_notifications, wildcard_mentions_notify`

func scanSubscription(r interface{ Scan(...any) error }, s *store.Subscription) error {
	p := &s.SubscriptionProperties
	return r.Scan(num(&s.StreamID), num(&s.UserID), &s.Active, sqlstore.ID(&s.FirstVisibleMessageID), num(&s.SinceMessageID),
		&p.Color, &p.PinToTop, &p.IsMuted, &p.DesktopNotifications, &p.AudibleNotifications, &p.PushNotifications,
		&p.EmailNotifications, &p.WildcardMentionsNotify)
}

// Subscription implements [store.StreamStore].
func (t *tx) Subscription(ctx context.Context, stream store.StreamID, user store.UserID) (*store.Subscription, error) {
	var s store.Subscription
	err := scanSubscription(t.queryRow(ctx, "SELECT "+subscriptionCols+" FROM subscriptions WHERE stream_id = ? AND user_id = ?",
		stream, user), &s)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("subscription of user %d to stream %d", user, stream))
	}
	return &s, nil
}

// Subscriptions implements [store.StreamStore]. With both ids zero it
// returns nothing.
func (t *tx) Subscriptions(ctx context.Context, stream store.StreamID, user store.UserID) ([]store.Subscription, error) {
	var where []string
	var args []any
	if stream != 0 {
		where, args = append(where, "stream_id = ?"), append(args, stream)
	}
	if user != 0 {
		where, args = append(where, "user_id = ?"), append(args, user)
	}
	if len(where) == 0 {
		return nil, nil
	}
	return scanAll(ctx, t, "subscriptions", func(r *sql.Rows, s *store.Subscription) error { return scanSubscription(r, s) },
		"SELECT "+subscriptionCols+" FROM subscriptions WHERE "+strings.Join(where, " AND ")+" ORDER BY stream_id, user_id", args...)
}

// PutSubscription implements [store.StreamStore].
func (t *tx) PutSubscription(ctx context.Context, s store.Subscription) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := s.SubscriptionProperties
	_, err := t.exec(ctx, "INSERT INTO subscriptions ("+subscriptionCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (stream_id, user_id) DO UPDATE SET active = excluded.active,
		first_visible_message_id = excluded.first_visible_message_id, since_message_id = excluded.since_message_id,
		color = excluded.color, pin_to_top = excluded.pin_to_top, is_muted = excluded.is_muted,
		desktop_notifications = excluded.desktop_notifications, audible_notifications = excluded.audible_notifications,
		push_notifications = excluded.push_notifications, email_notifications = excluded.email_notifications,
		wildcard_mentions_notify = excluded.wildcard_mentions_notify`,
		s.StreamID, s.UserID, s.Active, idArg(s.FirstVisibleMessageID), s.SinceMessageID,
		p.Color, p.PinToTop, p.IsMuted, p.DesktopNotifications, p.AudibleNotifications, p.PushNotifications,
		p.EmailNotifications, p.WildcardMentionsNotify)
	return classify(err, "put subscription")
}

// DeactivateSubscriptions implements [store.StreamStore].
func (t *tx) DeactivateSubscriptions(ctx context.Context, user store.UserID) error {
	if err := t.writable(); err != nil {
		return err
	}
	_, err := t.exec(ctx, "UPDATE subscriptions SET active = 0 WHERE user_id = ? AND active = 1", user)
	return classify(err, "deactivate subscriptions")
}

// ActiveRealmSubscriptions implements [store.StreamStore].
func (t *tx) ActiveRealmSubscriptions(ctx context.Context, realm store.RealmID) ([]store.Subscription, error) {
	return scanAll(ctx, t, "realm subscriptions", func(r *sql.Rows, s *store.Subscription) error { return scanSubscription(r, s) },
		"SELECT "+prefixed("s.", subscriptionCols)+` FROM subscriptions s JOIN streams c ON c.id = s.stream_id
		WHERE c.realm_id = ? AND s.active = 1 ORDER BY s.stream_id, s.user_id`, realm)
}

// prefixed qualifies every column of a comma-separated list with prefix.
func prefixed(prefix, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = prefix + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}

// StreamTopics implements [store.StreamStore]: one pass over the
// channel's rows of the messages_stream_topic index.
func (t *tx) StreamTopics(ctx context.Context, stream store.StreamID, minID store.MessageID) ([]store.TopicSummary, error) {
	return scanAll(ctx, t, "stream topics", func(r *sql.Rows, s *store.TopicSummary) error { return r.Scan(&s.Name, &s.MaxID) },
		`SELECT (SELECT topic FROM messages n WHERE n.id = m.max_id), m.max_id FROM
		(SELECT MAX(id) AS max_id FROM messages WHERE stream_id = ? AND id >= ? GROUP BY topic_key) m
		ORDER BY m.max_id DESC`, stream, minID)
}
