package store

import (
	"context"
	"time"
)

// VisibilityPolicy is a user's visibility policy for a topic, as Zulip's
// UserTopic.VisibilityPolicy (the wire values).
type VisibilityPolicy int

// The visibility policies.
const (
	// PolicyInherit follows the channel: the topic is muted when the
	// channel is. It is the policy of a topic without a row.
	PolicyInherit VisibilityPolicy = 0
	PolicyMuted   VisibilityPolicy = 1
	// PolicyUnmuted shows the topic of a muted channel.
	PolicyUnmuted  VisibilityPolicy = 2
	PolicyFollowed VisibilityPolicy = 3
)

// UserTopic is a user's visibility policy for one topic of a channel, as
// Zulip's UserTopic row. Only policies other than PolicyInherit are stored.
type UserTopic struct {
	UserID   UserID
	StreamID StreamID
	// Topic is the topic's name as the user last set it; TopicKey is
	// TopicKey(Topic), which identifies the topic (set by the store).
	Topic    string
	TopicKey string
	Policy   VisibilityPolicy
	// LastUpdated is when the policy was last set.
	LastUpdated time.Time
}

// TopicFilter selects messages by a user's topic and channel settings (see
// [MessageQuery.TopicFilter]), as Zulip's narrows in:home, is:muted and
// is:followed: a set of conditions, each of which a message must meet (a
// narrow's terms all hold, so in:home with is:muted selects nothing).
type TopicFilter uint8

// The topic filters; combine them with |.
const (
	// TopicsAll does not filter.
	TopicsAll TopicFilter = 0
	// TopicsInHome keeps direct messages and the channel messages the user
	// has not muted: not in a topic they muted, and not in a channel they
	// muted unless they unmuted or followed the topic.
	TopicsInHome TopicFilter = 1 << (iota - 1)
	// TopicsInHomeOfChannel is TopicsInHome for a narrow to one channel,
	// where a muted channel hides nothing: only muted topics are left out.
	TopicsInHomeOfChannel
	// TopicsMuted keeps what TopicsInHome leaves out.
	TopicsMuted
	// TopicsFollowed keeps the channel messages of topics the user follows.
	TopicsFollowed
)

// OnlyChannels reports whether f keeps channel messages only (is:muted and
// is:followed leave direct messages out).
func (f TopicFilter) OnlyChannels() bool { return f&(TopicsMuted|TopicsFollowed) != 0 }

// UserTopicStore persists users' visibility policies for topics.
type UserTopicStore interface {
	// UserTopics returns the user's rows ordered by channel id, then
	// TopicKey.
	UserTopics(ctx context.Context, user UserID) ([]UserTopic, error)
	// TopicUserTopics returns every user's row for the topic of the
	// channel with the TopicKey, ordered by user id.
	TopicUserTopics(ctx context.Context, stream StreamID, topicKey string) ([]UserTopic, error)
	// SetUserTopic sets the user's policy for the topic t.StreamID,
	// TopicKey(t.Topic) (filling in t.TopicKey): PolicyInherit deletes the
	// row, any other policy inserts or replaces it (topic, policy and time).
	// It reports whether the policy changed: setting the policy a topic
	// already has (PolicyInherit for one without a row) writes nothing and
	// returns false. An unknown user or channel gives ErrNotFound.
	SetUserTopic(ctx context.Context, t *UserTopic) (bool, error)
}
