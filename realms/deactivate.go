package realms

import (
	"context"

	"github.com/chatcore/chatcore"
)

// Deactivate deactivates the actor's realm (POST /realm/deactivate). Only
// an owner may (UNAUTHORIZED_PRINCIPAL "Must be an organization owner").
// In one transaction the realm is marked deactivated and a realm
// deactivated event (realm_id) goes to its active users; from then on
// every request of the realm's users and bots, GET /events included, is
// refused with [chatcore.ErrRealmDeactivated], as are password logins
// (POST /fetch_api_key) and the realm's invitation links, so the realm's
// event queues end with that event. chatcore keeps the realm's data: it
// never deletes a deactivated realm.
func Deactivate(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if u.Role != chatcore.RoleOwner {
			return chatcore.ErrMustBeOwner()
		}
		r, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if r.Deactivated {
			return chatcore.ErrRealmDeactivated()
		}
		r.Deactivated = true
		if err := tx.UpdateRealm(ctx, r); err != nil {
			return err
		}
		audience, err := chatcore.ActiveUserIDs(ctx, tx, r.ID)
		if err != nil {
			return err
		}
		fx.Event(r.ID, audience, map[string]any{"type": "realm", "op": "deactivated", "realm_id": r.ID})
		return nil
	})
}
