package people

import (
	"context"

	"github.com/chatcore/chatcore"
)

// BotsState is the realm_bots section of POST /register, read in the
// caller's transaction: the active bots viewer administers (every active
// bot of the realm for an administrator, the viewer's own otherwise), by
// id, as GET /bots and realm_bot events show them (without API keys:
// chatcore keeps only their hashes). Never nil.
func BotsState(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, viewer *chatcore.User) ([]BotView, error) {
	f := chatcore.UserFilter{RealmID: viewer.RealmID, Bot: new(true), Active: new(true)}
	if !viewer.Role.IsAdmin() {
		f.BotOwnerID = viewer.ID
	}
	bots, err := tx.Users(ctx, f)
	if err != nil {
		return nil, err
	}
	out := make([]BotView, 0, len(bots))
	for i := range bots {
		services, err := tx.BotServices(ctx, bots[i].ID)
		if err != nil {
			return nil, err
		}
		out = append(out, botInfo(svc, &bots[i], services))
	}
	return out, nil
}
