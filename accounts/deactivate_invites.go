package accounts

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// revokeInvitesOf revokes the usable invitations (e-mail and multi-use)
// user sent, as Zulip's deactivation does, and when there were any queues
// Zulip's invites_changed event to the realm's active administrators.
func revokeInvitesOf(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User) error {
	invs, err := tx.Invites(ctx, chatcore.InviteFilter{RealmID: u.RealmID, InviterID: u.ID, Status: new(chatcore.InviteActive)})
	if err != nil || len(invs) == 0 {
		return err
	}
	for i := range invs {
		invs[i].Status = chatcore.InviteRevoked
		if err := tx.UpdateInvite(ctx, &invs[i]); err != nil {
			return err
		}
	}
	admins, err := chatcore.ActiveAdminIDs(ctx, tx, u.RealmID)
	if err != nil {
		return err
	}
	ids := slices.DeleteFunc(admins, func(id chatcore.UserID) bool { return id == u.ID })
	fx.Event(u.RealmID, slicex.OrEmpty(ids), map[string]any{"type": "invites_changed"})
	return nil
}
