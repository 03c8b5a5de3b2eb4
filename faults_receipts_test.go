package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore"
)

// The faultyTx steps of the single-draft and submessage methods.

func (t faultyTx) Draft(ctx context.Context, id chatcore.DraftID) (*chatcore.Draft, error) {
	return faultStep(t.f, func() (*chatcore.Draft, error) { return t.tx.Draft(ctx, id) })
}

func (t faultyTx) UpdateDraft(ctx context.Context, d *chatcore.Draft) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateDraft(ctx, d) })
}

func (t faultyTx) DeleteDraft(ctx context.Context, id chatcore.DraftID) error {
	return faultStepErr(t.f, func() error { return t.tx.DeleteDraft(ctx, id) })
}

func (t faultyTx) RecentDrafts(ctx context.Context, user chatcore.UserID, limit int) ([]chatcore.Draft, error) {
	return faultStep(t.f, func() ([]chatcore.Draft, error) { return t.tx.RecentDrafts(ctx, user, limit) })
}

func (t faultyTx) CreateSubmessage(ctx context.Context, s *chatcore.Submessage) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateSubmessage(ctx, s) })
}

func (t faultyTx) Submessages(ctx context.Context, msg chatcore.MessageID) ([]chatcore.Submessage, error) {
	return faultStep(t.f, func() ([]chatcore.Submessage, error) { return t.tx.Submessages(ctx, msg) })
}

func (t faultyTx) SharingReadReceipts(ctx context.Context, realm chatcore.RealmID, ids []chatcore.UserID) ([]chatcore.UserID, error) {
	return faultStep(t.f, func() ([]chatcore.UserID, error) { return t.tx.SharingReadReceipts(ctx, realm, ids) })
}
