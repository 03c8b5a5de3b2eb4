package chatcore_test

import (
	"context"

	"github.com/chatcore/chatcore"
)

// The AttachmentStore methods of faultyTx (see faults_test.go).

func (t faultyTx) CreateAttachment(ctx context.Context, a *chatcore.Attachment) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateAttachment(ctx, a) })
}

func (t faultyTx) Attachment(ctx context.Context, id chatcore.AttachmentID) (*chatcore.Attachment, error) {
	return faultStep(t.f, func() (*chatcore.Attachment, error) { return t.tx.Attachment(ctx, id) })
}

func (t faultyTx) AttachmentByPath(ctx context.Context, path string) (*chatcore.Attachment, error) {
	return faultStep(t.f, func() (*chatcore.Attachment, error) { return t.tx.AttachmentByPath(ctx, path) })
}

func (t faultyTx) Attachments(ctx context.Context, f chatcore.AttachmentFilter) ([]chatcore.Attachment, error) {
	return faultStep(t.f, func() ([]chatcore.Attachment, error) { return t.tx.Attachments(ctx, f) })
}

func (t faultyTx) AttachmentSpaceUsed(ctx context.Context, realm chatcore.RealmID) (int64, error) {
	return faultStep(t.f, func() (int64, error) { return t.tx.AttachmentSpaceUsed(ctx, realm) })
}

func (t faultyTx) DeleteAttachment(ctx context.Context, id chatcore.AttachmentID) error {
	return faultStepErr(t.f, func() error { return t.tx.DeleteAttachment(ctx, id) })
}

func (t faultyTx) SetMessageAttachments(ctx context.Context, msg chatcore.MessageID, ids []chatcore.AttachmentID) error {
	return faultStepErr(t.f, func() error { return t.tx.SetMessageAttachments(ctx, msg, ids) })
}

func (t faultyTx) AttachmentRefs(ctx context.Context, ids []chatcore.AttachmentID) ([]chatcore.AttachmentRef, error) {
	return faultStep(t.f, func() ([]chatcore.AttachmentRef, error) { return t.tx.AttachmentRefs(ctx, ids) })
}

func (t faultyTx) CreateRealmEmoji(ctx context.Context, e *chatcore.RealmEmoji) error {
	return faultStepErr(t.f, func() error { return t.tx.CreateRealmEmoji(ctx, e) })
}

func (t faultyTx) UpdateRealmEmoji(ctx context.Context, e *chatcore.RealmEmoji) error {
	return faultStepErr(t.f, func() error { return t.tx.UpdateRealmEmoji(ctx, e) })
}

func (t faultyTx) RealmEmojis(ctx context.Context, realm chatcore.RealmID) ([]chatcore.RealmEmoji, error) {
	return faultStep(t.f, func() ([]chatcore.RealmEmoji, error) { return t.tx.RealmEmojis(ctx, realm) })
}

func (t faultyTx) SetAttachmentImage(ctx context.Context, id chatcore.AttachmentID, width, height int, thumbnail string) error {
	return faultStepErr(t.f, func() error { return t.tx.SetAttachmentImage(ctx, id, width, height, thumbnail) })
}

func (t faultyTx) SetRenderedContent(ctx context.Context, id chatcore.MessageID, html string) error {
	return faultStepErr(t.f, func() error { return t.tx.SetRenderedContent(ctx, id, html) })
}
