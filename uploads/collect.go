package uploads

import (
	"context"
	"errors"
	"time"

	"github.com/chatcore/chatcore"
)

// UnclaimedGrace is how long an upload no message references is kept:
// Zulip's delete_old_unclaimed_attachments default, five weeks.
const UnclaimedGrace = 5 * 7 * 24 * time.Hour

// Collect deletes up to limit uploads (limit > 0) created more than grace
// ago that no existing message references (never claimed, or every
// referencing message deleted), metadata first, then their files, and
// returns how many it deleted. It is one bounded pass; call it again
// while it returns limit. A file the storage fails to delete is logged.
func Collect(ctx context.Context, svc *chatcore.Service, grace time.Duration, limit int) (int, error) {
	if limit <= 0 {
		return 0, nil
	}
	var gone []string
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		gone = gone[:0]
		as, err := tx.Attachments(ctx, chatcore.AttachmentFilter{Unreferenced: true, CreatedBefore: svc.Now().Add(-grace), Limit: limit})
		if err != nil {
			return err
		}
		for _, a := range as {
			if err := tx.DeleteAttachment(ctx, a.ID); err != nil {
				return err
			}
			gone = append(gone, a.PathID)
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
