package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/chatcore/chatcore/store"
	"github.com/chatcore/chatcore/store/internal/sqlstore"
	"github.com/jackc/pgx/v5"
)

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
	s, err := t.Tx.Stream(ctx, id)
	if err == nil {
		t.keepStream(s)
	}
	return s, err
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
	return t.Tx.StreamByName(ctx, realm, name)
}

func scanStreamRow(r pgx.Rows, s *store.Stream) error { return sqlstore.ScanStream(r, s) }

// Streams implements [store.StreamStore], or answers from the same read
// announced (see Prefetch).
func (t *tx) Streams(ctx context.Context, realm store.RealmID) ([]store.Stream, error) {
	if out, ok := take(t.answers().realmStreams, realm); ok {
		return out, nil
	}
	return t.Tx.Streams(ctx, realm)
}

func scanSubscriptionRow(r pgx.Rows, s *store.Subscription) error {
	return sqlstore.ScanSubscription(r, s)
}

// Subscriptions implements [store.StreamStore]. A user's subscriptions
// (stream 0) may come from the same read announced (see Prefetch).
func (t *tx) Subscriptions(ctx context.Context, stream store.StreamID, user store.UserID) ([]store.Subscription, error) {
	if stream == 0 && user != 0 {
		if out, ok := take(t.answers().userSubscriptions, user); ok {
			return out, nil
		}
	}
	return t.Tx.Subscriptions(ctx, stream, user)
}

// ActiveSubscriberIDs implements [store.StreamStore]: the whole list comes
// back as one array value, in the order of the primary key, unless the
// Store holds the stream's list at the version the transaction sees (see
// subscriberCache).
func (t *tx) ActiveSubscriberIDs(ctx context.Context, stream store.StreamID) ([]store.UserID, error) {
	if ids, ok := take(t.answers().subscribers, stream); ok {
		return ids, nil
	}
	sent := t.subs.held(stream)
	var out []store.UserID
	var version int64
	err := t.queryRow(ctx, "SELECT "+subscribersCols("$2")+" FROM streams WHERE id = $1", stream, sent.version).Scan(&version, &out)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil // no such stream: no subscribers
	}
	if err != nil {
		return nil, classify(err, "subscribers")
	}
	out = t.subs.answer(stream, streamKey{}, sent, version, out)
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// activeSubscribersOf is the SQL expression of the ascending ids of the
// active subscribers of the stream whose id is the SQL expression stream
// (ARRAY of an ordered subquery, which reads them in the primary key's
// order: array_agg(... ORDER BY) would sort them again).
func activeSubscribersOf(stream string) string {
	return `ARRAY(SELECT user_id FROM subscriptions WHERE stream_id = ` + stream + ` AND active ORDER BY user_id)`
}

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
var audienceSQL = "SELECT " + sqlstore.StreamCols + ", " + activeSubscribersOf("streams.id") + `,
	ARRAY(SELECT coalesce(first_visible_message_id, 0) FROM subscriptions WHERE stream_id = streams.id AND active ORDER BY user_id)` +
	sqlstore.StreamByID

// readAudience reads the row of audienceSQL for stream: nil when there is
// no such stream.
func readAudience(r pgx.Row, stream store.StreamID) (*audience, error) {
	return readOne(r, fmt.Sprintf("stream %d", stream), func(row pgx.Row, a *audience) error {
		return sqlstore.ScanStream(row, &a.stream, &a.users, &a.firstVisible)
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
