package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore"
)

func (t faultyTx) RealmSubscribers(ctx context.Context, realm chatcore.RealmID) ([]chatcore.Subscriber, error) {
	return faultStep(t.f, func() ([]chatcore.Subscriber, error) { return t.tx.RealmSubscribers(ctx, realm) })
}

func (t faultyTx) StreamTopics(ctx context.Context, stream chatcore.StreamID, minID chatcore.MessageID) ([]chatcore.TopicSummary, error) {
	return faultStep(t.f, func() ([]chatcore.TopicSummary, error) { return t.tx.StreamTopics(ctx, stream, minID) })
}

func (t faultyTx) TopicParticipants(ctx context.Context, stream chatcore.StreamID, topicKey string) ([]chatcore.UserID, error) {
	return faultStep(t.f, func() ([]chatcore.UserID, error) { return t.tx.TopicParticipants(ctx, stream, topicKey) })
}
