package postgres

import (
	"context"

	"github.com/chatcore/chatcore/store"
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

// TopicUserTopics implements [store.UserTopicStore], or answers from the
// same read announced (see Prefetch).
func (t *tx) TopicUserTopics(ctx context.Context, stream store.StreamID, topicKey string) ([]store.UserTopic, error) {
	if out, ok := take(t.answers().topicPolicies, store.StreamTopic{StreamID: stream, TopicKey: topicKey}); ok {
		return out, nil
	}
	return t.Tx.TopicUserTopics(ctx, stream, topicKey)
}
