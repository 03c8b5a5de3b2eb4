package messages

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore"
)

// ReadReceipts returns the ids of the users who have read message id,
// ascending, as Zulip's GET /messages/{message_id}/read_receipts: users
// with the message read (by their flag row or their read mark), active,
// whose send_read_receipts setting is on, other than its sender. Bots are
// included, and so are users who hold the message as historical, as in
// Zulip; users who muted the actor or whom the actor muted are left out, as
// in Zulip. The list is as long as the message's readers, at most the
// realm's users, read by id alone.
//
// Errors (BAD_REQUEST): "Invalid message(s)" for a message the actor
// cannot read; "Read receipts are disabled in this organization." when the
// realm's enable_read_receipts is off.
func ReadReceipts(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.MessageID) ([]chatcore.UserID, error) {
	var out []chatcore.UserID
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := chatcore.ReadableMessage(ctx, tx, u, id)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if realm.ReadReceiptsDisabled {
			return chatcore.BadRequest("Read receipts are disabled in this organization.")
		}
		rows, err := tx.MessageFlagRows(ctx, m.ID)
		if err != nil {
			return err
		}
		var readers []chatcore.UserID
		for _, r := range rows {
			if r.Flags&chatcore.FlagRead != 0 && r.UserID != m.SenderID {
				readers = append(readers, r.UserID)
			}
		}
		// As Zulip, users in a mute relationship with the requester (muted
		// by them, or having muted them) are left out.
		muted, err := tx.MutedUsers(ctx, u.ID)
		if err != nil {
			return err
		}
		muters, err := tx.MutersOf(ctx, u.ID)
		if err != nil {
			return err
		}
		hidden := make(map[chatcore.UserID]bool, len(muted)+len(muters))
		for _, m := range muted {
			hidden[m.MutedUserID] = true
		}
		for _, id := range muters {
			hidden[id] = true
		}
		readers = slices.DeleteFunc(readers, func(id chatcore.UserID) bool { return hidden[id] })
		out, err = tx.SharingReadReceipts(ctx, u.RealmID, readers)
		return err
	})
	return out, err
}
