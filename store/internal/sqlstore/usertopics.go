package sqlstore

import (
	"context"
	"errors"

	"github.com/chatcore/chatcore/store"
)

const userTopicCols = "user_id, stream_id, topic, topic_key, visibility_policy, last_updated"

// TopicUserTopicsSQL reads every user's row of the topic $2 of channel $1,
// scanned with ScanUserTopic (see TopicUserTopics).
const TopicUserTopicsSQL = "SELECT " + userTopicCols + " FROM user_topics WHERE stream_id = $1 AND topic_key = $2 ORDER BY user_id"

// ScanUserTopic scans a row of TopicUserTopicsSQL.
func ScanUserTopic(r Row, t *store.UserTopic) error { return scanUserTopic(r, t) }

func scanUserTopic(r Row, t *store.UserTopic) error {
	return r.Scan(Num(&t.UserID), Num(&t.StreamID), &t.Topic, &t.TopicKey, Num(&t.Policy), Time(&t.LastUpdated))
}

// UserTopics implements [store.UserTopicStore] through the primary key.
func (x *Tx) UserTopics(ctx context.Context, user store.UserID) ([]store.UserTopic, error) {
	return scanAll(ctx, x, "user topics", scanUserTopic, "SELECT "+userTopicCols+
		" FROM user_topics WHERE user_id = $1 ORDER BY stream_id, topic_key"+x.d.ByteOrder, user)
}

// TopicUserTopics implements [store.UserTopicStore] through the index on
// (stream, topic key, user).
func (x *Tx) TopicUserTopics(ctx context.Context, stream store.StreamID, topicKey string) ([]store.UserTopic, error) {
	return scanAll(ctx, x, "topic user topics", scanUserTopic, TopicUserTopicsSQL, stream, topicKey)
}

// SetUserTopic implements [store.UserTopicStore]: one read of the row, then
// its deletion or upsert when the policy changes.
func (x *Tx) SetUserTopic(ctx context.Context, t *store.UserTopic) (bool, error) {
	if err := x.q.Writable(); err != nil {
		return false, err
	}
	t.TopicKey = store.TopicKey(t.Topic)
	var cur store.VisibilityPolicy
	err := x.q.QueryRow(ctx, `SELECT visibility_policy FROM user_topics WHERE user_id = $1 AND stream_id = $2 AND topic_key = $3`,
		t.UserID, t.StreamID, t.TopicKey).Scan(Num(&cur))
	if err != nil && !errors.Is(err, x.d.NoRows) {
		return false, x.classify(err, "user topic")
	}
	if cur == t.Policy {
		return false, nil
	}
	if t.Policy == store.PolicyInherit {
		_, err := x.q.Exec(ctx, `DELETE FROM user_topics WHERE user_id = $1 AND stream_id = $2 AND topic_key = $3`,
			t.UserID, t.StreamID, t.TopicKey)
		return err == nil, x.classify(err, "unset user topic")
	}
	_, err = x.q.Exec(ctx, `INSERT INTO user_topics (`+userTopicCols+`) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (user_id, stream_id, topic_key) DO UPDATE SET topic = excluded.topic,
			visibility_policy = excluded.visibility_policy, last_updated = excluded.last_updated`,
		t.UserID, t.StreamID, t.Topic, t.TopicKey, int64(t.Policy), x.d.Time(t.LastUpdated))
	return err == nil, x.classify(err, "set user topic")
}

// TopicConds appends to where the condition of q.TopicFilter for
// q.TopicUser on the message m (see [store.MessageQuery]), each topic row
// and subscription found through its primary key; add adds a statement
// argument and returns its placeholder.
func TopicConds(where []string, add func(any) string, q store.MessageQuery) []string {
	if q.TopicUser == 0 || q.TopicFilter == store.TopicsAll {
		return where
	}
	u := add(q.TopicUser)
	row := func(policies string) string {
		return "EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = " + u +
			" AND ut.stream_id = m.stream_id AND ut.topic_key = m.topic_key AND ut.visibility_policy IN (" + policies + "))"
	}
	mutedChannel := "EXISTS (SELECT 1 FROM subscriptions ms WHERE ms.stream_id = m.stream_id AND ms.user_id = " + u +
		" AND ms.active AND ms.is_muted)"
	muted := "(" + row("1") + " OR (" + mutedChannel + " AND NOT " + row("2, 3") + "))"
	f := q.TopicFilter
	if f&store.TopicsInHome != 0 {
		where = append(where, "NOT (m.type = 'stream' AND "+muted+")")
	}
	if f&store.TopicsInHomeOfChannel != 0 {
		where = append(where, "NOT (m.type = 'stream' AND "+row("1")+")")
	}
	if f&store.TopicsMuted != 0 {
		where = append(where, "m.type = 'stream' AND "+muted)
	}
	if f&store.TopicsFollowed != 0 {
		where = append(where, "m.type = 'stream' AND "+row("3"))
	}
	return where
}

// onlyChannels reports whether q's topic filter keeps channel messages
// only, so that the ranges of direct conversations need not be read.
func onlyChannels(q store.MessageQuery) bool {
	return q.TopicUser != 0 && q.TopicFilter.OnlyChannels()
}
