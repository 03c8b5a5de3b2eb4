package store

import (
	"context"
	"time"
)

// AttachmentID identifies an uploaded file's metadata row.
type AttachmentID int64

// Attachment is an uploaded file (Zulip's Attachment): who uploaded it, where
// its bytes are kept ([FileStorage] key PathID) and what it is. Which
// messages reference it is kept beside it ([AttachmentStore.SetMessageAttachments]).
type Attachment struct {
	// ID is filled in by CreateAttachment when zero (above every id used).
	ID      AttachmentID
	RealmID RealmID
	OwnerID UserID
	// PathID is the file's key in the FileStorage and its URL path below
	// /user_uploads/ ("{realm_id}/{random}/{file name}"); unique.
	PathID string
	// FileName is the sanitised name the file is shown with.
	FileName string
	// ContentType is the media type the file is served with.
	ContentType string
	// Size is the file's length in bytes.
	Size int64
	// Created is when the upload finished (whole seconds).
	Created time.Time
	// ImageWidth and ImageHeight are the size of an image upload that
	// messages show an inline preview of (Zulip's ImageAttachment
	// original_width_px and original_height_px), as its header gave them;
	// both are zero for any other upload, and for an image whose
	// thumbnail could not be made.
	ImageWidth, ImageHeight int
	// Thumbnail is the name of the thumbnail format made of the image
	// (its key is "thumbnail/{PathID}/{Thumbnail}"); empty until it is
	// made.
	Thumbnail string
}

// AttachmentRef is a message's reference to an attachment.
type AttachmentRef struct {
	AttachmentID AttachmentID
	MessageID    MessageID
	// DateSent is the referencing message's SentAt.
	DateSent time.Time
}

// AttachmentFilter selects attachments; zero fields do not filter. Results
// are ordered by id.
type AttachmentFilter struct {
	RealmID RealmID
	OwnerID UserID
	// PathIDs, when non-nil, keeps only attachments with one of these paths.
	PathIDs []string
	// Unreferenced keeps only attachments no existing message references.
	Unreferenced bool
	// CreatedBefore keeps attachments created before it, when non-zero.
	CreatedBefore time.Time
	// AwaitingThumbnail keeps image uploads whose thumbnail is neither
	// made nor found impossible (ImageWidth above zero, Thumbnail empty),
	// from an index of those alone.
	AwaitingThumbnail bool
	// AfterID keeps attachments with a larger id (paging).
	AfterID AttachmentID
	// Limit bounds the result; zero means no limit.
	Limit int
}

// AttachmentStore persists uploaded files' metadata and the messages that
// reference them. References are read through the messages: a reference of
// a deleted message counts for nothing (no reads, no Unreferenced filter),
// and one of a moved message follows it, so deletions and moves need no
// work here.
type AttachmentStore interface {
	// CreateAttachment inserts a and fills in a.ID when zero. A PathID or id
	// already used gives ErrConflict.
	CreateAttachment(ctx context.Context, a *Attachment) error
	// Attachment returns the attachment with the id, or ErrNotFound.
	Attachment(ctx context.Context, id AttachmentID) (*Attachment, error)
	// AttachmentByPath returns the attachment whose PathID is path, or
	// ErrNotFound.
	AttachmentByPath(ctx context.Context, path string) (*Attachment, error)
	// Attachments returns the attachments f selects.
	Attachments(ctx context.Context, f AttachmentFilter) ([]Attachment, error)
	// AttachmentSpaceUsed returns the sum of the sizes of the realm's
	// attachments.
	AttachmentSpaceUsed(ctx context.Context, realm RealmID) (int64, error)
	// DeleteAttachment deletes the attachment with its references, or
	// returns ErrNotFound.
	DeleteAttachment(ctx context.Context, id AttachmentID) error
	// SetMessageAttachments makes ids exactly the attachments message msg
	// references (replacing what it referenced before; unknown ids are
	// ignored, an empty list removes every reference).
	SetMessageAttachments(ctx context.Context, msg MessageID, ids []AttachmentID) error
	// SetAttachmentImage overwrites the attachment's ImageWidth,
	// ImageHeight and Thumbnail, or returns ErrNotFound.
	SetAttachmentImage(ctx context.Context, id AttachmentID, width, height int, thumbnail string) error
	// AttachmentRefs returns the references of existing messages to the
	// attachments, ordered by attachment id then message id.
	AttachmentRefs(ctx context.Context, ids []AttachmentID) ([]AttachmentRef, error)
}
