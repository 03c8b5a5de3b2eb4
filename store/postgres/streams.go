package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

const streamCols = `id, realm_id, recipient_id, name, description, invite_only,
	history_public_to_subscribers, is_archived, first_message_id, date_created, creator_id, rendered_description`

// The conditions of a stream read by id ($1) and by realm and folded name
// ($1, $2).
const (
	streamByID   = " FROM streams WHERE id = $1"
	streamByName = " FROM streams WHERE realm_id = $1 AND name_key = $2"
)

func scanStream(r interface{ Scan(...any) error }, s *store.Stream) error {
	return r.Scan(&s.ID, &s.RealmID, &s.RecipientID, &s.Name, &s.Description, &s.InviteOnly,
		&s.HistoryPublicToSubscribers, &s.IsArchived, sqlstore.ID(&s.FirstMessageID),
		timeCol{&s.DateCreated}, sqlstore.ID(&s.CreatorID), &s.RenderedDescription)
}

// Stream implements [store.StreamStore].
func (t *tx) Stream(ctx context.Context, id store.StreamID) (*store.Stream, error) {
	if s, ok := t.streams[id]; ok && t.failed == nil {
		return &s, nil
	}
	if s, ok := take(t.answers().streams, id); ok {
		if s == nil {
			return nil, notFound(fmt.Sprintf("stream %d", id))
		}
		t.keepStream(s)
		return s, nil
	}
	var s store.Stream
	if err := scanStream(t.queryRow(ctx, "SELECT "+streamCols+streamByID, id), &s); err != nil {
		return nil, classify(err, fmt.Sprintf("stream %d", id))
	}
	t.keepStream(&s)
	return &s, nil
}

// keepStream keeps a copy of s, read in the transaction, to answer later
// reads of it (see tx.streams).
func (t *tx) keepStream(s *store.Stream) {
	if t.streams == nil {
		t.streams = map[store.StreamID]store.Stream{}
	}
	t.streams[s.ID] = *s
}

// StreamByName implements [store.StreamStore].
func (t *tx) StreamByName(ctx context.Context, realm store.RealmID, name string) (*store.Stream, error) {
	if s, ok := take(t.answers().names, streamKey{realm, store.FoldKey(name)}); ok {
		if s == nil {
			return nil, notFound(fmt.Sprintf("stream %q", name))
		}
		return s, nil
	}
	var s store.Stream
	err := scanStream(t.queryRow(ctx, "SELECT "+streamCols+streamByName, realm, store.FoldKey(name)), &s)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("stream %q", name))
	}
	return &s, nil
}

// realmStreamsSQL reads every stream of realm $1.
const realmStreamsSQL = "SELECT " + streamCols + " FROM streams WHERE realm_id = $1 ORDER BY id"

func scanStreamRow(r pgx.Rows, s *store.Stream) error { return scanStream(r, s) }

// Streams implements [store.StreamStore], or answers from the same read
// announced (see Prefetch).
func (t *tx) Streams(ctx context.Context, realm store.RealmID) ([]store.Stream, error) {
	if out, ok := take(t.answers().realmStreams, realm); ok {
		return out, nil
	}
	return scanAll(ctx, t, "streams", scanStreamRow, realmStreamsSQL, realm)
}

// CreateStream implements [store.StreamStore]. The channel's recipient id
// comes from the recipients table, shared with direct conversations.
func (t *tx) CreateStream(ctx context.Context, s *store.Stream) error {
	if err := t.writable(); err != nil {
		return err
	}
	rid, err := t.InsertWithID(ctx, "recipients", "create stream recipient",
		"INSERT INTO recipients (id, realm_id) VALUES ("+idValue("recipients")+", $2) RETURNING id",
		int64(s.RecipientID), s.RealmID)
	if err != nil {
		return err
	}
	id, err := t.InsertWithID(ctx, "streams", "create stream",
		"INSERT INTO streams ("+streamCols+", name_key) VALUES ("+idValue("streams")+
			", $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
		int64(s.ID), s.RealmID, rid, s.Name, s.Description, s.InviteOnly, s.HistoryPublicToSubscribers,
		s.IsArchived, idArg(s.FirstMessageID), timeArg(s.DateCreated), idArg(s.CreatorID), s.RenderedDescription,
		store.FoldKey(s.Name))
	if err != nil {
		return err
	}
	s.ID, s.RecipientID = store.StreamID(id), store.RecipientID(rid)
	return nil
}

// UpdateStream implements [store.StreamStore]. The recipient id is kept.
func (t *tx) UpdateStream(ctx context.Context, s *store.Stream) error {
	if err := t.writable(); err != nil {
		return err
	}
	tag, err := t.exec(ctx, `UPDATE streams SET realm_id = $1, name = $2, name_key = $3, description = $4,
		invite_only = $5, history_public_to_subscribers = $6, is_archived = $7, first_message_id = $8,
		date_created = $9, creator_id = $10, rendered_description = $11 WHERE id = $12`,
		s.RealmID, s.Name, store.FoldKey(s.Name), s.Description, s.InviteOnly, s.HistoryPublicToSubscribers,
		s.IsArchived, idArg(s.FirstMessageID), timeArg(s.DateCreated), idArg(s.CreatorID), s.RenderedDescription, s.ID)
	return mustAffect(tag, err, fmt.Sprintf("update stream %d", s.ID))
}

const subscriptionCols = `stream_id, user_id, active, first_visible_message_id, since_message_id,
	color, pin_to_top, is_muted, desktop_notifications, audible_notifications, push_notifications,
	email_notifications, wildcard_mentions_notify`

func scanSubscription(r interface{ Scan(...any) error }, s *store.Subscription) error {
	p := &s.SubscriptionProperties
	return r.Scan(&s.StreamID, &s.UserID, &s.Active, sqlstore.ID(&s.FirstVisibleMessageID), &s.SinceMessageID,
		&p.Color, &p.PinToTop, &p.IsMuted, &p.DesktopNotifications, &p.AudibleNotifications, &p.PushNotifications,
		&p.EmailNotifications, &p.WildcardMentionsNotify)
}

// Subscription implements [store.StreamStore].
func (t *tx) Subscription(ctx context.Context, stream store.StreamID, user store.UserID) (*store.Subscription, error) {
	var s store.Subscription
	err := scanSubscription(t.queryRow(ctx, "SELECT "+subscriptionCols+" FROM subscriptions WHERE stream_id = $1 AND user_id = $2",
		stream, user), &s)
	if err != nil {
		return nil, classify(err, fmt.Sprintf("subscription of user %d to stream %d", user, stream))
	}
	return &s, nil
}

// userSubscriptionsSQL reads every subscription of user $1, as
// Subscriptions orders them.
const userSubscriptionsSQL = "SELECT " + subscriptionCols + " FROM subscriptions WHERE user_id = $1 ORDER BY stream_id, user_id"

func scanSubscriptionRow(r pgx.Rows, s *store.Subscription) error { return scanSubscription(r, s) }

// Subscriptions implements [store.StreamStore]. With both ids zero it
// returns nothing. A user's subscriptions (stream 0) may come from the
// same read announced (see Prefetch).
func (t *tx) Subscriptions(ctx context.Context, stream store.StreamID, user store.UserID) ([]store.Subscription, error) {
	if stream == 0 && user != 0 {
		if out, ok := take(t.answers().userSubscriptions, user); ok {
			return out, nil
		}
		return scanAll(ctx, t, "subscriptions", scanSubscriptionRow, userSubscriptionsSQL, user)
	}
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
	return scanAll(ctx, t, "subscriptions", func(r pgx.Rows, s *store.Subscription) error { return scanSubscription(r, s) },
		"SELECT "+subscriptionCols+" FROM subscriptions WHERE "+strings.Join(where, " AND ")+" ORDER BY stream_id, user_id", args...)
}

// ActiveSubscriberIDs implements [store.StreamStore]: the whole list comes
// back as one array value, in the order of the primary key.
func (t *tx) ActiveSubscriberIDs(ctx context.Context, stream store.StreamID) ([]store.UserID, error) {
	if ids, ok := take(t.answers().subscribers, stream); ok {
		return ids, nil
	}
	var out []store.UserID
	err := t.queryRow(ctx, "SELECT "+activeSubscribersOf("$1"), stream).Scan(&out)
	if err != nil {
		return nil, classify(err, "subscribers")
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// activeSubscribersOf is the SQL expression of the ascending ids of the
// active subscribers of the stream whose id is the SQL expression stream.
func activeSubscribersOf(stream string) string {
	return `(SELECT coalesce(array_agg(user_id ORDER BY user_id), '{}') FROM subscriptions
		WHERE stream_id = ` + stream + ` AND active)`
}

// withTail is a row whose columns after those a scan function names go to
// tail.
type withTail struct {
	r    interface{ Scan(...any) error }
	tail []any
}

func (w withTail) Scan(dest ...any) error { return w.r.Scan(append(dest, w.tail...)...) }

// StreamAudience implements [store.StreamStore] with one statement.
func (t *tx) StreamAudience(ctx context.Context, stream store.StreamID, upTo store.MessageID) (*store.Stream, []store.UserID, error) {
	a, ok := take(t.answers().audiences, stream)
	if !ok {
		var err error
		a, err = onGenericPlan(t, func() (*audience, error) { // PostgreSQL re-plans it half the time otherwise
			return readAudience(t.queryRow(ctx, audienceSQL, stream), stream)
		})
		if err != nil {
			return nil, nil, err
		}
	}
	if a == nil {
		return nil, nil, notFound(fmt.Sprintf("stream %d", stream))
	}
	return &a.stream, a.at(upTo), nil
}

// audienceSQL reads stream $1 with its active subscribers, ascending, and
// the first message each may see (0: any): StreamAudience of any upTo, in
// one statement whether announced or not.
const audienceSQL = "SELECT " + streamCols + `,
	coalesce((SELECT array_agg(user_id ORDER BY user_id) FROM subscriptions
		WHERE stream_id = streams.id AND active), '{}'),
	coalesce((SELECT array_agg(coalesce(first_visible_message_id, 0) ORDER BY user_id) FROM subscriptions
		WHERE stream_id = streams.id AND active), '{}')` + streamByID

// readAudience reads the row of audienceSQL for stream: nil when there is
// no such stream.
func readAudience(r pgx.Row, stream store.StreamID) (*audience, error) {
	return readOne(r, fmt.Sprintf("stream %d", stream), func(row pgx.Row, a *audience) error {
		return scanStream(withTail{row, []any{&a.users, &a.firstVisible}}, &a.stream)
	})
}

// audience is a stream with its active subscribers and the first message
// each may see, in the same order (see audienceSQL).
type audience struct {
	stream       store.Stream
	users        []store.UserID
	firstVisible []int64
}

// at returns the users who can see the stream's message upTo: every active
// subscriber when its history is public to subscribers, else those whose
// first visible message is at most upTo; nil for none.
func (a *audience) at(upTo store.MessageID) []store.UserID {
	var out []store.UserID
	for i, u := range a.users {
		if a.stream.HistoryPublicToSubscribers || a.firstVisible[i] <= int64(upTo) {
			out = append(out, u)
		}
	}
	return out
}

// PutSubscription implements [store.StreamStore].
func (t *tx) PutSubscription(ctx context.Context, s store.Subscription) error {
	if err := t.writable(); err != nil {
		return err
	}
	p := s.SubscriptionProperties
	_, err := t.exec(ctx, "INSERT INTO subscriptions ("+subscriptionCols+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
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
	_, err := t.exec(ctx, "UPDATE subscriptions SET active = false WHERE user_id = $1 AND active", user)
	return classify(err, "deactivate subscriptions")
}

// ActiveRealmSubscriptions implements [store.StreamStore].
func (t *tx) ActiveRealmSubscriptions(ctx context.Context, realm store.RealmID) ([]store.Subscription, error) {
	return scanAll(ctx, t, "realm subscriptions", func(r pgx.Rows, s *store.Subscription) error { return scanSubscription(r, s) },
		"SELECT "+prefixed("s.", subscriptionCols)+` FROM subscriptions s JOIN streams c ON c.id = s.stream_id
		WHERE c.realm_id = $1 AND s.active ORDER BY s.stream_id, s.user_id`, realm)
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
// channel's rows of the messages_stream_topic index, then the topic of each
// topic's newest message by its primary key.
func (t *tx) StreamTopics(ctx context.Context, stream store.StreamID, minID store.MessageID) ([]store.TopicSummary, error) {
	return scanAll(ctx, t, "stream topics", func(r pgx.Rows, s *store.TopicSummary) error { return r.Scan(&s.Name, &s.MaxID) },
		`SELECT n.topic, m.max_id FROM
		(SELECT max(id) AS max_id FROM messages WHERE stream_id = $1 AND id >= $2 GROUP BY topic_key) m
		JOIN messages n ON n.id = m.max_id
		ORDER BY m.max_id DESC`, stream, minID)
}
