package chatcore

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
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
// e-mail and API key) and returns the user or bot they belong to. The key
// is the user's own or one a password login issued (see [LoginKey]); the
// user and their realm's state are one read ([KeyHolder]). Surrounding
// whitespace is ignored. Every refusal is an [Unauthorized] error (code
// UNAUTHORIZED, [KindUnauthenticated]) with Zulip's message:
//   - "Malformed API key": the key is not 32 ASCII letters and digits;
//   - "Invalid API key": no user has the key, or the key belongs to a user
//     whose e-mail differs from email (compared case-insensitively);
//   - "Account is deactivated": the user or bot is deactivated.
//
// A user of a deactivated realm gets [ErrRealmDeactivated] (401
// REALM_DEACTIVATED), checked before the user's own deactivation as Zulip
// does.
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
	var k KeyHolder
	// One statement: nothing worth interrupting, and a context that cannot
	// be cancelled spares the store watching it. A single read needs no
	// transaction around it.
	err := s.viewSingle(context.WithoutCancel(ctx), func(tx Tx) error {
		var err error
		k, err = tx.KeyHolder(ctx, hash)
		return err
	})
	if errors.Is(err, ErrNotFound) {
		return nil, Unauthorized("Invalid API key")
	}
	if err != nil {
		return nil, err
	}
	u := k.User
	if k.OwnKey && subtle.ConstantTimeCompare([]byte(u.APIKeyHash), []byte(hash)) != 1 {
		return nil, Unauthorized("Invalid API key")
	}
	if FoldKey(email) != FoldKey(u.Email) {
		return nil, Unauthorized("Invalid API key")
	}
	if k.RealmDeactivated {
		return nil, ErrRealmDeactivated()
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
	// AvatarVersion counts the user's avatar changes, from 1 as in Zulip
	// (uploads, deletions and deleting the profile each count one).
	AvatarVersion int `json:"avatar_version"`
	// IsImportedStub is always false: chatcore imports no accounts.
	IsImportedStub bool `json:"is_imported_stub"`
	// ProfileData holds the user's custom profile field values, keyed by
	// field id. Custom profile fields are not modelled, so it is empty; it
	// is nil (absent) for bots and when the request did not ask for the
	// fields, as in Zulip.
	ProfileData map[string]ProfileFieldValue `json:"profile_data,omitzero"`
	// MaxMessageID is set on the acting user's own view (GET /users/me) only:
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

// StandInUserID parses a stand-in address user<ID>@<domain> of this server,
// the "email" [Service.APIEmail] shows for a user who hides the real one, and
// returns the id; ok is false for any other address.
func (s *Service) StandInUserID(email string) (UserID, bool) {
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
		AvatarVersion: AvatarVersion(u),
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
	v.AvatarURL = s.avatarURL(u, v.Email, false)
	if canSeeDeliveryEmail(viewer, u) {
		v.DeliveryEmail = new(u.Email)
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
	return RoleSeesEmail(viewer.Role, target.Settings.EmailAddressVisibility)
}

// RoleSeesEmail reports whether a viewer of the role may see the real
// address of a user whose email_address_visibility setting is visibility.
func RoleSeesEmail(role Role, visibility int) bool {
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

// The avatar sources ([User.AvatarSource]), as Zulip's avatar_source.
const (
	// GravatarAvatarSource is the Gravatar identicon of the user's address.
	GravatarAvatarSource = "G"
	// UploadedAvatarSource is an image the user uploaded (POST
	// /users/me/avatar), kept in the FileStorage under [AvatarKey].
	UploadedAvatarSource = "U"
	// DeletedAvatarSource is the avatar of a profile removed by
	// delete_profile: the server's default avatar.
	DeletedAvatarSource = "D"
)

// AvatarVersion returns u's avatar_version: the count of its avatar
// changes, from 1 (a stored 0 counts as 1).
func AvatarVersion(u *User) int { return max(u.AvatarVersion, 1) }

// The variants of an uploaded avatar [AvatarKey] names.
const (
	// AvatarSmall is the 100×100 image avatar_url names.
	AvatarSmall = ".png"
	// AvatarMedium is the 500×500 image avatar_url_medium names.
	AvatarMedium = "-medium.png"
	// AvatarOriginal is the file as uploaded.
	AvatarOriginal = ".original"
)

// AvatarKey returns the storage key of variant (AvatarSmall, AvatarMedium
// or AvatarOriginal) of the avatar user of realm uploaded as its avatar
// version: "user_avatars/{realm}/{hash}{variant}", the hash naming user
// and version (so each upload has new URLs and caches never serve an old
// image). The hash is derived from the ids alone (Zulip's also hashes a
// server secret), so anyone can work out a user's avatar URL; uploaded
// avatars are served without authentication, as Zulip's are.
func AvatarKey(realm RealmID, user UserID, version int, variant string) string {
	sum := sha256.Sum256([]byte("chatcore avatar " + strconv.FormatInt(int64(user), 10) + ":" + strconv.Itoa(version)))
	return "user_avatars/" + strconv.FormatInt(int64(realm), 10) + "/" + hex.EncodeToString(sum[:20]) + variant
}

// AvatarURL returns the avatar URL Zulip shows for u (avatar_url): its
// uploaded avatar's 100×100 image, the gravatar identicon of its API
// e-mail ([Service.APIEmail]), or the default avatar once the profile was
// deleted ([DeletedAvatarSource]); each carries the avatar version.
func (s *Service) AvatarURL(u *User) string { return s.avatarURL(u, s.APIEmail(u), false) }

// AvatarMediumURL returns u's avatar_url_medium: the 500×500 image of an
// uploaded avatar, else the 500-pixel Gravatar or the default avatar.
func (s *Service) AvatarMediumURL(u *User) string { return s.avatarURL(u, s.APIEmail(u), true) }

// avatarURL returns the avatar URL of u, whose API e-mail is email.
func (s *Service) avatarURL(u *User, email string, medium bool) string {
	version := strconv.Itoa(AvatarVersion(u))
	switch u.AvatarSource {
	case DeletedAvatarSource:
		return strings.TrimSuffix(s.externalURL, "/") + "/static/images/default-avatar.png"
	case UploadedAvatarSource:
		variant := AvatarSmall
		if medium {
			variant = AvatarMedium
		}
		return strings.TrimSuffix(s.externalURL, "/") + "/" + AvatarKey(u.RealmID, u.ID, AvatarVersion(u), variant) + "?version=" + version
	}
	url := GravatarURL(email) + "&version=" + version
	if medium {
		url += "&s=500"
	}
	return url
}

// GravatarURL returns the Gravatar identicon URL of an e-mail address,
// without a version.
func GravatarURL(email string) string {
	sum := md5.Sum([]byte(strings.ToLower(email)))
	return "https://secure.gravatar.com/avatar/" + hex.EncodeToString(sum[:]) + "?d=identicon"
}

// ActiveAdminIDs returns the ids of the realm's active human owners and
// administrators, ascending: the audience of administrative events (bots,
// invitations).
func ActiveAdminIDs(ctx context.Context, tx Tx, realm RealmID) ([]UserID, error) {
	admins, err := tx.Users(ctx, UserFilter{RealmID: realm, Roles: []Role{RoleOwner, RoleAdministrator}, Active: new(true), Bot: new(false)})
	if err != nil {
		return nil, err
	}
	ids := make([]UserID, len(admins))
	for i := range admins {
		ids[i] = admins[i].ID
	}
	return ids, nil
}

// ActiveUserIDs returns the ids of the realm's active users and bots: who can
// see a user's profile changes.
func ActiveUserIDs(ctx context.Context, tx Tx, realm RealmID) ([]UserID, error) {
	active := true
	users, err := tx.Users(ctx, UserFilter{RealmID: realm, Active: &active})
	if err != nil {
		return nil, err
	}
	ids := make([]UserID, len(users))
	for i := range users {
		ids[i] = users[i].ID
	}
	return ids, nil
}
