package channels

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// Default channels: POST and DELETE /default_streams and the
// default_streams section of POST /register.

// SetDefault makes a channel of the actor's realm a default channel (on;
// POST /default_streams) or not (DELETE /default_streams). Only
// administrators may. Errors: "Must be an organization administrator";
// "Invalid channel ID"; "Private channels cannot be made default.";
// "Channel is archived.". Publishes default_streams with the realm's
// default channels to its active users but guests.
func SetDefault(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.StreamID, on bool) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, st, err := actorAndChannel(ctx, tx, actorID, id)
		if err != nil {
			return err
		}
		if err := chatcore.Authorize(u, chatcore.AccessAdmin); err != nil {
			return err
		}
		if on && st.InviteOnly {
			return chatcore.BadRequest("Private channels cannot be made default.")
		}
		if on && st.IsArchived {
			return chatcore.BadRequest("Channel is archived.")
		}
		if err := tx.SetDefaultStream(ctx, u.RealmID, st.ID, on); err != nil {
			return err
		}
		return publishDefaults(ctx, tx, fx, u.RealmID)
	})
}

// publishDefaults publishes default_streams with the realm's default
// channels (by id, as Zulip's event) to its active users but guests.
func publishDefaults(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, realm chatcore.RealmID) error {
	ids, err := tx.DefaultStreams(ctx, realm)
	if err != nil {
		return err
	}
	active := true
	users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm, Active: &active})
	if err != nil {
		return err
	}
	var audience []chatcore.UserID
	for _, v := range users {
		if v.Role != chatcore.RoleGuest {
			audience = append(audience, v.ID)
		}
	}
	fx.Event(realm, audience, map[string]any{"type": "default_streams", "default_streams": slicex.OrEmpty(ids)})
	return nil
}

// dropDefault makes st no longer a default channel when it is one (an
// archived channel cannot stay one), publishing the change.
func dropDefault(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, st *chatcore.Stream) error {
	ids, err := tx.DefaultStreams(ctx, st.RealmID)
	if err != nil || !slices.Contains(ids, st.ID) {
		return err
	}
	if err := tx.SetDefaultStream(ctx, st.RealmID, st.ID, false); err != nil {
		return err
	}
	return publishDefaults(ctx, tx, fx, st.RealmID)
}
