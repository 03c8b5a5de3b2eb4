package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore"
)

// The GroupAdminStore methods of faultyTx.

func (t faultyTx) UpdateGroup(ctx context.Context, g *chatcore.Group) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateGroup(ctx, g) })
}

func (t faultyTx) ChangeGroupMembers(ctx context.Context, id chatcore.GroupID, add, remove []chatcore.UserID) error {
	return faultStepErr(t.f, func() error { return t.tx.ChangeGroupMembers(ctx, id, add, remove) })
}

func (t faultyTx) ChangeSubgroups(ctx context.Context, id chatcore.GroupID, add, remove []chatcore.GroupID) error {
	return faultStepErr(t.f, func() error { return t.tx.ChangeSubgroups(ctx, id, add, remove) })
}

func (t faultyTx) GroupSettings(ctx context.Context, realm chatcore.RealmID) ([]chatcore.GroupSetting, error) {
	return faultStep(t.f, func() ([]chatcore.GroupSetting, error) { return t.tx.GroupSettings(ctx, realm) })
}

func (t faultyTx) ChannelGroupSettings(ctx context.Context, stream chatcore.StreamID) ([]chatcore.GroupSetting, error) {
	return faultStep(t.f, func() ([]chatcore.GroupSetting, error) { return t.tx.ChannelGroupSettings(ctx, stream) })
}

func (t faultyTx) PutGroupSetting(ctx context.Context, s chatcore.GroupSetting) error {
	return faultStepErr(t.f, func() error { return t.tx.PutGroupSetting(ctx, s) })
}

func (t faultyTx) DefaultStreams(ctx context.Context, realm chatcore.RealmID) ([]chatcore.StreamID, error) {
	return faultStep(t.f, func() ([]chatcore.StreamID, error) { return t.tx.DefaultStreams(ctx, realm) })
}

func (t faultyTx) SetDefaultStream(ctx context.Context, realm chatcore.RealmID, stream chatcore.StreamID, on bool) error {
	return faultStepErr(t.f, func() error { return t.tx.SetDefaultStream(ctx, realm, stream, on) })
}
