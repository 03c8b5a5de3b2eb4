package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
)

// StreamCols are the columns [ScanStream] reads, in its order.
const StreamCols = `id, realm_id, recipient_id, name, description, invite_only,
	history_public_to_subscribers, is_archived, first_message_id, date_created, creator_id, rendered_description`

// The conditions of a stream read by id ($1) and by realm and folded name
// ($1, $2), to follow "SELECT " + StreamCols and any further columns.
const (
	StreamByID   = " FROM streams WHERE id = $1"
	StreamByName = " FROM streams WHERE realm_id = $1 AND name_key = $2"
)

// RealmStreamsSQL reads every stream of realm $1, as Streams orders them.
const RealmStreamsSQL = "SELECT " + StreamCols + " FROM streams WHERE realm_id = $1 ORDER BY id"

// ScanStream scans the StreamCols of a row into s, and the row's further
// columns into extra.
func ScanStream(r Row, s *store.Stream, extra ...any) error {
	return r.Scan(append([]any{Num(&s.ID), Num(&s.RealmID), Num(&s.RecipientID), &s.Name, &s.Description, &s.InviteOnly,
		&s.HistoryPublicToSubscribers, &s.IsArchived, ID(&s.FirstMessageID),
		Time(&s.DateCreated), ID(&s.CreatorID), &s.RenderedDescription}, extra...)...)
}

// Stream implements [store.StreamStore] with one statement.
func (x *Tx) Stream(ctx context.Context, id store.StreamID) (*store.Stream, error) {
	var s store.Stream
	if err := ScanStream(x.q.QueryRow(ctx, "SELECT "+StreamCols+StreamByID, id), &s); err != nil {
		return nil, x.classify(err, fmt.Sprintf("stream %d", id))
	}
	return &s, nil
}

// StreamByName implements [store.StreamStore] with one statement.
func (x *Tx) StreamByName(ctx context.Context, realm store.RealmID, name string) (*store.Stream, error) {
	var s store.Stream
	err := ScanStream(x.q.QueryRow(ctx, "SELECT "+StreamCols+StreamByName, realm, store.FoldKey(name)), &s)
	if err != nil {
		return nil, x.classify(err, fmt.Sprintf("stream %q", name))
	}
	return &s, nil
}

// Streams implements [store.StreamStore].
func (x *Tx) Streams(ctx context.Context, realm store.RealmID) ([]store.Stream, error) {
	return scanAll(ctx, x, "streams", func(r Row, s *store.Stream) error { return ScanStream(r, s) },
		RealmStreamsSQL, realm)
}

// CreateStream implements [store.StreamStore]. The channel's recipient id
// comes from the recipients table, shared with direct conversations.
func (x *Tx) CreateStream(ctx context.Context, s *store.Stream) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	rid, err := x.InsertWithID(ctx, "recipients", "create stream recipient",
		"INSERT INTO recipients (id, realm_id) VALUES ("+x.d.IDValue("recipients")+", $2) RETURNING id",
		int64(s.RecipientID), s.RealmID)
	if err != nil {
		return err
	}
	id, err := x.InsertWithID(ctx, "streams", "create stream",
		"INSERT INTO streams ("+StreamCols+", name_key) VALUES ("+x.d.IDValue("streams")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
		int64(s.ID), s.RealmID, rid, s.Name, s.Description, s.InviteOnly, s.HistoryPublicToSubscribers,
		s.IsArchived, IDArg(s.FirstMessageID), x.d.Time(s.DateCreated), IDArg(s.CreatorID), s.RenderedDescription,
		store.FoldKey(s.Name))
	if err != nil {
		return err
	}
	s.ID, s.RecipientID = store.StreamID(id), store.RecipientID(rid)
	return nil
}

// UpdateStream implements [store.StreamStore]. The recipient id is kept.
func (x *Tx) UpdateStream(ctx context.Context, s *store.Stream) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	n, err := x.q.Exec(ctx, `UPDATE streams SET realm_id = $1, name = $2, name_key = $3, description = $4,
		invite_only = $5, history_public_to_subscribers = $6, is_archived = $7, first_message_id = $8,
		date_created = $9, creator_id = $10, rendered_description = $11 WHERE id = $12`,
		s.RealmID, s.Name, store.FoldKey(s.Name), s.Description, s.InviteOnly, s.HistoryPublicToSubscribers,
		s.IsArchived, IDArg(s.FirstMessageID), x.d.Time(s.DateCreated), IDArg(s.CreatorID), s.RenderedDescription, s.ID)
	return x.mustAffect(n, err, fmt.Sprintf("update stream %d", s.ID))
}

// SubscriptionCols are the columns [ScanSubscription] reads, in its order.
const SubscriptionCols = `stream_id, user_id, active, first_visible_message_id, since_message_id,
	color, pin_to_top, is_muted, desktop_notifications, audible_notifications, push_notifications,
	email_notifications, wildcard_mentions_notify`

// UserSubscriptionsSQL reads every subscription of user $1, as
// Subscriptions orders them.
const UserSubscriptionsSQL = "SELECT " + SubscriptionCols + " FROM subscriptions WHERE user_id = $1 ORDER BY stream_id, user_id"

// ScanSubscription scans the SubscriptionCols of a row into s.
func ScanSubscription(r Row, s *store.Subscription) error {
	p := &s.SubscriptionProperties
	return r.Scan(Num(&s.StreamID), Num(&s.UserID), &s.Active, ID(&s.FirstVisibleMessageID), Num(&s.SinceMessageID),
		&p.Color, &p.PinToTop, &p.IsMuted, &p.DesktopNotifications, &p.AudibleNotifications, &p.PushNotifications,
		&p.EmailNotifications, &p.WildcardMentionsNotify)
}

// Subscription implements [store.StreamStore].
func (x *Tx) Subscription(ctx context.Context, stream store.StreamID, user store.UserID) (*store.Subscription, error) {
	var s store.Subscription
	err := ScanSubscription(x.q.QueryRow(ctx, "SELECT "+SubscriptionCols+" FROM subscriptions WHERE stream_id = $1 AND user_id = $2",
		stream, user), &s)
	if err != nil {
		return nil, x.classify(err, fmt.Sprintf("subscription of user %d to stream %d", user, stream))
	}
	return &s, nil
}

// Subscriptions implements [store.StreamStore]. With both ids zero it
// returns nothing; a user's subscriptions (stream 0) are read with
// UserSubscriptionsSQL.
func (x *Tx) Subscriptions(ctx context.Context, stream store.StreamID, user store.UserID) ([]store.Subscription, error) {
	var where []string
	var args []any
	if stream != 0 {
		args = append(args, stream)
		where = append(where, fmt.Sprintf("stream_id = $%d", len(args)))
	}
	if user != 0 {
		args = append(args, user)
		where = append(where, fmt.Sprintf("user_id = $%d", len(args)))
	}
	if len(where) == 0 {
		return nil, nil
	}
	return scanAll(ctx, x, "subscriptions", ScanSubscription,
		"SELECT "+SubscriptionCols+" FROM subscriptions WHERE "+strings.Join(where, " AND ")+" ORDER BY stream_id, user_id", args...)
}

// PutSubscription implements [store.StreamStore].
func (x *Tx) PutSubscription(ctx context.Context, s store.Subscription) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	p := s.SubscriptionProperties
	_, err := x.q.Exec(ctx, "INSERT INTO subscriptions ("+SubscriptionCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
		ON CONFLICT (stream_id, user_id) DO UPDATE SET active = excluded.active,
		first_visible_message_id = excluded.first_visible_message_id, since_message_id = excluded.since_message_id,
		color = excluded.color, pin_to_top = excluded.pin_to_top, is_muted = excluded.is_muted,
		desktop_notifications = excluded.desktop_notifications, audible_notifications = excluded.audible_notifications,
		push_notifications = excluded.push_notifications, email_notifications = excluded.email_notifications,
		wildcard_mentions_notify = excluded.wildcard_mentions_notify`,
		s.StreamID, s.UserID, s.Active, IDArg(s.FirstVisibleMessageID), s.SinceMessageID,
		p.Color, p.PinToTop, p.IsMuted, p.DesktopNotifications, p.AudibleNotifications, p.PushNotifications,
		p.EmailNotifications, p.WildcardMentionsNotify)
	return x.classify(err, "put subscription")
}

// DeactivateSubscriptions implements [store.StreamStore].
func (x *Tx) DeactivateSubscriptions(ctx context.Context, user store.UserID) error {
	if err := x.q.Writable(); err != nil {
		return err
	}
	_, err := x.q.Exec(ctx, "UPDATE subscriptions SET active = false WHERE user_id = $1 AND active", user)
	return x.classify(err, "deactivate subscriptions")
}

// RealmSubscribers implements [store.StreamStore]. The realm's deactivated
// users, few, come from their partial index (users_inactive): joining every
// subscription to its user read the rows of every user of the realm.
func (x *Tx) RealmSubscribers(ctx context.Context, realm store.RealmID) ([]store.Subscriber, error) {
	return scanAll(ctx, x, "realm subscribers", func(r Row, s *store.Subscriber) error {
		return r.Scan(Num(&s.StreamID), Num(&s.UserID))
	}, `SELECT s.stream_id, s.user_id FROM subscriptions s JOIN streams c ON c.id = s.stream_id
		WHERE c.realm_id = $1 AND s.active
		AND s.user_id NOT IN (SELECT u.id FROM users u WHERE u.realm_id = $1 AND NOT u.is_active)
		ORDER BY s.stream_id, s.user_id`, realm)
}

// TopicParticipants implements [store.StreamStore]: the topic's senders and
// reactors, through the index of the channel's topics.
func (x *Tx) TopicParticipants(ctx context.Context, stream store.StreamID, topicKey string) ([]store.UserID, error) {
	return scanAll(ctx, x, "topic participants", func(r Row, u *store.UserID) error { return r.Scan(Num(u)) },
		`SELECT sender_id FROM messages WHERE stream_id = $1 AND topic_key = $2
		UNION
		SELECT r.user_id FROM messages m JOIN reactions r ON r.message_id = m.id WHERE m.stream_id = $1 AND m.topic_key = $2
		ORDER BY 1`, stream, topicKey)
}

// streamTopicsSQL lists the topics of the channel $1 whose newest message
// is at or above $2, newest first, by walking the messages_stream_topic
// index from one topic to the next (one seek per topic) and reading each
// topic's newest message there: the work follows the number of topics, not
// the channel's history.
const streamTopicsSQL = `WITH RECURSIVE t(k) AS (
		SELECT min(topic_key) FROM messages WHERE stream_id = $1
		UNION ALL
		SELECT (SELECT min(topic_key) FROM messages WHERE stream_id = $1 AND topic_key > t.k) FROM t WHERE t.k IS NOT NULL
	), x(max_id) AS MATERIALIZED (
		SELECT (SELECT max(id) FROM messages WHERE stream_id = $1 AND topic_key = t.k) FROM t WHERE t.k IS NOT NULL
	)
	SELECT (SELECT n.topic FROM messages n WHERE n.id = x.max_id), x.max_id FROM x
	WHERE x.max_id >= $2 ORDER BY x.max_id DESC`

// StreamTopics implements [store.StreamStore] with streamTopicsSQL.
func (x *Tx) StreamTopics(ctx context.Context, stream store.StreamID, minID store.MessageID) ([]store.TopicSummary, error) {
	return scanAll(ctx, x, "stream topics", func(r Row, s *store.TopicSummary) error { return r.Scan(&s.Name, Num(&s.MaxID)) },
		streamTopicsSQL, stream, minID)
}
