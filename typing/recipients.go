package typing

// Who receives typing notifications.

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore"
)

// NotificationRecipients returns the ids of the users among users who
// are active and have receives_typing_notifications on, in the order given:
// the users a typing event may be delivered to.
func NotificationRecipients(users []chatcore.User) []chatcore.UserID {
	var out []chatcore.UserID
	for i := range users {
		if users[i].IsActive && users[i].Settings.ReceivesTypingNotifications {
			out = append(out, users[i].ID)
		}
	}
	return out
}

// Recipients filters candidates, the would-be recipients of a typing
// notification, down to the active users who receive typing notifications
// (see [NotificationRecipients]). Unknown ids are dropped. The result is
// sorted by id and has no duplicates. It reads in one snapshot; errors are
// internal store failures.
func Recipients(ctx context.Context, svc *chatcore.Service, candidates []chatcore.UserID) ([]chatcore.UserID, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	var out []chatcore.UserID
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		users, err := tx.Users(ctx, chatcore.UserFilter{IDs: candidates})
		if err != nil {
			return err
		}
		out = NotificationRecipients(users)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
