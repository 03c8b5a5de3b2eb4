package chatcore

import (
	"context"
	"crypto/md5"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/internal/isotime"
)

// Authenticate checks the credentials of an API request (HTTP Basic auth:
// e-mail and API key) and returns the user or bot they belong to. Surrounding
// whitespace is ignored. Every refusal is an [Unauthorized] error (code
// UNAUTHORIZED, [KindUnauthenticated]) with Zulip's message:
//   - "Malformed API key": the key is not 32 ASCII letters and digits;
//   - "Invalid API key": no user has the key, or the key belongs to a user
//     whose e-mail differs from email (compared case-insensitively);
//   - "Account is deactivated": the user or bot is deactivated.
//
// Endpoint-specific refusals (incoming-webhook bots on normal endpoints,
// human-only endpoints) are the caller's to make. Other errors are store
// failures.
func (s *Service) Authenticate(ctx context.Context, email, apiKey string) (*User, error) {
	email = strings.TrimSpace(email)
	apiKey = strings.TrimSpace(apiKey)
	if !looksLikeAPIKey(apiKey) {
		return nil, Unauthorized("Malformed API key")
	}
	hash := HashAPIKey(apiKey)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var u *User
	// One indexed lookup: nothing worth interrupting, and a context that
	// cannot be cancelled spares the store watching it. A single read needs
	// no transaction around it.
	err := s.viewSingle(context.WithoutCancel(ctx), func(tx Tx) error {
		var err error
		u, err = tx.UserByAPIKeyHash(ctx, hash)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return nil, Unauthorized("Invalid API key")
	}
	if err != nil {
		return nil, err
	}
	if subtle.ConstantTimeCompare([]byte(u.APIKeyHash), []byte(hash)) != 1 {
		return nil, Unauthorized("Invalid API key")
	}
	if FoldKey(email) != FoldKey(u.Email) {
		return nil, Unauthorized("Invalid API key")
	}
	if !u.IsActive {
		return nil, Unauthorized("Account is deactivated")
	}
	return u, nil
}

// ValidAPIKey reports whether key has the form of a Zulip API key, exactly
// 32 ASCII letters and digits, as [Service.Authenticate] requires.
func ValidAPIKey(key string) bool { return looksLikeAPIKey(key) }

// looksLikeAPIKey reports whether key looks like a Zulip API key: exactly 32
// ASCII letters and digits.
func looksLikeAPIKey(key string) bool {
	if len(key) != 32 {
		return false
	}
	for i := range len(key) {
		c := key[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// UserView is a user or bot as Zulip's user endpoints show it (GET /users,
// /users/{id}, /users/me). BotType and BotOwnerID are set for bots only.
// DeliveryEmail is nil when the viewer may not see the real address (the
// target's email_address_visibility setting); Email is then a stand-in
// address of the form user<ID>@<domain>, as in Zulip.
type UserView struct {
	UserID        UserID   `json:"user_id"`
	Email         string   `json:"email"`
	DeliveryEmail *string  `json:"delivery_email"`
	FullName      string   `json:"full_name"`
	Role          Role     `json:"role"`
	IsAdmin       bool     `json:"is_admin"`
	IsOwner       bool     `json:"is_owner"`
	IsGuest       bool     `json:"is_guest"`
	IsBot         bool     `json:"is_bot"`
	IsActive      bool     `json:"is_active"`
	Timezone      string   `json:"timezone"`
	AvatarURL     string   `json:"avatar_url"`
	DateJoined    string   `json:"date_joined"`
	BotType       *BotType `json:"bot_type,omitempty"`
	BotOwnerID    *UserID  `json:"bot_owner_id,omitempty"`
	// AvatarVersion counts the user's avatar changes, from 1 as in Zulip;
	// deleting the profile (delete_profile) is one change.
	AvatarVersion int `json:"avatar_version"`
	// IsImportedStub is always false: chatcore imports no accounts.
	IsImportedStub bool `json:"is_imported_stub"`
	// ProfileData holds the user's custom profile field values, keyed by
	// field id. Custom profile fields are not modelled, so it is empty; it
	// is nil (absent) for bots and when the request did not ask for the
	// fields, as in Zulip.
	ProfileData map[string]ProfileFieldValue `json:"profile_data,omitzero"`
	// MaxMessageID is set on the acting user's own view ([Service.Me]) only:
	// the id of the newest message the user can read, or -1 when there is
	// none.
	MaxMessageID *MessageID `json:"max_message_id,omitempty"`
}

// ProfileFieldValue is the value of one custom profile field, as Zulip
// shows it in profile_data.
type ProfileFieldValue struct {
	Value         string `json:"value"`
	RenderedValue string `json:"rendered_value,omitempty"`
}

// UsersRequest holds the parameters of GET /users, /users/{user_id} and
// /users/{email}.
type UsersRequest struct {
	// UserIDs, when non-nil, keeps only these users (GET /users only):
	// ids of no user of the realm are left out, as in Zulip. More than
	// [MaxUserIDs] ids are refused before any store access.
	UserIDs *[]UserID `json:"user_ids"`
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
// the actor can read without a narrow (-1 when there is none). A missing or
// deactivated actor gives an [Unauthorized] error.
func (s *Service) Me(ctx context.Context, actorID UserID) (UserView, error) {
	var v UserView
	err := s.View(ctx, func(tx Tx) error {
		a, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		v = s.ViewUser(a, a, true)
		maxID, err := MaxReadableMessageID(ctx, tx, a)
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
// [Unauthorized] error.
func (s *Service) User(ctx context.Context, actorID, id UserID) (UserView, error) {
	return s.UserWith(ctx, actorID, id, UsersRequest{})
}

// UserWith is [Service.User] with the parameters of GET /users/{user_id}
// (req.UserIDs is not read).
func (s *Service) UserWith(ctx context.Context, actorID, id UserID, req UsersRequest) (UserView, error) {
	var v UserView
	err := s.View(ctx, func(tx Tx) error {
		a, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		u, err := UserInRealm(ctx, tx, a.RealmID, id)
		if errors.Is(err, ErrNotFound) {
			return BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		v = s.ViewUser(a, u, req.withProfileData())
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
func (s *Service) UserByEmail(ctx context.Context, actorID UserID, email string, req UsersRequest) (UserView, error) {
	email = strings.TrimSpace(email)
	if id, ok := s.standInUserID(email); ok {
		return s.UserWith(ctx, actorID, id, req)
	}
	var v UserView
	err := s.View(ctx, func(tx Tx) error {
		a, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		u, err := tx.UserByEmail(ctx, a.RealmID, email)
		if errors.Is(err, ErrNotFound) || err == nil && !emailLookupAllowed(a, u) {
			return BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		v = s.ViewUser(a, u, req.withProfileData())
		return nil
	})
	return v, err
}

// standInUserID parses a stand-in address user<ID>@<domain> of this server
// (see [Service.APIEmail]) and returns the id.
func (s *Service) standInUserID(email string) (UserID, bool) {
	local, domain, ok := strings.Cut(email, "@")
	digits, ok2 := strings.CutPrefix(local, "user")
	if !ok || !ok2 || !strings.EqualFold(domain, s.fakeEmailDomain()) {
		return 0, false
	}
	id, ok := parseDecimal(digits)
	return UserID(id), ok
}

// parseDecimal parses one or more ASCII digits that fit an int64.
func parseDecimal(s string) (int64, bool) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// emailLookupAllowed reports whether viewer may find target by its real
// address. Zulip filters by the visibility values the viewer's role may see,
// without the exception for the viewer's own address.
func emailLookupAllowed(viewer, target *User) bool {
	return target.IsBot || roleSeesEmail(viewer.Role, target.Settings.EmailAddressVisibility)
}

// Users returns the views of every user and bot of the actor's realm, active
// or not, ordered by id. A missing or deactivated actor gives an
// [Unauthorized] error.
func (s *Service) Users(ctx context.Context, actorID UserID) ([]UserView, error) {
	return s.ListUsers(ctx, actorID, UsersRequest{})
}

// ListUsers is [Service.Users] with the parameters of GET /users: with
// req.UserIDs, only those users (ids that name no user of the realm are left
// out, as in Zulip). Errors: BAD_REQUEST "user_ids is too long (limit: N
// items)" for more than [MaxUserIDs] ids, before any store access;
// UNAUTHORIZED for a missing or deactivated actor.
func (s *Service) ListUsers(ctx context.Context, actorID UserID, req UsersRequest) ([]UserView, error) {
	var only map[UserID]bool
	if req.UserIDs != nil {
		if len(*req.UserIDs) > MaxUserIDs {
			return nil, TooLongError("user_ids", MaxUserIDs)
		}
		only = make(map[UserID]bool, len(*req.UserIDs))
		for _, id := range *req.UserIDs {
			only[id] = true
		}
	}
	var vs []UserView
	err := s.View(ctx, func(tx Tx) error {
		a, err := Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if only != nil {
			// One query for the named ids of the realm, in id order.
			ids := make([]UserID, 0, len(only))
			for id := range only {
				ids = append(ids, id)
			}
			users, err := tx.Users(ctx, UserFilter{RealmID: a.RealmID, IDs: ids})
			if err != nil {
				return err
			}
			vs = make([]UserView, 0, len(users))
			for i := range users {
				vs = append(vs, s.ViewUser(a, &users[i], req.withProfileData()))
			}
			return nil
		}
		us, err := tx.Users(ctx, UserFilter{RealmID: a.RealmID})
		if err != nil {
			return err
		}
		vs = make([]UserView, len(us))
		for i := range us {
			vs[i] = s.ViewUser(a, &us[i], req.withProfileData())
		}
		return nil
	})
	return vs, err
}

// The values of the email_address_visibility setting.
const (
	emailVisibleEveryone   = 1
	emailVisibleMembers    = 2
	emailVisibleAdmins     = 3
	emailVisibleNobody     = 4
	emailVisibleModerators = 5
)

// ViewUser builds the view of u as viewer sees it; profile adds profile_data
// (to users, not bots).
func (s *Service) ViewUser(viewer, u *User, profile bool) UserView {
	v := UserView{
		AvatarVersion: 1,
		UserID:        u.ID,
		Email:         s.APIEmail(u),
		FullName:      u.FullName,
		Role:          u.Role,
		IsAdmin:       u.Role.IsAdmin(),
		IsOwner:       u.Role == RoleOwner,
		IsGuest:       u.Role == RoleGuest,
		IsBot:         u.IsBot,
		IsActive:      u.IsActive,
		Timezone:      u.Settings.Timezone,
		DateJoined:    isotime.Format(u.DateJoined),
	}
	v.AvatarURL = s.avatarURL(u.AvatarSource, v.Email)
	if canSeeDeliveryEmail(viewer, u) {
		v.DeliveryEmail = new(u.Email)
	}
	if u.AvatarSource == deletedAvatarSource {
		v.AvatarVersion++ // delete_profile changed the avatar once
	}
	if u.IsBot {
		v.BotType = new(u.BotType)
		if u.BotOwnerID != 0 {
			v.BotOwnerID = new(u.BotOwnerID)
		}
	} else if profile {
		v.ProfileData = map[string]ProfileFieldValue{}
	}
	return v
}

// APIEmail is the address Zulip shows as "email": the real one when the user
// lets everyone see it (and always for bots), a stand-in otherwise.
func (s *Service) APIEmail(u *User) string {
	if u.IsBot || u.Settings.EmailAddressVisibility == emailVisibleEveryone {
		return u.Email
	}
	return fmt.Sprintf("user%d@%s", u.ID, s.fakeEmailDomain())
}

// fakeEmailDomain is the domain of stand-in addresses: the host of the
// external URL when it is a domain name, else "chatcore.invalid".
func (s *Service) fakeEmailDomain() string {
	u, err := url.Parse(s.externalURL)
	if err == nil {
		h := u.Hostname()
		if h != "" && strings.Contains(h, ".") && net.ParseIP(h) == nil {
			return h
		}
	}
	return "chatcore.invalid"
}

// canSeeDeliveryEmail applies the target's email_address_visibility to viewer.
func canSeeDeliveryEmail(viewer, target *User) bool {
	if viewer.ID == target.ID || target.IsBot {
		return true
	}
	return roleSeesEmail(viewer.Role, target.Settings.EmailAddressVisibility)
}

// roleSeesEmail reports whether a viewer of the role may see the real
// address of a user with the email_address_visibility value.
func roleSeesEmail(role Role, visibility int) bool {
	switch visibility {
	case emailVisibleEveryone:
		return true
	case emailVisibleMembers:
		return role != RoleGuest
	case emailVisibleAdmins:
		return role.IsAdmin()
	case emailVisibleModerators:
		return role.IsAdmin() || role == RoleModerator
	}
	return false // emailVisibleNobody and unknown values
}

// deletedAvatarSource is the AvatarSource of a profile removed by
// delete_profile.
const deletedAvatarSource = "D"

// avatarURL returns the avatar URL for an avatar source and API e-mail: the
// gravatar identicon of the address, or the default avatar once the profile
// was deleted.
func (s *Service) avatarURL(source, email string) string {
	if source == deletedAvatarSource {
		return strings.TrimSuffix(s.externalURL, "/") + "/static/images/default-avatar.png"
	}
	sum := md5.Sum([]byte(strings.ToLower(email)))
	return "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) + "?d=identicon&version=1"
}
