package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/chatcore/chatcore/store"
)

// CreateAttachment implements store.AttachmentStore.
func (t *tx) CreateAttachment(_ context.Context, a *store.Attachment) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.attachments[a.ID]; ok && a.ID != 0 {
		return fmt.Errorf("attachment %d: %w", a.ID, store.ErrConflict)
	}
	if _, ok := t.d.attachmentByPath[a.PathID]; ok {
		return fmt.Errorf("attachment %q: %w", a.PathID, store.ErrConflict)
	}
	if a.ID == 0 {
		a.ID = t.d.attachmentMax + 1
	}
	useID(t, &t.d.attachmentMax, a.ID)
	c := *a
	c.Created = a.Created.Truncate(time.Second)
	put(t, t.d.attachments, a.ID, &c)
	put(t, t.d.attachmentByPath, a.PathID, a.ID)
	return nil
}

// Attachment implements store.AttachmentStore.
func (t *tx) Attachment(_ context.Context, id store.AttachmentID) (*store.Attachment, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	a := t.d.attachments[id]
	if a == nil {
		return nil, fmt.Errorf("attachment %d: %w", id, store.ErrNotFound)
	}
	c := *a
	return &c, nil
}

// AttachmentByPath implements store.AttachmentStore.
func (t *tx) AttachmentByPath(ctx context.Context, path string) (*store.Attachment, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.attachmentByPath[path]
	if !ok {
		return nil, fmt.Errorf("attachment %q: %w", path, store.ErrNotFound)
	}
	return t.Attachment(ctx, id)
}

// referenced reports whether an existing message references attachment id.
func (t *tx) referenced(id store.AttachmentID) bool {
	for m := range t.d.refsByAttachment[id].all() {
		if t.d.messages[m] != nil {
			return true
		}
	}
	return false
}

// Attachments implements store.AttachmentStore.
func (t *tx) Attachments(_ context.Context, f store.AttachmentFilter) ([]store.Attachment, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.Attachment{}
	for _, a := range t.d.attachments {
		if (f.RealmID != 0 && a.RealmID != f.RealmID) || (f.OwnerID != 0 && a.OwnerID != f.OwnerID) ||
			(f.PathIDs != nil && !slices.Contains(f.PathIDs, a.PathID)) || a.ID <= f.AfterID ||
			(!f.CreatedBefore.IsZero() && !a.Created.Before(f.CreatedBefore)) ||
			(f.Unreferenced && t.referenced(a.ID)) || (f.AwaitingThumbnail && (a.ImageWidth <= 0 || a.Thumbnail != "")) {
			continue
		}
		out = append(out, *a)
	}
	slices.SortFunc(out, func(a, b store.Attachment) int { return int(a.ID - b.ID) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// AttachmentSpaceUsed implements store.AttachmentStore.
func (t *tx) AttachmentSpaceUsed(_ context.Context, realm store.RealmID) (int64, error) {
	if err := t.read(); err != nil {
		return 0, err
	}
	var n int64
	for _, a := range t.d.attachments {
		if a.RealmID == realm {
			n += a.Size
		}
	}
	return n, nil
}

// DeleteAttachment implements store.AttachmentStore.
func (t *tx) DeleteAttachment(_ context.Context, id store.AttachmentID) error {
	if err := t.write(); err != nil {
		return err
	}
	a := t.d.attachments[id]
	if a == nil {
		return fmt.Errorf("attachment %d: %w", id, store.ErrNotFound)
	}
	for m := range slices.Values(t.d.refsByAttachment[id].collect()) {
		unindex(t, t.d.attachRefs, m, id)
		unindex(t, t.d.refsByAttachment, id, m)
	}
	del(t, t.d.attachmentByPath, a.PathID)
	del(t, t.d.attachments, id)
	return nil
}

// SetMessageAttachments implements store.AttachmentStore.
func (t *tx) SetMessageAttachments(_ context.Context, msg store.MessageID, ids []store.AttachmentID) error {
	if err := t.write(); err != nil {
		return err
	}
	for _, a := range t.d.attachRefs[msg].collect() {
		if !slices.Contains(ids, a) {
			unindex(t, t.d.attachRefs, msg, a)
			unindex(t, t.d.refsByAttachment, a, msg)
		}
	}
	for _, a := range ids {
		if t.d.attachments[a] != nil {
			index(t, t.d.attachRefs, msg, a)
			index(t, t.d.refsByAttachment, a, msg)
		}
	}
	return nil
}

// AttachmentRefs implements store.AttachmentStore.
func (t *tx) AttachmentRefs(_ context.Context, ids []store.AttachmentID) ([]store.AttachmentRef, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var out []store.AttachmentRef
	for _, a := range ids {
		for m := range t.d.refsByAttachment[a].all() {
			if msg := t.d.messages[m]; msg != nil {
				out = append(out, store.AttachmentRef{AttachmentID: a, MessageID: m, DateSent: msg.SentAt})
			}
		}
	}
	return out, nil
}

// SetAttachmentImage implements store.AttachmentStore.
func (t *tx) SetAttachmentImage(_ context.Context, id store.AttachmentID, width, height int, thumbnail string) error {
	if err := t.write(); err != nil {
		return err
	}
	a := t.d.attachments[id]
	if a == nil {
		return fmt.Errorf("attachment %d: %w", id, store.ErrNotFound)
	}
	c := *a
	c.ImageWidth, c.ImageHeight, c.Thumbnail = width, height, thumbnail
	put(t, t.d.attachments, id, &c)
	return nil
}
