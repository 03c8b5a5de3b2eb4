package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore"
)

// The ReactionStore and PresenceStore methods of faultyTx.

func (t faultyTx) AddReaction(ctx context.Context, id chatcore.MessageID, r chatcore.Reaction) error {
	return faultStepErr(t.f, func() error { return t.tx.AddReaction(ctx, id, r) })
}

func (t faultyTx) RemoveReaction(ctx context.Context, id chatcore.MessageID, user chatcore.UserID, reactionType, emojiCode string) error {
	return faultStepErr(t.f, func() error { return t.tx.RemoveReaction(ctx, id, user, reactionType, emojiCode) })
}

func (t faultyTx) Presences(ctx context.Context, q chatcore.PresenceQuery) ([]chatcore.Presence, error) {
	return faultStep(t.f, func() ([]chatcore.Presence, error) { return t.tx.Presences(ctx, q) })
}

func (t faultyTx) UserPresences(ctx context.Context, ids []chatcore.UserID) ([]chatcore.Presence, error) {
	return faultStep(t.f, func() ([]chatcore.Presence, error) { return t.tx.UserPresences(ctx, ids) })
}

func (t faultyTx) PutPresences(ctx context.Context, realm chatcore.RealmID, rows []chatcore.Presence) error {
	return faultStepErr(t.f, func() error { return t.tx.PutPresences(ctx, realm, rows) })
}
