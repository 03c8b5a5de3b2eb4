package people

import (
	"context"
	"errors"
	"strings"

	"github.com/chatcore/chatcore"
)

// CreateUserRequest holds the parameters of POST /users.
type CreateUserRequest struct {
	Email    *string `json:"email" wire:"required"`
	Password *string `json:"password" wire:"required"`
	FullName *string `json:"full_name" wire:"required"`
}

// errNoCreateUsers is Zulip's refusal of POST /users to administrators
// without the can_create_users permission.
func errNoCreateUsers() *chatcore.Error {
	return chatcore.BadRequest("User not authorized to create users")
}

// CreateUser creates an account with a password in the actor's realm, as
// POST /users, and returns the new user's id. As in Zulip, the actor must
// be an administrator ("Must be an organization administrator") holding
// the can_create_users permission (User.CanCreateUsers, which the server's
// operator grants; fixtures set it). The account is a member with the
// realm's defaults for new accounts, subscribed to the realm's default
// channels; realm_user add events go to the realm. Errors (BAD_REQUEST):
// "User not authorized to create users", the name refusals, "Bad name or
// username", "Email 'X' already in use", "The password is too weak.".
func CreateUser(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req CreateUserRequest) (chatcore.UserID, error) {
	check := func(tx chatcore.Tx) (*chatcore.User, error) {
		a, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		if err != nil {
			return nil, err
		}
		if !a.CanCreateUsers {
			return nil, errNoCreateUsers()
		}
		return a, nil
	}
	if err := svc.View(ctx, func(tx chatcore.Tx) error { _, err := check(tx); return err }); err != nil {
		return 0, err
	}
	if req.Email == nil || req.Password == nil || req.FullName == nil {
		return 0, errors.New("chatcore: CreateUser needs email, password and full_name")
	}
	if err := CheckBounds(*req.FullName, *req.Email); err != nil {
		return 0, err
	}
	if err := checkPassword(svc, *req.Password); err != nil {
		return 0, err
	}
	hash, err := svc.HashPassword(ctx, *req.Password)
	if err != nil {
		return 0, err
	}
	var id chatcore.UserID
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := check(tx)
		if err != nil {
			return err
		}
		u, _, err := CreateAccountInTx(ctx, svc, tx, fx, NewAccount{
			RealmID: a.RealmID, Email: *req.Email, FullName: *req.FullName, PasswordHash: hash,
			Role: chatcore.RoleMember, DefaultStreams: true, ActorID: a.ID,
		})
		if err != nil {
			return err
		}
		id = u.ID
		return nil
	})
	return id, err
}

// UpdateUserRequest holds the parameters of PATCH /users/{user_id}.
type UpdateUserRequest struct {
	FullName *string        `json:"full_name"`
	Role     *chatcore.Role `json:"role"`
	// ProfileData sets custom profile fields. chatcore has none: any entry
	// names a field that does not exist.
	ProfileData []ProfileDataEntry `json:"profile_data"`
}

// ProfileDataEntry is one item of profile_data.
type ProfileDataEntry struct {
	ID    int64 `json:"id"`
	Value any   `json:"value"`
}

// MaxProfileDataEntries bounds profile_data.
const MaxProfileDataEntries = 1000

// validRole reports whether r is one of Zulip's roles.
func validRole(r chatcore.Role) bool {
	switch r {
	case chatcore.RoleOwner, chatcore.RoleAdministrator, chatcore.RoleModerator, chatcore.RoleMember, chatcore.RoleGuest:
		return true
	}
	return false
}

// targetForAdmin loads a user (or bot) of a's realm for an administrator's
// change, as Zulip's access_user_by_id(for_admin=True): BAD_REQUEST "No
// such user" for a missing one or one of another realm, "Insufficient
// permission" when a may not administer it (an administrator may any; the
// owner of a bot may the bot).
func targetForAdmin(ctx context.Context, tx chatcore.Tx, a *chatcore.User, id chatcore.UserID, allowDeactivated bool) (*chatcore.User, error) {
	t, err := chatcore.UserInRealm(ctx, tx, a.RealmID, id)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, chatcore.BadRequest("No such user")
	}
	if err != nil {
		return nil, err
	}
	if !t.IsActive && !allowDeactivated {
		return nil, chatcore.BadRequest("User is deactivated")
	}
	if !canAdminUser(a, t) {
		return nil, chatcore.BadRequest("Insufficient permission")
	}
	return t, nil
}

// canAdminUser is Zulip's can_admin_user: administrators administer
// everyone, a bot's owner their bot.
func canAdminUser(a, t *chatcore.User) bool {
	return a.Role.IsAdmin() || (t.IsBot && t.BotOwnerID == a.ID)
}

// lastOwner reports whether u is the realm's only active human owner.
func lastOwner(ctx context.Context, tx chatcore.Tx, u *chatcore.User) (bool, error) {
	if u.Role != chatcore.RoleOwner {
		return false, nil
	}
	owners, err := tx.Users(ctx, chatcore.UserFilter{RealmID: u.RealmID, Roles: []chatcore.Role{chatcore.RoleOwner}, Active: new(true), Bot: new(false)})
	if err != nil {
		return false, err
	}
	return len(owners) <= 1, nil
}

// UpdateUser changes another user's full name and role, as an
// administrator's PATCH /users/{user_id}. Rules, in Zulip's order: the
// actor must be an administrator (UNAUTHORIZED_PRINCIPAL "Must be an
// organization administrator", checked by the route before parameters);
// BAD_REQUEST "Invalid role" for a role Zulip does not have; "No such user"
// for a missing id or one of another realm; only owners grant or take away
// the owner role (UNAUTHORIZED_PRINCIPAL "Must be an organization owner");
// the realm's only owner keeps it ("The owner permission cannot be removed
// from the only organization owner."); the name follows Zulip's rules
// (administrators are not bound by name_changes_disabled) and an empty one
// is ignored; profile_data names custom profile fields, which chatcore
// does not have: any entry gives "Field id N not found.". Events:
// realm_user update role / full_name to the realm (and realm_bot update to
// a bot's owner).
func UpdateUser(ctx context.Context, svc *chatcore.Service, actorID, targetID chatcore.UserID, req UpdateUserRequest) error {
	if req.Role != nil && !validRole(*req.Role) {
		return chatcore.BadRequest("Invalid role")
	}
	if len(req.ProfileData) > MaxProfileDataEntries {
		return chatcore.TooLongError("profile_data", MaxProfileDataEntries)
	}
	if req.FullName != nil {
		if err := CheckBounds(*req.FullName, ""); err != nil {
			return err
		}
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if !a.Role.IsAdmin() {
			return chatcore.ErrMustBeAdmin()
		}
		t, err := targetForAdmin(ctx, tx, a, targetID, true)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, t.RealmID)
		if err != nil {
			return err
		}
		changed := false
		var events []map[string]any
		if req.Role != nil && *req.Role != t.Role {
			if (*req.Role == chatcore.RoleOwner || t.Role == chatcore.RoleOwner) && a.Role != chatcore.RoleOwner {
				return chatcore.ErrMustBeOwner()
			}
			last, err := lastOwner(ctx, tx, t)
			if err != nil {
				return err
			}
			if last && t.IsActive {
				return chatcore.BadRequest("The owner permission cannot be removed from the only organization owner.")
			}
			t.Role = *req.Role
			changed = true
			events = append(events, map[string]any{"role": t.Role})
		}
		if req.FullName != nil && *req.FullName != t.FullName && trimmed(*req.FullName) != "" {
			name, err := checkNewName(ctx, tx, realm, *req.FullName, t.ID)
			if err != nil {
				return err
			}
			if name != t.FullName {
				t.FullName, t.FullNameKey = name, chatcore.FoldKey(name)
				changed = true
				events = append(events, map[string]any{"full_name": name})
			}
		}
		if len(req.ProfileData) > 0 {
			return chatcore.BadRequestf("Field id %d not found.", req.ProfileData[0].ID)
		}
		if !changed {
			return nil
		}
		if err := tx.UpdateUser(ctx, t); err != nil {
			return err
		}
		for _, fields := range events {
			if err := userUpdateEvent(ctx, tx, fx, t, fields); err != nil {
				return err
			}
			if t.IsBot {
				if err := botUpdateEvent(ctx, tx, fx, t, fields); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// ReactivateUser reactivates a deactivated user or bot of the actor's
// realm, as POST /users/{user_id}/reactivate. Errors: UNAUTHORIZED_PRINCIPAL
// "Must be an organization administrator" (the route checks it first);
// BAD_REQUEST "No such user"; "User is already active"; for a bot whose
// owner is deactivated, "Cannot reactivate a bot whose owner is
// deactivated.". The user's subscriptions stay inactive (chatcore does not
// keep which of them the deactivation ended). Events: realm_user update
// is_active true to the realm, realm_bot update to a bot's owner.
func ReactivateUser(ctx context.Context, svc *chatcore.Service, actorID, targetID chatcore.UserID) error {
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if !a.Role.IsAdmin() {
			return chatcore.ErrMustBeAdmin()
		}
		t, err := targetForAdmin(ctx, tx, a, targetID, true)
		if err != nil {
			return err
		}
		if t.IsActive {
			return chatcore.BadRequest("User is already active")
		}
		if t.IsBot && t.BotOwnerID != 0 {
			owner, err := tx.User(ctx, t.BotOwnerID)
			if err != nil && !errors.Is(err, chatcore.ErrNotFound) {
				return err
			}
			if err != nil || !owner.IsActive {
				return chatcore.BadRequest("Cannot reactivate a bot whose owner is deactivated.")
			}
		}
		t.IsActive = true
		if err := tx.UpdateUser(ctx, t); err != nil {
			return err
		}
		if err := userUpdateEvent(ctx, tx, fx, t, map[string]any{"is_active": true}); err != nil {
			return err
		}
		if t.IsBot {
			return botUpdateEvent(ctx, tx, fx, t, map[string]any{"is_active": true})
		}
		return nil
	})
}

// SubscriptionStatus answers GET /users/{user_id}/subscriptions/{stream_id}:
// whether the user has an active subscription to the channel. Errors
// (BAD_REQUEST): "No such user" for a missing user or one of another realm
// (deactivated users too, as Zulip's access_user_by_id); "Invalid channel
// ID" for a channel the actor cannot access (administrators access every
// channel of the realm).
func SubscriptionStatus(ctx context.Context, svc *chatcore.Service, actorID, userID chatcore.UserID, streamID chatcore.StreamID) (bool, error) {
	var subscribed bool
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		a, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		t, err := chatcore.UserInRealm(ctx, tx, a.RealmID, userID)
		if errors.Is(err, chatcore.ErrNotFound) || err == nil && !t.IsActive {
			return chatcore.BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		st, err := chatcore.StreamInRealm(ctx, tx, a.RealmID, streamID)
		if errors.Is(err, chatcore.ErrNotFound) {
			return chatcore.BadRequest("Invalid channel ID")
		}
		if err != nil {
			return err
		}
		if !a.Role.IsAdmin() {
			acc, err := chatcore.StreamAccessFor(ctx, tx, a, st)
			if err != nil {
				return err
			}
			if !acc.OK {
				return chatcore.BadRequest("Invalid channel ID")
			}
		}
		subscribed, err = chatcore.IsSubscribed(ctx, tx, st.ID, t.ID)
		return err
	})
	return subscribed, err
}

// RegenerateAPIKey gives the human actor a new API key, as POST
// /users/me/api_key/regenerate, and returns it: the old one stops working
// at once. Bots get BAD_REQUEST "This endpoint does not accept bot
// requests." (they go through POST /bots/{id}/api_key/regenerate). The
// keys password logins issued (POST /fetch_api_key) stop working too, as
// every client of Zulip's single key does.
func RegenerateAPIKey(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID) (string, error) {
	key, err := NewAPIKey()
	if err != nil {
		return "", err
	}
	err = svc.Update(ctx, func(tx chatcore.Tx, _ *chatcore.Effects) error {
		a, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessHuman)
		if err != nil {
			return err
		}
		a.APIKeyHash = chatcore.HashAPIKey(key)
		if err := tx.UpdateUser(ctx, a); err != nil {
			return err
		}
		_, err = tx.TrimLoginKeys(ctx, a.ID, 0)
		return err
	})
	if err != nil {
		return "", err
	}
	return key, nil
}

// trimmed is s without surrounding white space.
func trimmed(s string) string { return strings.TrimSpace(s) }
