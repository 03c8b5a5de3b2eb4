package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/chatcore/chatcore/store"
	"github.com/jackc/pgx/v5"
)

// MutersOf implements [store.MutedUserStore], or answers from the same
// read announced (see Prefetch).
func (t *tx) MutersOf(ctx context.Context, muted store.UserID) ([]store.UserID, error) {
	if out, ok := take(t.answers().muters, muted); ok {
		return out, nil
	}
	return t.Tx.MutersOf(ctx, muted)
}

// RealmAlertWords implements [store.AlertWordStore], or answers from the
// same read announced (see Prefetch).
func (t *tx) RealmAlertWords(ctx context.Context, realm store.RealmID) ([]store.AlertWord, error) {
	if out, ok := take(t.answers().alertWords, realm); ok {
		return out, nil
	}
	return t.Tx.RealmAlertWords(ctx, realm)
}

// RealmEmojis implements [store.RealmEmojiStore], or answers from the same
// read announced (see Prefetch).
func (t *tx) RealmEmojis(ctx context.Context, realm store.RealmID) ([]store.RealmEmoji, error) {
	if out, ok := take(t.answers().realmEmojis, realm); ok {
		if out == nil {
			out = []store.RealmEmoji{}
		}
		return out, nil
	}
	return t.Tx.RealmEmojis(ctx, realm)
}

// ChannelGroupSettings implements [store.GroupAdminStore], or answers from
// the same read announced (see Prefetch).
func (t *tx) ChannelGroupSettings(ctx context.Context, stream store.StreamID) ([]store.GroupSetting, error) {
	if out, ok := take(t.answers().channelSettings, stream); ok {
		return out, nil
	}
	return t.Tx.ChannelGroupSettings(ctx, stream)
}

// channelSettingsByNameSQL reads the channel of realm $1 with the name key
// $2 and its group settings: one row per setting, or one with NULLs when it
// has none (no row when there is no channel).
const channelSettingsByNameSQL = `SELECT s.id, g.name, g.value FROM streams s
	LEFT JOIN group_settings g ON g.kind = '` + store.SettingOfChannel + `' AND g.object_id = s.id
	WHERE s.realm_id = $1 AND s.name_key = $2 ORDER BY g.name COLLATE "C"`

// prefetchChannelSettingsByName queues the announced ChannelGroupSettings
// read of a channel named by its name (a send by channel name): its answer
// is keyed by the channel id the same statement finds.
func (t *tx) prefetchChannelSettingsByName(f *fetched, n store.StreamName) {
	args := []any{n.RealmID, store.FoldKey(n.Name)}
	t.tx.enqueuePrefetch(channelSettingsByNameSQL, args, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return classify(err, "channel group settings")
		}
		defer rows.Close()
		var stream int64
		var out []store.GroupSetting
		found := false
		for rows.Next() {
			var name, value *string
			if err := rows.Scan(&stream, &name, &value); err != nil {
				return classify(err, "channel group settings")
			}
			found = true
			if name != nil {
				s := store.GroupSetting{RealmID: n.RealmID, Kind: store.SettingOfChannel, ObjectID: stream, Name: *name}
				if err := json.Unmarshal([]byte(*value), &s.Value); err != nil {
					return fmt.Errorf("postgres: channel group settings: %w", err)
				}
				out = append(out, s)
			}
		}
		if err := rows.Err(); err != nil {
			return classify(err, "channel group settings")
		}
		if found {
			setEntry(&f.channelSettings, store.StreamID(stream), out)
		}
		return nil
	})
}

// TopicUserTopics implements [store.UserTopicStore], or answers from the
// same read announced (see Prefetch).
func (t *tx) TopicUserTopics(ctx context.Context, stream store.StreamID, topicKey string) ([]store.UserTopic, error) {
	if out, ok := take(t.answers().topicPolicies, store.StreamTopic{StreamID: stream, TopicKey: topicKey}); ok {
		return out, nil
	}
	return t.Tx.TopicUserTopics(ctx, stream, topicKey)
}

// topicPoliciesByNameSQL reads the channel of realm $1 with the name key
// $2 and every user's row of its topic $3: one row per user row, or one
// with NULLs when the topic has none (no row when there is no channel).
const topicPoliciesByNameSQL = `SELECT s.id, ut.user_id, ut.topic, ut.visibility_policy, ut.last_updated
	FROM streams s LEFT JOIN user_topics ut ON ut.stream_id = s.id AND ut.topic_key = $3
	WHERE s.realm_id = $1 AND s.name_key = $2 ORDER BY ut.user_id`

// prefetchTopicPoliciesByName queues the announced TopicUserTopics read of
// a topic of a channel named by its name (a send by channel name): its
// answer is keyed by the channel id the same statement finds.
func (t *tx) prefetchTopicPoliciesByName(f *fetched, k store.StreamTopic) {
	args := []any{k.StreamName.RealmID, store.FoldKey(k.StreamName.Name), k.TopicKey}
	t.tx.enqueuePrefetch(topicPoliciesByNameSQL, args, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return classify(err, "topic user topics")
		}
		defer rows.Close()
		var stream int64
		var out []store.UserTopic
		found := false
		for rows.Next() {
			var user, policy *int64
			var topic *string
			var last *time.Time
			if err := rows.Scan(&stream, &user, &topic, &policy, &last); err != nil {
				return classify(err, "topic user topics")
			}
			found = true
			if user != nil {
				out = append(out, store.UserTopic{UserID: store.UserID(*user), StreamID: store.StreamID(stream), Topic: *topic,
					TopicKey: k.TopicKey, Policy: store.VisibilityPolicy(*policy), LastUpdated: last.UTC()})
			}
		}
		if err := rows.Err(); err != nil {
			return classify(err, "topic user topics")
		}
		if found {
			setEntry(&f.topicPolicies, store.StreamTopic{StreamID: store.StreamID(stream), TopicKey: k.TopicKey}, out)
		}
		return nil
	})
}
