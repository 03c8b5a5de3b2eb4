package chatcore

import (
	"context"
	"crypto/rand"
	"regexp"
	"slices"
	"strings"

	"github.com/chatcore/chatcore/internal/markdown"
	"github.com/chatcore/chatcore/store"
)

// MaxFileKeyLen is [store.MaxFileKeyLen].
const MaxFileKeyLen = store.MaxFileKeyLen

// DefaultMaxFileUploadSizeMiB is Zulip's default MAX_FILE_UPLOAD_SIZE.
const DefaultMaxFileUploadSizeMiB = 25

// filesConfig is what the Service knows about uploaded files.
type filesConfig struct {
	storage FileStorage
	maxMiB  int
	quota   int64 // bytes per realm; 0 for no quota
	signKey []byte
}

// WithFileStorage sets where uploaded files' bytes are kept (see package
// store/filestore and postgres.Store.Files). Without one, uploads are
// refused.
func WithFileStorage(fs FileStorage) Option { return func(s *Service) { s.files.storage = fs } }

// WithMaxFileUploadSizeMiB sets the largest upload accepted, in MiB
// (Zulip's MAX_FILE_UPLOAD_SIZE, reported as max_file_upload_size_mib;
// default DefaultMaxFileUploadSizeMiB). Values below 1 keep the default.
func WithMaxFileUploadSizeMiB(n int) Option {
	return func(s *Service) {
		if n >= 1 {
			s.files.maxMiB = n
		}
	}
}

// WithRealmUploadQuota sets how many bytes of uploads each realm may keep
// (Zulip's upload_quota_gb); zero or negative means no quota (the default).
func WithRealmUploadQuota(bytes int64) Option {
	return func(s *Service) { s.files.quota = max(bytes, 0) }
}

// WithUploadSigningKey sets the key that signs temporary upload URLs
// (GET /user_uploads/temporary/...). Without it the key is the store's
// server secret uploadSigningSecret, made by the first instance that needs
// it, so every instance on one database signs alike.
func WithUploadSigningKey(key []byte) Option {
	return func(s *Service) { s.files.signKey = slices.Clone(key) }
}

// uploadSigningSecret names the store's server secret that signs temporary
// upload URLs when no key is configured.
const uploadSigningSecret = "upload-signing-key"

// FileStorage returns the storage of uploaded files ([WithFileStorage]),
// nil when there is none.
func (s *Service) FileStorage() FileStorage { return s.files.storage }

// MaxFileUploadSizeMiB returns the largest upload accepted, in MiB.
func (s *Service) MaxFileUploadSizeMiB() int {
	if s.files.maxMiB < 1 {
		return DefaultMaxFileUploadSizeMiB
	}
	return s.files.maxMiB
}

// RealmUploadQuota returns the bytes of uploads a realm may keep, 0 for no
// quota.
func (s *Service) RealmUploadQuota() int64 { return s.files.quota }

// UploadSigningKey returns the key signing temporary upload URLs: the one
// [WithUploadSigningKey] set, else the store's server secret (one write
// transaction the first time a Service needs it; kept after).
func (s *Service) UploadSigningKey(ctx context.Context) ([]byte, error) {
	s.signMu.Lock()
	defer s.signMu.Unlock()
	if len(s.files.signKey) > 0 {
		return s.files.signKey, nil
	}
	fresh := make([]byte, 32)
	_, _ = rand.Read(fresh) // crypto/rand.Read never fails
	var key []byte
	err := s.Update(ctx, func(tx Tx, _ *Effects) (err error) {
		key, err = tx.ServerSecret(ctx, uploadSigningSecret, fresh)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.files.signKey = key
	return key, nil
}

// uploadPathPattern finds the upload paths a message's content links to:
// /user_uploads/{realm id}/{random}/{name} (a name ends at white space or
// Markdown's closing characters).
var uploadPathPattern = regexp.MustCompile(`/user_uploads/(\d+/[A-Za-z0-9_\-]+/[^\s)\]>"'?#]+)`)

// MaxClaimedPaths bounds the upload paths one message may reference.
const MaxClaimedPaths = 100

// UploadPaths returns the distinct upload path ids content links to, at
// most MaxClaimedPaths, in order of appearance.
func UploadPaths(content string) []string {
	if !strings.Contains(content, "/user_uploads/") {
		return nil
	}
	var out []string
	for _, m := range uploadPathPattern.FindAllStringSubmatch(content, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
			if len(out) == MaxClaimedPaths {
				break
			}
		}
	}
	return out
}

// ClaimableAttachments returns the attachments a message from sender with
// this content claims, as Zulip's do_claim_attachments: the uploads it
// links to of sender's realm that sender uploaded or may read (so a file
// is shared onward by whoever can see it). Nothing is written.
func ClaimableAttachments(ctx context.Context, tx Tx, sender *User, content string) ([]Attachment, error) {
	paths := UploadPaths(content)
	if len(paths) == 0 {
		return nil, nil
	}
	as, err := tx.Attachments(ctx, AttachmentFilter{RealmID: sender.RealmID, PathIDs: paths})
	if err != nil {
		return nil, err
	}
	out := as[:0]
	for _, a := range as {
		ok := a.OwnerID == sender.ID
		if !ok {
			if ok, err = CanReadAttachment(ctx, tx, sender, &a); err != nil {
				return nil, err
			}
		}
		if ok {
			out = append(out, a)
		}
	}
	return out, nil
}

// ClaimAttachments makes the attachments content links to (see
// [ClaimableAttachments]) exactly those message msg references, replacing
// what it referenced before, as an edit of the content does. It returns
// what the message has of attachments and images for the has: narrows.
func ClaimAttachments(ctx context.Context, tx Tx, sender *User, msg MessageID, content string) (MessageHas, error) {
	as, err := ClaimableAttachments(ctx, tx, sender, content)
	if err != nil {
		return 0, err
	}
	return attachmentsHas(as), tx.SetMessageAttachments(ctx, msg, attachmentIDs(as))
}

// attachmentIDs returns the ids of as.
func attachmentIDs(as []Attachment) []AttachmentID {
	ids := make([]AttachmentID, len(as))
	for i, a := range as {
		ids[i] = a.ID
	}
	return ids
}

// attachmentsHas returns what a message referencing as has: an attachment
// when as is not empty, an image when one of them is an image.
func attachmentsHas(as []Attachment) MessageHas {
	var has MessageHas
	for _, a := range as {
		has |= HasAttachment
		if strings.HasPrefix(a.ContentType, "image/") {
			has |= HasImage
		}
	}
	return has
}

// CanReadAttachment reports whether viewer may read the attachment, as
// Zulip's validate_attachment_request: its uploader, and anyone of its
// realm who can read a message that references it (so references follow
// moves, and a deleted message grants nothing).
func CanReadAttachment(ctx context.Context, tx Tx, viewer *User, a *Attachment) (bool, error) {
	if a.RealmID != viewer.RealmID {
		return false, nil
	}
	if a.OwnerID == viewer.ID {
		return true, nil
	}
	refs, err := tx.AttachmentRefs(ctx, []AttachmentID{a.ID})
	if err != nil || len(refs) == 0 {
		return false, err
	}
	ids := make([]MessageID, len(refs))
	for i, r := range refs {
		ids[i] = r.MessageID
	}
	ms, err := tx.Messages(ctx, MessageQuery{RealmID: a.RealmID, IDs: ids})
	if err != nil {
		return false, err
	}
	c := NewAccessCache()
	for i := range ms {
		ok, err := c.CanSee(ctx, tx, viewer, &ms[i])
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

// UploadPreviews implements markdown.Resolver: the previews of the realm's
// image uploads among paths (those with an image size; see
// [Attachment.ImageWidth]), each showing its thumbnail once one is made.
func (r *txSource) UploadPreviews(ctx context.Context, paths []string) (map[string]markdown.ImagePreview, error) {
	if r.tx == nil {
		return nil, errNeedsStore
	}
	as, err := r.tx.Attachments(ctx, AttachmentFilter{RealmID: r.realm, PathIDs: paths})
	if err != nil {
		return nil, err
	}
	out := map[string]markdown.ImagePreview{}
	for _, a := range as {
		if p, ok := uploadPreview(&a); ok {
			out[a.PathID] = p
		}
	}
	return out, nil
}

// uploadPreview returns the inline preview of upload a in messages, false
// when a is not an image that gets one. It shows the thumbnail
// a.Thumbnail names once made; a format whose name has Zulip's "-anim"
// suffix is animated.
func uploadPreview(a *Attachment) (markdown.ImagePreview, bool) {
	if a.ImageWidth <= 0 || a.ImageHeight <= 0 {
		return markdown.ImagePreview{}, false
	}
	p := markdown.ImagePreview{Width: a.ImageWidth, Height: a.ImageHeight, ContentType: a.ContentType}
	if a.Thumbnail != "" {
		p.ThumbnailURL = "/user_uploads/" + ThumbnailKey(a.PathID, a.Thumbnail)
		p.Animated = strings.Contains(a.Thumbnail, "-anim.")
	}
	return p, true
}

// ThumbnailKey is the storage key of thumbnail format of upload pathID,
// and its URL path below /user_uploads/ (Zulip's get_image_thumbnail_path).
func ThumbnailKey(pathID, format string) string { return "thumbnail/" + pathID + "/" + format }

// RewriteUploadPreviews returns the rendered content html with the loading
// placeholders of upload a's inline previews brought up to date, as Zulip's
// rewrite_thumbnailed_images: they show a's thumbnail when a has one, and
// are removed when a no longer gets a preview (its thumbnail could not be
// made). It returns false, and html as it is, when html has no
// placeholder of a (nothing to change, as when a message is rewritten
// twice).
func RewriteUploadPreviews(html string, a *Attachment) (string, bool) {
	p, ok := uploadPreview(a)
	if ok && p.ThumbnailURL == "" {
		return html, false // still loading
	}
	if !ok {
		return markdown.RewriteUploadPreview(html, a.PathID, nil)
	}
	return markdown.RewriteUploadPreview(html, a.PathID, &p)
}
