package accounts

// Reading users: GET /users, /users/{user_id}, /users/{email} and /users/me.

import (
	"context"
	"errors"
	"strings"

	"github.com/chatcore/chatcore"
)

// UsersRequest holds the parameters of GET /users, /users/{user_id} and
// /users/{email}.
type UsersRequest struct {
	// UserIDs, when non-nil, keeps only these users (GET /users only):
	// ids of no user of the realm are left out, as in Zulip. More than
	// [chatcore.MaxUserIDs] ids are refused before any store access.
	UserIDs *[]chatcore.UserID `json:"user_ids"`
	// IncludeCustomProfileFields adds profile_data to the views of users
	// (not bots).
	IncludeCustomProfileFields *bool `json:"include_custom_profile_fields"`
}

// withProfileData reports whether the views carry profile_data.
func (r UsersRequest) withProfileData() bool {
	return r.IncludeCustomProfileFields != nil && *r.IncludeCustomProfileFields
}

// Me returns the acting user's own view, as GET /users/me shows it: with
// profile_data (for a user, not a bot) and max_message_id, the newest message
// the actor received (-1 when there is none; see
// [chatcore.MaxReadableMessageID]). A missing or
// deactivated actor gives an [chatcore.Unauthorized] error.
func Me(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) (chatcore.UserView, error) {
	var v chatcore.UserView
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		v = svc.ViewUser(a, a, true)
		maxID, err := chatcore.MaxReadableMessageID(ctx, tx, a)
		if err != nil {
			return err
		}
		if maxID == 0 {
			maxID = -1
		}
		v.MaxMessageID = &maxID
		return nil
	})
	return v, err
}

// User returns the view of the user or bot id of the actor's realm;
// deactivated users and bots are included. An unknown id, or one of another
// realm, gives BAD_REQUEST "No such user"; a missing or deactivated actor an
// [chatcore.Unauthorized] error.
func User(ctx context.Context, svc *chatcore.Service, actorID, id chatcore.UserID) (chatcore.UserView, error) {
	return UserWith(ctx, svc, actorID, id, UsersRequest{})
}

// UserWith is [User] with the parameters of GET /users/{user_id}
// (req.UserIDs is not read).
func UserWith(ctx context.Context, svc *chatcore.Service, actorID, id chatcore.UserID, req UsersRequest) (chatcore.UserView, error) {
	var v chatcore.UserView
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		u, err := chatcore.UserInRealm(ctx, tx, a.RealmID, id)
		if errors.Is(err, chatcore.ErrNotFound) {
			return chatcore.BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		v = svc.ViewUser(a, u, req.withProfileData())
		return nil
	})
	return v, err
}

// UserByEmail returns the view of the user or bot of the actor's realm with
// the e-mail, as Zulip's GET /users/{email} finds it: a stand-in address of
// the form user<ID>@<domain> (the "email" of a user who hides the real one)
// names the user with that id; any other address is compared
// case-insensitively with real addresses, but only those of users whose
// email_address_visibility lets the actor see them (bots always do), so the
// lookup tells nothing about hidden addresses. Deactivated users and bots are
// included (req.UserIDs is not read).
//
// Errors: BAD_REQUEST "No such user" when no visible address matches or the
// id of a stand-in address is no user of the realm; UNAUTHORIZED for a
// missing or deactivated actor.
func UserByEmail(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, email string, req UsersRequest) (chatcore.UserView, error) {
	email = strings.TrimSpace(email)
	if id, ok := svc.StandInUserID(email); ok {
		return UserWith(ctx, svc, actorID, id, req)
	}
	var v chatcore.UserView
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		u, err := tx.UserByEmail(ctx, a.RealmID, email)
		if errors.Is(err, chatcore.ErrNotFound) || err == nil && !emailLookupAllowed(a, u) {
			return chatcore.BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		v = svc.ViewUser(a, u, req.withProfileData())
		return nil
	})
	return v, err
}

// emailLookupAllowed reports whether viewer may find target by its real
// address. Zulip filters by the visibility values the viewer's role may see,
// without the exception for the viewer's own address.
func emailLookupAllowed(viewer, target *chatcore.User) bool {
	return target.IsBot || chatcore.RoleSeesEmail(viewer.Role, target.Settings.EmailAddressVisibility)
}

// Users returns the views of every user and bot of the actor's realm, active
// or not, ordered by id. A missing or deactivated actor gives an
// [chatcore.Unauthorized] error.
func Users(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) ([]chatcore.UserView, error) {
	return ListUsers(ctx, svc, actorID, UsersRequest{})
}

// ListUsers is [Users] with the parameters of GET /users: with
// req.UserIDs, only those users (ids that name no user of the realm are left
// out, as in Zulip). Errors: BAD_REQUEST "user_ids is too long (limit: N
// items)" for more than [chatcore.MaxUserIDs] ids, before any store access;
// UNAUTHORIZED for a missing or deactivated actor.
func ListUsers(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req UsersRequest) ([]chatcore.UserView, error) {
	var only map[chatcore.UserID]bool
	if req.UserIDs != nil {
		if len(*req.UserIDs) > chatcore.MaxUserIDs {
			return nil, chatcore.TooLongError("user_ids", chatcore.MaxUserIDs)
		}
		only = make(map[chatcore.UserID]bool, len(*req.UserIDs))
		for _, id := range *req.UserIDs {
			only[id] = true
		}
	}
	var vs []chatcore.UserView
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if only != nil {
			// One query for the named ids of the realm, in id order.
			ids := make([]chatcore.UserID, 0, len(only))
			for id := range only {
				ids = append(ids, id)
			}
			users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: a.RealmID, IDs: ids, Profile: true})
			if err != nil {
				return err
			}
			vs = make([]chatcore.UserView, 0, len(users))
			for i := range users {
				vs = append(vs, svc.ViewUser(a, &users[i], req.withProfileData()))
			}
			return nil
		}
		us, err := tx.Users(ctx, chatcore.UserFilter{RealmID: a.RealmID, Profile: true})
		if err != nil {
			return err
		}
		vs = make([]chatcore.UserView, len(us))
		for i := range us {
			vs[i] = svc.ViewUser(a, &us[i], req.withProfileData())
		}
		return nil
	})
	return vs, err
}
