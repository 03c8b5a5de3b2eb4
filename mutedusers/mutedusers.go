// Package mutedusers applies Zulip's rules for muting users: POST and
// DELETE /users/me/muted_users/{muted_user_id}, and the muted_users
// section of POST /register.
package mutedusers

import (
	"context"
	"errors"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
	"github.com/chatcore/chatcore/store"
)

// MaxMarkedRead bounds the unread messages of the muted user that muting
// marks read (the newest ones), as unread_msgs bounds what it reports.
const MaxMarkedRead = 50000

// View is one entry of the muted_users section and event: the muted user's
// id and when they were muted (unix seconds).
type View struct {
	ID        chatcore.UserID `json:"id"`
	Timestamp int64           `json:"timestamp"`
}

// Views returns the users u muted, by id, as muted_users shows them.
func Views(ctx context.Context, tx chatcore.Tx, u chatcore.UserID) ([]View, error) {
	ms, err := tx.MutedUsers(ctx, u)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(ms))
	for i, m := range ms {
		out[i] = View{ID: m.MutedUserID, Timestamp: m.DateMuted.Unix()}
	}
	return out, nil
}

// Mute mutes a user for the actor, as Zulip's do_mute_user: the muted
// user's messages the actor has not read become read (an
// "update_message_flags" event tells the actor), and later ones arrive
// read; the actor gets a "muted_users" event with their whole list.
//
// Errors (BAD_REQUEST): "Cannot mute self"; "No such user" for a user
// (bots and deactivated users included) not in the actor's realm; "User
// already muted".
func Mute(ctx context.Context, svc *chatcore.Service, actorID, mutedID chatcore.UserID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if mutedID == u.ID {
			return chatcore.BadRequest("Cannot mute self")
		}
		if err := target(ctx, tx, u, mutedID); err != nil {
			return err
		}
		err = tx.AddMutedUser(ctx, store.MutedUser{UserID: u.ID, MutedUserID: mutedID, DateMuted: svc.Now().UTC()})
		if errors.Is(err, chatcore.ErrConflict) {
			return chatcore.BadRequest("User already muted")
		}
		if err != nil {
			return err
		}
		ids, err := tx.MessageIDs(ctx, chatcore.MessageQuery{RealmID: u.RealmID, FlagUser: u.ID, NoFlags: chatcore.FlagRead,
			SenderID: mutedID, Newest: true, Limit: MaxMarkedRead})
		if err != nil {
			return err
		}
		if len(ids) > 0 {
			changed, err := tx.UpdateUserMessageFlags(ctx, u.ID, ids, chatcore.FlagRead, true)
			if err != nil {
				return err
			}
			if len(changed) > 0 {
				fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "update_message_flags", "op": "add",
					"operation": "add", "flag": "read", "messages": changed, "all": false})
			}
		}
		return mutedEvent(ctx, tx, fx, u)
	})
}

// Unmute unmutes a user for the actor, as Zulip's do_unmute_user (messages
// stay as they are); the actor gets a "muted_users" event.
//
// Errors (BAD_REQUEST): "No such user" as for [Mute]; "User is not muted".
func Unmute(ctx context.Context, svc *chatcore.Service, actorID, mutedID chatcore.UserID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if err := target(ctx, tx, u, mutedID); err != nil {
			return err
		}
		err = tx.RemoveMutedUser(ctx, u.ID, mutedID)
		if errors.Is(err, chatcore.ErrNotFound) {
			return chatcore.BadRequest("User is not muted")
		}
		if err != nil {
			return err
		}
		return mutedEvent(ctx, tx, fx, u)
	})
}

// target checks that id is a user of u's realm (Zulip's access_user_by_id
// with bots and deactivated users allowed).
func target(ctx context.Context, tx chatcore.Tx, u *chatcore.User, id chatcore.UserID) error {
	t, err := tx.User(ctx, id)
	if errors.Is(err, chatcore.ErrNotFound) || err == nil && t.RealmID != u.RealmID {
		return chatcore.BadRequest("No such user")
	}
	return err
}

// mutedEvent sends u the "muted_users" event with their whole list.
func mutedEvent(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User) error {
	views, err := Views(ctx, tx, u.ID)
	if err != nil {
		return err
	}
	fx.Event(u.RealmID, []chatcore.UserID{u.ID}, map[string]any{"type": "muted_users", "muted_users": slicex.OrEmpty(views)})
	return nil
}
