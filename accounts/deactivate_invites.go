package accounts

import (
	"context"

	"github.com/chatcore/chatcore"
)

// revokeInvitesOf revokes the usable invitations (e-mail and multi-use)
// user sent, as Zulip's deactivation does.
func revokeInvitesOf(ctx context.Context, tx chatcore.Tx, u *chatcore.User) error {
	invs, err := tx.Invites(ctx, chatcore.InviteFilter{RealmID: u.RealmID, InviterID: u.ID, Status: new(chatcore.InviteActive)})
	if err != nil {
		return err
	}
	for i := range invs {
		invs[i].Status = chatcore.InviteRevoked
		if err := tx.UpdateInvite(ctx, &invs[i]); err != nil {
			return err
		}
	}
	return nil
}
