package uploads

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
)

// UnclaimedGrace is how long an upload no message references is kept:
// Zulip's delete_old_unclaimed_attachments default, five weeks.
const UnclaimedGrace = 5 * 7 * 24 * time.Hour

// Collect deletes up to limit uploads (limit > 0) created more than grace
// ago that no existing message references (never claimed, or every
// referencing message deleted) and no undelivered scheduled message of
// their uploader names (Zulip keeps the attachments of scheduled
// messages), metadata first, then their files, and returns how many it
// deleted. It is one bounded pass (it looks at most at collectPages pages
// of limit candidates); call it again while it returns limit. A file the
// storage fails to delete is logged.
func Collect(ctx context.Context, svc *chatcore.Service, grace time.Duration, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var gone []string
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		gone = gone[:0]
		pending := map[chatcore.UserID][]chatcore.ScheduledMessage{}
		var after chatcore.AttachmentID
		for range collectPages {
			as, err := tx.Attachments(ctx, chatcore.AttachmentFilter{Unreferenced: true, CreatedBefore: svc.Now().Add(-grace), AfterID: after, Limit: limit})
			if err != nil {
				return err
			}
			for _, a := range as {
				after = a.ID
				kept, err := scheduledUse(ctx, tx, pending, &a)
				if err != nil {
					return err
				}
				if kept {
					continue
				}
				if err := tx.DeleteAttachment(ctx, a.ID); err != nil {
					return err
				}
				if gone = append(gone, a.PathID); len(gone) == limit {
					return nil
				}
			}
			if len(as) < limit {
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if fs := svc.FileStorage(); fs != nil {
		for _, p := range gone {
			if err := fs.Delete(ctx, p); err != nil && !errors.Is(err, chatcore.ErrNotFound) {
				svc.Logger().WarnContext(ctx, "uploads: collecting a file failed", "path_id", p, "err", err)
			}
			deleteThumbnails(ctx, fs, p)
		}
	}
	return len(gone), nil
}

// collectPages bounds the pages of candidates one Collect pass reads, so
// that uploads kept for scheduled messages cannot make a pass unbounded.
const collectPages = 10

// scheduledUse reports whether an undelivered scheduled message (or
// reminder) of a's uploader names a's file; pending caches each uploader's
// scheduled messages for the pass.
func scheduledUse(ctx context.Context, tx chatcore.Tx, pending map[chatcore.UserID][]chatcore.ScheduledMessage, a *chatcore.Attachment) (bool, error) {
	sms, ok := pending[a.OwnerID]
	if !ok {
		var err error
		if sms, err = tx.ScheduledMessages(ctx, chatcore.ScheduledFilter{RealmID: a.RealmID, SenderID: a.OwnerID, Delivered: new(false)}); err != nil {
			return false, err
		}
		pending[a.OwnerID] = sms
	}
	for i := range sms {
		if strings.Contains(sms[i].Content, a.PathID) {
			return true, nil
		}
	}
	return false, nil
}
