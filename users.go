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
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
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
	var u *User
	err := s.view(ctx, func(tx Tx) error {
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
	err := s.view(ctx, func(tx Tx) error {
		a, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		v = s.userView(a, a, true)
		return nil
	})
	if err != nil {
		return v, err
	}
	newest, err := s.Messages(ctx, actorID, MessagesRequest{Anchor: new("newest"), NumBefore: new(1), NumAfter: new(0)})
	if err != nil {
		return v, err
	}
	maxID := MessageID(-1)
	if n := len(newest.Messages); n > 0 {
		maxID = newest.Messages[n-1].ID
	}
	v.MaxMessageID = &maxID
	return v, nil
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
	err := s.view(ctx, func(tx Tx) error {
		a, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		u, err := userInRealm(ctx, tx, a.RealmID, id)
		if errors.Is(err, ErrNotFound) {
			return BadRequest("No such user")
		}
		if err != nil {
			return err
		}
		v = s.userView(a, u, req.withProfileData())
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
	err := s.view(ctx, func(tx Tx) error {
		a, err := actor(ctx, tx, actorID)
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
		v = s.userView(a, u, req.withProfileData())
		return nil
	})
	return v, err
}

// standInUserID parses a stand-in address user<ID>@<domain> of this server
// (see [Service.apiEmail]) and returns the id.
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
			return nil, errTooLong("user_ids", MaxUserIDs)
		}
		only = make(map[UserID]bool, len(*req.UserIDs))
		for _, id := range *req.UserIDs {
			only[id] = true
		}
	}
	var vs []UserView
	err := s.view(ctx, func(tx Tx) error {
		a, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if only != nil {
			// Look the few ids up one by one rather than reading the realm.
			ids := make([]UserID, 0, len(only))
			for id := range only {
				ids = append(ids, id)
			}
			slices.Sort(ids)
			vs = make([]UserView, 0, len(ids))
			for _, id := range ids {
				u, err := userInRealm(ctx, tx, a.RealmID, id)
				if errors.Is(err, ErrNotFound) {
					continue
				}
				if err != nil {
					return err
				}
				vs = append(vs, s.userView(a, u, req.withProfileData()))
			}
			return nil
		}
		us, err := tx.Users(ctx, UserFilter{RealmID: a.RealmID})
		if err != nil {
			return err
		}
		vs = make([]UserView, len(us))
		for i := range us {
			vs[i] = s.userView(a, &us[i], req.withProfileData())
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

// userView builds the view of u as viewer sees it; profile adds profile_data
// (to users, not bots).
func (s *Service) userView(viewer, u *User, profile bool) UserView {
	v := UserView{
		AvatarVersion: 1,
		UserID:        u.ID,
		Email:         s.apiEmail(u),
		FullName:      u.FullName,
		Role:          u.Role,
		IsAdmin:       u.Role.IsAdmin(),
		IsOwner:       u.Role == RoleOwner,
		IsGuest:       u.Role == RoleGuest,
		IsBot:         u.IsBot,
		IsActive:      u.IsActive,
		Timezone:      u.Settings.Timezone,
		DateJoined:    zulipISOTime(u.DateJoined),
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

// apiEmail is the address Zulip shows as "email": the real one when the user
// lets everyone see it (and always for bots), a stand-in otherwise.
func (s *Service) apiEmail(u *User) string {
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

// zulipISOTime formats t as Python's datetime.isoformat does for a UTC time, which
// is how Zulip sends date_joined: microseconds only when non-zero.
func zulipISOTime(t time.Time) string {
	t = t.UTC()
	s := t.Format("2006-01-02T15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += fmt.Sprintf(".%06d", us)
	}
	return s + "+00:00"
}

// DeactivationActions are the optional clean-ups of a deactivation (Zulip
// feature level 459). They apply to the target's active bots first, then to
// the target.
type DeactivationActions struct {
	// DeleteProfile renames the user to "Deleted user" and drops the avatar.
	DeleteProfile bool `json:"delete_profile"`
	// DeletePublicChannelMessages deletes the messages the user sent to
	// channels that are not invite-only.
	DeletePublicChannelMessages bool `json:"delete_public_channel_messages"`
	// DeletePrivateChannelMessages deletes the messages the user sent to
	// invite-only channels.
	DeletePrivateChannelMessages bool `json:"delete_private_channel_messages"`
	// DeleteDirectMessages deletes the direct messages (1:1 and group) the
	// user sent.
	DeleteDirectMessages bool `json:"delete_direct_messages"`
}

// kinds returns the message kinds the actions delete; zero when none.
func (a *DeactivationActions) kinds() MessageKinds {
	var k MessageKinds
	if a == nil {
		return 0
	}
	if a.DeletePublicChannelMessages {
		k |= KindPublicChannel
	}
	if a.DeletePrivateChannelMessages {
		k |= KindPrivateChannel
	}
	if a.DeleteDirectMessages {
		k |= KindDirect
	}
	return k
}

// DeactivateUserRequest holds the parameters of DELETE /users/{user_id}.
type DeactivateUserRequest struct {
	// Actions are extra clean-ups; nil means none.
	Actions *DeactivationActions `json:"actions"`
	// DeactivationNotificationComment, when non-nil, makes the user receive a
	// notification e-mail; a non-empty (after trimming) comment is included
	// in it. At most 2000 characters.
	DeactivationNotificationComment *string `json:"deactivation_notification_comment"`
}

// maxDeactivationCommentLength is Zulip's limit on the notification comment,
// in characters.
const maxDeactivationCommentLength = 2000

// Validate checks the request on its own: a comment longer than 2000
// characters (after trimming surrounding whitespace) gives BAD_REQUEST
// "deactivation_notification_comment is too long (limit: 2000 characters)".
func (r DeactivateUserRequest) Validate() error {
	if c := r.DeactivationNotificationComment; c != nil {
		if !utf8.ValidString(*c) {
			return BadRequest("deactivation_notification_comment is not a valid string")
		}
		if utf8.RuneCountInString(strings.TrimSpace(*c)) > maxDeactivationCommentLength {
			return BadRequestf("deactivation_notification_comment is too long (limit: %d characters)", maxDeactivationCommentLength)
		}
	}
	return nil
}

// DeactivateUser deactivates the human user target of the actor's realm, as
// DELETE /users/{user_id}. The target's active bots are deactivated first; the
// user's subscriptions become inactive, pending e-mail changes are dropped and
// their API key stops working at once. Refusals, checked in Zulip's order:
//   - BAD_REQUEST for a comment over 2000 characters (see Validate), before
//     anything is looked up;
//   - BAD_REQUEST "No such user": unknown id, another realm's, or a bot;
//   - BAD_REQUEST "User is deactivated";
//   - BAD_REQUEST "Insufficient permission": the actor is not an administrator;
//   - UNAUTHORIZED_PRINCIPAL "Must be an organization owner": an
//     administrator on an owner;
//   - BAD_REQUEST "Cannot deactivate the only organization owner".
//
// The whole deactivation is one store transaction: the rules are checked,
// the messages selected by req.Actions are deleted (the bots' first, then the
// user's), and bots and user are deactivated, all or nothing. A refusal, a
// store error or ctx ending (checked between deletion batches) rolls
// everything back: no message is deleted, nobody is deactivated, no event or
// e-mail goes out, and the call can simply be repeated. Messages are deleted
// newest first in batches of the size set by [WithTopicDeletion], so memory
// stays bounded, but with no time budget: a user with many messages holds the
// store's writer (blocking other writes) until the deletion finishes, and
// callers that need a bound should give ctx a deadline.
//
// After the commit, and only then, the events go out in this order: for each
// deletion batch its delete_message events (and first_message_id stream
// updates), exactly as [Service.DeleteTopic] sends them; the delete_profile
// updates; then realm_user updates to the realm's remaining active users and
// realm_bot updates to bot owners. The notification e-mail is sent only when
// DeactivationNotificationComment is non-nil. A missing or deactivated actor
// gives an [Unauthorized] error. Other errors come from the store or ctx.
func (s *Service) DeactivateUser(ctx context.Context, actorID, targetID UserID, req DeactivateUserRequest) error {
	// Zulip validates parameters before the view looks anything up.
	if err := req.Validate(); err != nil {
		return err
	}
	kinds := req.Actions.kinds()
	deleteProfile := req.Actions != nil && req.Actions.DeleteProfile
	return s.update(ctx, func(tx Tx, fx *effects) error {
		a, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		t, err := checkDeactivation(ctx, tx, a, targetID)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, t.RealmID)
		if err != nil {
			return err
		}
		bots, err := activeBotsOf(ctx, tx, t)
		if err != nil {
			return err
		}
		notice := deactivationEmail{name: t.FullName, email: t.Email}
		var deactivated []*User // bots first, then the user
		for i := range bots {
			deactivated = append(deactivated, &bots[i])
		}
		deactivated = append(deactivated, t)
		if kinds != 0 {
			for _, u := range deactivated {
				f := MessageFilter{RealmID: t.RealmID, SenderID: u.ID, Kinds: kinds}
				if err := s.deleteSentMessages(ctx, tx, fx, a, f); err != nil {
					return err
				}
			}
		}
		profileEvents := len(fx.events) // the deletion events before it have their recipients
		if deleteProfile {
			for _, u := range deactivated {
				s.deleteProfile(u, fx)
			}
		}
		for _, u := range deactivated {
			u.IsActive = false
			if err := tx.UpdateUser(ctx, u); err != nil {
				return err
			}
			if err := tx.DeactivateSubscriptions(ctx, u.ID); err != nil {
				return err
			}
			if err := tx.DeleteEmailChanges(ctx, u.ID); err != nil {
				return err
			}
		}
		active, err := tx.Users(ctx, UserFilter{RealmID: t.RealmID, Active: new(true)})
		if err != nil {
			return err
		}
		recipients := make([]UserID, len(active))
		for i := range active {
			recipients[i] = active[i].ID
		}
		for _, u := range deactivated {
			fx.event(u.RealmID, recipients, map[string]any{
				"type": "realm_user", "op": "update",
				"person": map[string]any{"user_id": u.ID, "is_active": false},
			})
			if u.IsBot {
				fx.event(u.RealmID, []UserID{u.BotOwnerID}, map[string]any{
					"type": "realm_bot", "op": "update",
					"bot": map[string]any{"user_id": u.ID, "is_active": false},
				})
			}
		}
		// The profile events went out before the deactivation ones in Zulip;
		// fill in their recipients now that the active set is known.
		for i := profileEvents; i < len(fx.events); i++ {
			if fx.events[i].UserIDs == nil {
				fx.events[i].UserIDs = recipients
			}
		}
		if c := req.DeactivationNotificationComment; c != nil {
			notice.comment = strings.TrimSpace(*c)
			fx.mail(s.deactivationMail(realm, notice))
		}
		return nil
	})
}

// checkDeactivation loads target for a deactivation by a and applies Zulip's
// lookup and permission rules in their order.
func checkDeactivation(ctx context.Context, tx Tx, a *User, targetID UserID) (*User, error) {
	t, err := userInRealm(ctx, tx, a.RealmID, targetID)
	if errors.Is(err, ErrNotFound) {
		return nil, BadRequest("No such user")
	}
	if err != nil {
		return nil, err
	}
	if t.IsBot {
		return nil, BadRequest("No such user")
	}
	if !t.IsActive {
		return nil, BadRequest("User is deactivated")
	}
	if !a.Role.IsAdmin() {
		return nil, BadRequest("Insufficient permission")
	}
	if t.Role == RoleOwner && a.Role != RoleOwner {
		return nil, errMustBeOwner()
	}
	if t.Role == RoleOwner {
		owners, err := tx.Users(ctx, UserFilter{
			RealmID: t.RealmID, Roles: []Role{RoleOwner}, Active: new(true), Bot: new(false),
		})
		if err != nil {
			return nil, err
		}
		if len(owners) <= 1 {
			return nil, BadRequest("Cannot deactivate the only organization owner")
		}
	}
	return t, nil
}

// activeBotsOf returns the active bots owned by u, ordered by id.
func activeBotsOf(ctx context.Context, tx Tx, u *User) ([]User, error) {
	return tx.Users(ctx, UserFilter{RealmID: u.RealmID, BotOwnerID: u.ID, Active: new(true), Bot: new(true)})
}

// deletedUserName is the name delete_profile gives.
const deletedUserName = "Deleted user"

// deleteProfile renames u to "Deleted user" and drops the avatar (the caller
// stores u), queuing the profile events. Events for all active users are
// queued with nil recipients, which DeactivateUser fills in.
func (s *Service) deleteProfile(u *User, fx *effects) {
	u.FullName = deletedUserName
	u.FullNameKey = FoldKey(deletedUserName)
	u.AvatarSource = deletedAvatarSource
	avatar := s.avatarURL(u.AvatarSource, s.apiEmail(u))
	fx.event(u.RealmID, nil, map[string]any{
		"type": "realm_user", "op": "update",
		"person": map[string]any{"user_id": u.ID, "full_name": u.FullName},
	})
	fx.event(u.RealmID, nil, map[string]any{
		"type": "realm_user", "op": "update",
		"person": map[string]any{
			"user_id": u.ID, "avatar_source": u.AvatarSource,
			"avatar_url": avatar, "avatar_url_medium": avatar,
		},
	})
	if u.IsBot {
		fx.event(u.RealmID, []UserID{u.BotOwnerID}, map[string]any{
			"type": "realm_bot", "op": "update",
			"bot": map[string]any{"user_id": u.ID, "full_name": u.FullName},
		})
	}
}

// deleteSentMessages deletes every message matching f inside tx, newest
// first, in batches of the configured size so that no more than one batch is
// held at a time, and records each batch's events (and first_message_id
// maintenance) with deletionEffects, as DeleteTopic does; actorUser also
// receives them. ctx is checked before each batch: once it is done, its error
// comes back and the caller's transaction rolls back. f must name a sender and
// at least one kind.
func (s *Service) deleteSentMessages(ctx context.Context, tx Tx, fx *effects, actorUser *User, f MessageFilter) error {
	if f.Kinds == 0 || f.SenderID == 0 {
		// MessageFilter's zero Kinds means every kind: never let that through.
		return errors.New("chatcore: refusing an unrestricted message deletion")
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		deleted, err := tx.DeleteMessages(ctx, f, s.batchSize)
		if err != nil {
			return err
		}
		if err := deletionEffects(ctx, tx, fx, actorUser, f.RealmID, deleted); err != nil {
			return err
		}
		if len(deleted) < s.batchSize {
			// A short batch means nothing matching is left.
			return nil
		}
	}
}

// deactivationEmail holds what the deactivation notice says.
type deactivationEmail struct {
	name, email, comment string
}

// deactivationMail builds the notice sent to a deactivated user.
func (s *Service) deactivationMail(realm *Realm, n deactivationEmail) Email {
	var b strings.Builder
	fmt.Fprintf(&b, "Hello %s,\n\n", n.name)
	fmt.Fprintf(&b, "Your account on %s (%s) has been deactivated by an administrator of the organization.\n", realm.Name, s.externalURL)
	if n.comment != "" {
		b.WriteString("\nThe administrator left this message for you:\n\n")
		for line := range strings.Lines(n.comment) {
			b.WriteString("    " + strings.TrimRight(line, "\n") + "\n")
		}
	}
	b.WriteString("\nYou can no longer log in with this account. If you think this is a mistake, contact the administrators of the organization.\n")
	return Email{
		To:      n.email,
		From:    s.deactivationSender(),
		Subject: "Notification of account deactivation on " + realm.Name,
		Body:    b.String(),
	}
}

// deactivationSender is the sender of notification e-mails: noreply@ at the host
// of the external URL.
func (s *Service) deactivationSender() string {
	host := "localhost"
	if u, err := url.Parse(s.externalURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "noreply@" + host
}
