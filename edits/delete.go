package edits

import (
	"context"

	"github.com/chatcore/chatcore"
)

// Delete deletes message id as actorID, as Zulip's DELETE
// /messages/{message_id} does: members of the realm's delete-any group
// (administrators by default) delete any message they can see; others only
// their own messages or those of bots they own, when they are in the
// delete-own group (everyone by default) and the message is not older than
// the realm's delete limit (600 s by default). The message goes with its
// reactions, edit history, submessages and flags, in one transaction that
// also records the delete_message event (to the users who could see it and
// the actor) and, when it was its channel's oldest message, the channel's new
// first_message_id, as topic deletion does.
//
// Errors (BAD_REQUEST): "Invalid message(s)" for a message the actor cannot
// see; "You don't have permission to delete this message"; "The time limit
// for deleting this message has passed".
func Delete(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.MessageID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
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
		if err := checkDelete(ctx, svc, tx, u, realm, m); err != nil {
			return err
		}
		deleted, err := tx.DeleteMessages(ctx, chatcore.MessageFilter{RealmID: m.RealmID, IDs: []chatcore.MessageID{m.ID}}, 1)
		if err != nil {
			return err
		}
		if len(deleted) == 0 {
			return chatcore.BadRequest("Message already deleted")
		}
		return chatcore.DeletionEffects(ctx, tx, fx, u, m.RealmID, deleted)
	})
}

// checkDelete applies Zulip's rules for deleting m.
func checkDelete(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, u *chatcore.User, realm *chatcore.Realm, m *chatcore.Message) error {
	pol := realm.Messages
	if pol.DeleteAny.Contains(u, chatcore.GroupAdministrators) {
		return nil
	}
	var st *chatcore.Stream
	cp := channelPerms{tx: tx, u: u}
	if m.Type == chatcore.MessageTypeStream {
		var err error
		if st, err = tx.Stream(ctx, m.StreamID); err != nil {
			return err
		}
		if ok, err := cp.in(ctx, st, "can_delete_any_message_group"); err != nil || ok {
			return err
		}
	}
	denied := chatcore.BadRequest("You don't have permission to delete this message")
	if m.SenderID != u.ID {
		sender, err := tx.User(ctx, m.SenderID)
		if err != nil {
			return err
		}
		if sender.BotOwnerID != u.ID {
			return denied
		}
	}
	if !pol.DeleteOwn.Contains(u, chatcore.GroupEveryone) {
		if st == nil {
			return denied
		}
		if ok, err := cp.in(ctx, st, "can_delete_own_message_group"); err != nil || !ok {
			if err != nil {
				return err
			}
			return denied
		}
	}
	if limit, ok := pol.DeleteOwnLimit.Effective(chatcore.DefaultDeleteOwnLimit); ok && svc.Now().Sub(m.SentAt) > limit {
		return chatcore.BadRequest("The time limit for deleting this message has passed")
	}
	return nil
}
