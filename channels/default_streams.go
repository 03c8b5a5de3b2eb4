package channels

import (
	"context"

	"github.com/chatcore/chatcore"
)

// Default channels: POST and DELETE /default_streams and the
// default_streams section of POST /register.

// DefaultViews returns the realm's default channels as the default_streams
// section shows them, as tx sees them.
func DefaultViews(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, realm chatcore.RealmID) ([]View, error) {
	ids, err := tx.DefaultStreams(ctx, realm)
	if err != nil {
		return nil, err
	}
	out := []View{}
	for _, id := range ids {
		st, err := chatcore.StreamInRealm(ctx, tx, realm, id)
		if err != nil {
			return nil, err
		}
		subs, err := tx.ActiveSubscriberIDs(ctx, id)
		if err != nil {
			return nil, err
		}
		v, err := channelView(ctx, svc, tx, st, len(subs), nil)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

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
		views, err := DefaultViews(ctx, svc, tx, u.RealmID)
		if err != nil {
			return err
		}
		active := true
		users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, Active: &active})
		if err != nil {
			return err
		}
		var audience []chatcore.UserID
		for _, v := range users {
			if v.Role != chatcore.RoleGuest {
				audience = append(audience, v.ID)
			}
		}
		ids := make([]chatcore.StreamID, len(views))
		for i, v := range views {
			ids[i] = v.StreamID
		}
		// Zulip's default_streams event names the channels by id.
		fx.Event(u.RealmID, audience, map[string]any{"type": "default_streams", "default_streams": ids})
		return nil
	})
}
