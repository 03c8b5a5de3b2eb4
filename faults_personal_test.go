package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/store"
)

// The users' own settings of faultyTx (user topics, muted users, statuses,
// alert words), each a step of its store.

func (t faultyTx) UserTopics(ctx context.Context, user chatcore.UserID) ([]store.UserTopic, error) {
	return faultStep(t.f, func() ([]store.UserTopic, error) { return t.tx.UserTopics(ctx, user) })
}

func (t faultyTx) TopicUserTopics(ctx context.Context, stream chatcore.StreamID, topicKey string) ([]store.UserTopic, error) {
	return faultStep(t.f, func() ([]store.UserTopic, error) { return t.tx.TopicUserTopics(ctx, stream, topicKey) })
}

func (t faultyTx) SetUserTopic(ctx context.Context, ut *store.UserTopic) (bool, error) {
	return faultStep(t.f, func() (bool, error) { return t.tx.SetUserTopic(ctx, ut) })
}

func (t faultyTx) MutedUsers(ctx context.Context, user chatcore.UserID) ([]store.MutedUser, error) {
	return faultStep(t.f, func() ([]store.MutedUser, error) { return t.tx.MutedUsers(ctx, user) })
}

func (t faultyTx) MutersOf(ctx context.Context, muted chatcore.UserID) ([]chatcore.UserID, error) {
	return faultStep(t.f, func() ([]chatcore.UserID, error) { return t.tx.MutersOf(ctx, muted) })
}

func (t faultyTx) AddMutedUser(ctx context.Context, m store.MutedUser) error {
	return faultStepErr(t.f, func() error { return t.tx.AddMutedUser(ctx, m) })
}

func (t faultyTx) RemoveMutedUser(ctx context.Context, user, muted chatcore.UserID) error {
	return faultStepErr(t.f, func() error { return t.tx.RemoveMutedUser(ctx, user, muted) })
}

func (t faultyTx) UserStatus(ctx context.Context, user chatcore.UserID) (*store.UserStatus, error) {
	return faultStep(t.f, func() (*store.UserStatus, error) { return t.tx.UserStatus(ctx, user) })
}

func (t faultyTx) UserStatuses(ctx context.Context, realm chatcore.RealmID) ([]store.UserStatus, error) {
	return faultStep(t.f, func() ([]store.UserStatus, error) { return t.tx.UserStatuses(ctx, realm) })
}

func (t faultyTx) PutUserStatus(ctx context.Context, s store.UserStatus) error {
	return faultStepErr(t.f, func() error { return t.tx.PutUserStatus(ctx, s) })
}

func (t faultyTx) AlertWords(ctx context.Context, user chatcore.UserID) ([]string, error) {
	return faultStep(t.f, func() ([]string, error) { return t.tx.AlertWords(ctx, user) })
}

func (t faultyTx) RealmAlertWords(ctx context.Context, realm chatcore.RealmID) ([]store.AlertWord, error) {
	return faultStep(t.f, func() ([]store.AlertWord, error) { return t.tx.RealmAlertWords(ctx, realm) })
}

func (t faultyTx) AddAlertWords(ctx context.Context, realm chatcore.RealmID, user chatcore.UserID, words []string) error {
	return faultStepErr(t.f, func() error { return t.tx.AddAlertWords(ctx, realm, user, words) })
}

func (t faultyTx) RemoveAlertWords(ctx context.Context, user chatcore.UserID, words []string) error {
	return faultStepErr(t.f, func() error { return t.tx.RemoveAlertWords(ctx, user, words) })
}
