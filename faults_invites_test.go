package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore"
)

// faultyTx's store.InviteStore methods.

func (t faultyTx) CreateInvite(ctx context.Context, inv *chatcore.Invite) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateInvite(ctx, inv) })
}

func (t faultyTx) Invite(ctx context.Context, id chatcore.InviteID) (*chatcore.Invite, error) {
	return faultStep(t.f, func() (*chatcore.Invite, error) { return t.tx.Invite(ctx, id) })
}

func (t faultyTx) InviteByKey(ctx context.Context, key string) (*chatcore.Invite, error) {
	return faultStep(t.f, func() (*chatcore.Invite, error) { return t.tx.InviteByKey(ctx, key) })
}

func (t faultyTx) Invites(ctx context.Context, f chatcore.InviteFilter) ([]chatcore.Invite, error) {
	return faultStep(t.f, func() ([]chatcore.Invite, error) { return t.tx.Invites(ctx, f) })
}

func (t faultyTx) UpdateInvite(ctx context.Context, inv *chatcore.Invite) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateInvite(ctx, inv) })
}

func (t faultyTx) UpdateBotService(ctx context.Context, s *chatcore.BotService) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateBotService(ctx, s) })
}
