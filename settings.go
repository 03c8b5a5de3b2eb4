package chatcore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// SettingsUpdate is a partial update of a user's settings: the request of
// Zulip's PATCH /settings. A nil field is left alone; a non-nil one is applied
// (and, for settings, only written when it differs from the current value).
// The json tags are the wire names; [DecodeParams] fills a SettingsUpdate from
// wire parameters with Zulip's rules, and [SettingsUpdate.Validate] checks
// values.
//
// Bounds: Zulip checks web_font_size_px and web_line_height_percent only
// through their database column, a positive small integer. chatcore accepts
// exactly that column's range, 1-32767, and answers "X is too small" /
// "X is too large" outside it (Zulip would fail on the database instead).
//
// FullName, Email, OldPassword and NewPassword are account fields rather than
// settings. TargetUsers switches to the administrators' bulk edit of other
// users' settings (see [Service.UpdateSettings]).
type SettingsUpdate struct {
	FullName    *string      `json:"full_name"`
	Email       *string      `json:"email"`
	OldPassword *string      `json:"old_password"`
	NewPassword *string      `json:"new_password"`
	TargetUsers *TargetUsers `json:"target_users" validate:"omitnil"`

	TwentyFourHourTime                            *bool   `json:"twenty_four_hour_time"`
	WebMarkReadOnScrollPolicy                     *int    `json:"web_mark_read_on_scroll_policy" validate:"omitnil,mark_read_policies"`
	WebChannelDefaultView                         *int    `json:"web_channel_default_view" validate:"omitnil,channel_default_views"`
	StarredMessageCounts                          *bool   `json:"starred_message_counts"`
	ReceivesTypingNotifications                   *bool   `json:"receives_typing_notifications"`
	WebSuggestUpdateTimezone                      *bool   `json:"web_suggest_update_timezone"`
	FluidLayoutWidth                              *bool   `json:"fluid_layout_width"`
	HighContrastMode                              *bool   `json:"high_contrast_mode"`
	WebFontSizePx                                 *int    `json:"web_font_size_px" validate:"omitnil,min=1,max=32767"`
	WebLineHeightPercent                          *int    `json:"web_line_height_percent" validate:"omitnil,min=1,max=32767"`
	ColorScheme                                   *int    `json:"color_scheme" validate:"omitnil,color_schemes"`
	EnableDraftsSynchronization                   *bool   `json:"enable_drafts_synchronization"`
	TranslateEmoticons                            *bool   `json:"translate_emoticons"`
	DisplayEmojiReactionUsers                     *bool   `json:"display_emoji_reaction_users"`
	DefaultLanguage                               *string `json:"default_language" validate:"omitnil,language"`
	WebHomeView                                   *string `json:"web_home_view" validate:"omitnil,home_views"`
	WebEscapeNavigatesToHomeView                  *bool   `json:"web_escape_navigates_to_home_view"`
	LeftSideUserlist                              *bool   `json:"left_side_userlist"`
	Emojiset                                      *string `json:"emojiset" validate:"omitnil,emojisets"`
	DemoteInactiveStreams                         *int    `json:"demote_inactive_streams" validate:"omitnil,demote_streams_policies"`
	UserListStyle                                 *int    `json:"user_list_style" validate:"omitnil,user_list_styles"`
	WebAnimateImagePreviews                       *string `json:"web_animate_image_previews" validate:"omitnil,animate_previews"`
	WebStreamUnreadsCountDisplayPolicy            *int    `json:"web_stream_unreads_count_display_policy" validate:"omitnil,unreads_count_policies"`
	HideAIFeatures                                *bool   `json:"hide_ai_features"`
	WebInboxShowChannelFolders                    *bool   `json:"web_inbox_show_channel_folders"`
	WebLeftSidebarShowChannelFolders              *bool   `json:"web_left_sidebar_show_channel_folders"`
	WebLeftSidebarUnreadsCountSummary             *bool   `json:"web_left_sidebar_unreads_count_summary"`
	Timezone                                      *string `json:"timezone" validate:"omitnil,timezone"`
	EnableStreamDesktopNotifications              *bool   `json:"enable_stream_desktop_notifications"`
	EnableStreamEmailNotifications                *bool   `json:"enable_stream_email_notifications"`
	EnableStreamPushNotifications                 *bool   `json:"enable_stream_push_notifications"`
	EnableStreamAudibleNotifications              *bool   `json:"enable_stream_audible_notifications"`
	NotificationSound                             *string `json:"notification_sound" validate:"omitnil,notification_sound"`
	EnableDesktopNotifications                    *bool   `json:"enable_desktop_notifications"`
	EnableSounds                                  *bool   `json:"enable_sounds"`
	EmailNotificationsBatchingPeriodSeconds       *int    `json:"email_notifications_batching_period_seconds" validate:"omitnil,batching_period"`
	EnableOfflineEmailNotifications               *bool   `json:"enable_offline_email_notifications"`
	EnableOfflinePushNotifications                *bool   `json:"enable_offline_push_notifications"`
	EnableOnlinePushNotifications                 *bool   `json:"enable_online_push_notifications"`
	EnableFollowedTopicDesktopNotifications       *bool   `json:"enable_followed_topic_desktop_notifications"`
	EnableFollowedTopicEmailNotifications         *bool   `json:"enable_followed_topic_email_notifications"`
	EnableFollowedTopicPushNotifications          *bool   `json:"enable_followed_topic_push_notifications"`
	EnableFollowedTopicAudibleNotifications       *bool   `json:"enable_followed_topic_audible_notifications"`
	EnableDigestEmails                            *bool   `json:"enable_digest_emails"`
	EnableMarketingEmails                         *bool   `json:"enable_marketing_emails"`
	EnableLoginEmails                             *bool   `json:"enable_login_emails"`
	MessageContentInEmailNotifications            *bool   `json:"message_content_in_email_notifications"`
	PMContentInDesktopNotifications               *bool   `json:"pm_content_in_desktop_notifications"`
	WildcardMentionsNotify                        *bool   `json:"wildcard_mentions_notify"`
	EnableFollowedTopicWildcardMentionsNotify     *bool   `json:"enable_followed_topic_wildcard_mentions_notify"`
	DesktopIconCountDisplay                       *int    `json:"desktop_icon_count_display" validate:"omitnil,desktop_icon_counts"`
	RealmNameInEmailNotificationsPolicy           *int    `json:"realm_name_in_email_notifications_policy" validate:"omitnil,realm_name_policies"`
	AutomaticallyFollowTopicsPolicy               *int    `json:"automatically_follow_topics_policy" validate:"omitnil,topic_visibility_policies"`
	AutomaticallyUnmuteTopicsInMutedStreamsPolicy *int    `json:"automatically_unmute_topics_in_muted_streams_policy" validate:"omitnil,topic_visibility_policies"`
	AutomaticallyFollowTopicsWhereMentioned       *bool   `json:"automatically_follow_topics_where_mentioned"`
	ResolvedTopicNoticeAutoReadPolicy             *string `json:"resolved_topic_notice_auto_read_policy" validate:"omitnil,resolved_topic_policies"`
	PresenceEnabled                               *bool   `json:"presence_enabled"`
	EnterSends                                    *bool   `json:"enter_sends"`
	SendPrivateTypingNotifications                *bool   `json:"send_private_typing_notifications"`
	SendStreamTypingNotifications                 *bool   `json:"send_stream_typing_notifications"`
	SendReadReceipts                              *bool   `json:"send_read_receipts"`
	AllowPrivateDataExport                        *bool   `json:"allow_private_data_export"`
	EmailAddressVisibility                        *int    `json:"email_address_visibility" validate:"omitnil,email_visibilities"`
	WebNavigateToSentMessage                      *bool   `json:"web_navigate_to_sent_message"`
}

// MaxBulkTargetIDs bounds each list of [TargetUsers]: a bulk edit naming more
// user ids (or more group ids) is refused with BAD_REQUEST
// `target_users["user_ids"] is too long (limit: 10000 items)`, so one request
// cannot hold the store's writer for long. Groups may still expand to more users.
const MaxBulkTargetIDs = 10000

// TargetUsers selects the users of an administrator's bulk settings edit: the
// users in UserIDs plus the active members of the groups in GroupIDs
// (recursively through subgroups). Bots are never edited. At least one of the
// lists must be non-empty. SkipIfAlreadyEdited is required: when true, users who
// changed a setting themselves keep their value for it.
type TargetUsers struct {
	UserIDs             []UserID  `json:"user_ids"`
	GroupIDs            []GroupID `json:"group_ids"`
	SkipIfAlreadyEdited *bool     `json:"skip_if_already_edited" wire:"required" validate:"required"`
}

// settingUpdateField ties a setting of SettingsUpdate to its wire name.
type settingUpdateField struct {
	name  string
	index int
}

// settingUpdateFields lists the setting fields of SettingsUpdate (everything
// that is a [Settings] field) in declaration order.
var settingUpdateFields = sync.OnceValue(func() []settingUpdateField {
	t := reflect.TypeFor[SettingsUpdate]()
	var out []settingUpdateField
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if IsSetting(name) {
			out = append(out, settingUpdateField{name: name, index: i})
		}
	}
	return out
})

// settingChange is one requested setting value.
type settingChange struct {
	name  string
	value any // bool, int or string
}

// requestedSettings returns the settings u sets, timezone excluded (it is
// applied separately), in declaration order.
func (u *SettingsUpdate) requestedSettings() []settingChange {
	v := reflect.ValueOf(u).Elem()
	var out []settingChange
	for _, f := range settingUpdateFields() {
		if f.name == "timezone" {
			continue
		}
		p := v.Field(f.index)
		if p.IsNil() {
			continue
		}
		out = append(out, settingChange{name: f.name, value: p.Elem().Interface()})
	}
	return out
}

// securitySensitiveSettings may not be changed for other users (Zulip's
// SECURITY_SENSITIVE_USER_SETTINGS).
var securitySensitiveSettings = map[string]bool{
	"allow_private_data_export":         true,
	"email_address_visibility":          true,
	"enable_digest_emails":              true,
	"enable_login_emails":               true,
	"enable_marketing_emails":           true,
	"presence_enabled":                  true,
	"send_private_typing_notifications": true,
	"send_read_receipts":                true,
	"send_stream_typing_notifications":  true,
}

// emailChangeValidity is how long an e-mail change confirmation link works.
const emailChangeValidity = 24 * time.Hour

// maxFullNameLength is Zulip's limit on full names, in characters.
const maxFullNameLength = 100

// fullNameInvalidChars may not appear in a full name (Zulip's NAME_INVALID_CHARS).
const fullNameInvalidChars = "*`\\>\"@"

func errCannotChangeForOthers() *Error {
	return BadRequest("Cannot change this setting for other users.")
}

// errRateLimited is Zulip's RateLimitedError: RATE_LIMIT_HIT with the wait
// in whole seconds under "retry-after" (which transports also send as the
// Retry-After header).
func errRateLimited(wait time.Duration) *Error {
	return &Error{
		Code: CodeRateLimitHit, Kind: KindRateLimited,
		Msg:  "API usage exceeded rate limit",
		Data: map[string]any{"retry-after": retryAfterSeconds(wait)},
	}
}

func errConfirmationLink() *Error {
	return NotFound("The confirmation link has expired or been deactivated.")
}

// UpdateSettings applies req for the user actor, with the rules of Zulip's
// PATCH /settings, in one transaction: either everything in req takes effect
// or nothing does. Events (one user_settings update per changed setting,
// realm_user updates for a new full name or time zone) and e-mails are
// published only after the commit.
//
// Without TargetUsers, req edits the actor's own account: the password (when
// NewPassword is set; OldPassword must match), the e-mail address (only a
// pending change is recorded, and a confirmation link is mailed to the new
// address; see [Service.ConfirmEmailChange]), the full name (silently ignored
// when the realm disables name changes and the actor is not an administrator),
// each setting whose value differs, and the time zone (stored canonically).
// Turning enable_drafts_synchronization off deletes the user's drafts.
//
// With TargetUsers, an administrator applies the settings in req to other
// users in bulk, with one set-based store call per setting
// ([SettingsStore.UpdateSettingBulk]); FullName and OldPassword are then
// ignored, and users who changed a setting themselves keep it when
// SkipIfAlreadyEdited is true. Bulk edits are not recorded as the users' own
// edits. Each changed setting yields one [Event] addressed to every user whose
// value changed (users already holding the value are left alone).
//
// A password change verifies the old password and hashes the new one before
// the write transaction (the hash is deliberately slow), and the transaction
// refuses with "Wrong password!" if the stored hash changed meanwhile.
//
// Errors (all [*Error]):
//   - UNAUTHORIZED: the actor does not exist or is deactivated.
//   - BAD_REQUEST: "This endpoint does not accept bot requests."; every message
//     of [SettingsUpdate.Validate] (languages and sounds are checked against
//     the Service's sets); "Wrong password!"; "New password is too weak!";
//     "Email address changes are disabled in this organization.";
//     "Invalid address."; "Already has an account.";
//     "Account has been deactivated."; "Name too long!";
//     "Name must not be empty!"; "Invalid characters in name!";
//     "Invalid format!"; "Unique names required in this organization.";
//     "You're making too many attempts! Try again in <n> seconds." (the
//     failed-attempt limit of password changes, [WithPasswordAttemptLimit];
//     Zulip reports it as a 400);
//     and in bulk mode "Either user_ids or group_ids must be provided.",
//     "Cannot change this setting for other users.",
//     "Invalid user group ID: <id>", "Invalid user ID: <id>".
//     A nil TargetUsers.SkipIfAlreadyEdited gives BAD_REQUEST
//     `target_users["skip_if_already_edited"] field is missing: Field required`.
//   - UNAUTHORIZED_PRINCIPAL: bulk mode by a non-administrator.
//   - RATE_LIMIT_HIT (kind [KindRateLimited]) "API usage exceeded rate
//     limit" with Data["retry-after"] (whole seconds): too many e-mail change
//     requests ([WithEmailChangeLimit]), checked after the new address.
//
// Password hashing and verification run at most GOMAXPROCS at a time
// ([WithPasswordHashConcurrency]); a request waiting for a slot gives up with
// ctx's error when ctx ends.
//
// Any other error is an internal (store or context) failure.
func (s *Service) UpdateSettings(ctx context.Context, actor UserID, req SettingsUpdate) error {
	if err := req.TargetUsers.checkLength(); err != nil {
		return err
	}
	var pw *passwordChange
	if req.NewPassword != nil && req.TargetUsers == nil {
		var err error
		if pw, err = s.preparePasswordChange(ctx, actor, &req); err != nil {
			return err
		}
	}
	return s.update(ctx, func(tx Tx, fx *effects) error {
		u, err := s.settingsActor(ctx, tx, actor)
		if err != nil {
			return err
		}
		first, second := req.validate(&s.settingsConfig)
		if first != nil {
			return first
		}
		if req.TargetUsers != nil {
			return s.updateSettingsBulk(ctx, tx, fx, u, &req, second)
		}
		if second != nil {
			return second
		}
		return s.updateOwnSettings(ctx, tx, fx, u, &req, pw)
	})
}

// settingsActor loads the actor of a settings request and refuses bots.
func (s *Service) settingsActor(ctx context.Context, tx Tx, id UserID) (*User, error) {
	u, err := actor(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if u.IsBot {
		return nil, BadRequest("This endpoint does not accept bot requests.")
	}
	return u, nil
}

// passwordChange is a verified password change, prepared outside the write
// transaction so the deliberately slow hashing never holds the store's writer.
type passwordChange struct {
	oldHash string // the stored hash the old password was verified against
	newHash string
}

// preparePasswordChange checks the request as far as the password step
// (actor, bot, validation), verifies the old password and hashes the new one.
func (s *Service) preparePasswordChange(ctx context.Context, actorID UserID, req *SettingsUpdate) (*passwordChange, error) {
	var stored string
	err := s.view(ctx, func(tx Tx) error {
		u, err := s.settingsActor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		if first, second := req.validate(&s.settingsConfig); first != nil {
			return first
		} else if second != nil {
			return second
		}
		stored = u.PasswordHash
		return nil
	})
	if err != nil {
		return nil, err
	}
	// Every attempt counts against the user's failed-attempt limit (Zulip's
	// authenticate_by_username) before any hashing; a correct password clears
	// the count. Zulip reports this limit as a plain 400, not a 429.
	if wait, ok := s.passwordAttempts.take(actorID, s.clock.Now()); !ok {
		return nil, BadRequestf("You're making too many attempts! Try again in %d seconds.", retryAfterSeconds(wait))
	}
	ok := false
	if req.OldPassword != nil && stored != "" {
		ok, err = s.verifyPassword(ctx, stored, *req.OldPassword)
		if err != nil {
			return nil, fmt.Errorf("chatcore: verifying the password of user %d: %w", actorID, err)
		}
	}
	if !ok {
		return nil, BadRequest("Wrong password!")
	}
	s.passwordAttempts.clear(actorID)
	if !s.passwordStrongEnough(*req.NewPassword) {
		return nil, BadRequest("New password is too weak!")
	}
	h, err := s.hashPassword(ctx, *req.NewPassword)
	if err != nil {
		return nil, fmt.Errorf("chatcore: hashing a password: %w", err)
	}
	return &passwordChange{oldHash: stored, newHash: h}, nil
}

// updateOwnSettings is the own-account branch of UpdateSettings (BEHAVIOR §1.3
// steps 4-8), run inside the transaction after validation.
func (s *Service) updateOwnSettings(ctx context.Context, tx Tx, fx *effects, u *User, req *SettingsUpdate, pw *passwordChange) error {
	realm, err := tx.Realm(ctx, u.RealmID)
	if err != nil {
		return err
	}
	dirty := false

	if pw != nil {
		if u.PasswordHash != pw.oldHash { // changed since it was verified
			return BadRequest("Wrong password!")
		}
		u.PasswordHash = pw.newHash
		dirty = true
	}

	if req.Email != nil {
		if err := s.startEmailChange(ctx, tx, fx, realm, u, strings.TrimSpace(*req.Email)); err != nil {
			return err
		}
	}

	nameChanged := false
	if req.FullName != nil && *req.FullName != u.FullName &&
		!(realm.NameChangesDisabled && !u.Role.IsAdmin()) {
		name, err := checkFullName(*req.FullName)
		if err != nil {
			return err
		}
		if realm.RequireUniqueNames {
			if err := checkUniqueName(ctx, tx, u, name); err != nil {
				return err
			}
		}
		if name != u.FullName {
			u.FullName, u.FullNameKey = name, FoldKey(name)
			nameChanged, dirty = true, true
		}
	}

	var changed []string
	var settingEvents []map[string]any
	for _, c := range req.requestedSettings() {
		cur, _ := u.Settings.Value(c.name)
		if cur == c.value {
			continue
		}
		if err := u.Settings.Set(c.name, c.value); err != nil {
			return err
		}
		changed = append(changed, c.name)
		settingEvents = append(settingEvents, s.settingEvent(c.name, c.value))
	}
	tzChanged := false
	if req.Timezone != nil {
		if tz := CanonicalTimezone(*req.Timezone); tz != u.Settings.Timezone {
			u.Settings.Timezone = tz
			changed = append(changed, "timezone")
			settingEvents = append(settingEvents, s.settingEvent("timezone", tz))
			tzChanged = true
		}
	}
	if len(changed) > 0 {
		dirty = true
	}
	if !dirty {
		return nil
	}
	if err := tx.UpdateUser(ctx, u); err != nil {
		return err
	}
	if len(changed) > 0 {
		if err := tx.RecordSettingEdits(ctx, u.ID, changed); err != nil {
			return err
		}
	}
	if slices.Contains(changed, "enable_drafts_synchronization") && !u.Settings.EnableDraftsSynchronization {
		if _, err := tx.DeleteDrafts(ctx, u.ID); err != nil {
			return err
		}
	}

	var everyone []UserID
	if nameChanged || tzChanged {
		if everyone, err = activeUserIDs(ctx, tx, u.RealmID); err != nil {
			return err
		}
	}
	if nameChanged {
		fx.event(u.RealmID, everyone, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "full_name": u.FullName},
		})
	}
	for _, ev := range settingEvents {
		fx.event(u.RealmID, []UserID{u.ID}, ev)
	}
	if tzChanged {
		fx.event(u.RealmID, everyone, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "email": u.Email, "timezone": u.Settings.Timezone},
		})
	}
	return nil
}

// settingEvent is the user_settings update event for one changed setting.
func (s *Service) settingEvent(name string, value any) map[string]any {
	ev := map[string]any{"type": "user_settings", "op": "update", "property": name, "value": value}
	if name == "default_language" {
		ev["language_name"] = s.languageName(value.(string))
	}
	return ev
}

// activeUserIDs returns the ids of the realm's active users and bots: who can
// see a user's profile changes.
func activeUserIDs(ctx context.Context, tx Tx, realm RealmID) ([]UserID, error) {
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

// checkFullName applies Zulip's full-name rules and returns the stripped name.
func checkFullName(raw string) (string, error) {
	name := strings.TrimFunc(raw, isPythonSpace)
	if !utf8.ValidString(name) {
		return "", BadRequest("Invalid characters in name!")
	}
	if utf8.RuneCountInString(name) > maxFullNameLength {
		return "", BadRequest("Name too long!")
	}
	if name == "" {
		return "", BadRequest("Name must not be empty!")
	}
	for _, r := range name {
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cs, r) || isNonCharacter(r) ||
			strings.ContainsRune(fullNameInvalidChars, r) {
			return "", BadRequest("Invalid characters in name!")
		}
	}
	if endsWithPipeDigits(raw) {
		return "", BadRequest("Invalid format!")
	}
	return name, nil
}

// isNonCharacter reports whether r is one of Unicode's 66 non-characters
// (U+FDD0-U+FDEF and the last two code points of every plane), which Zulip's
// printability check refuses along with control characters and surrogates.
func isNonCharacter(r rune) bool {
	return (r >= 0xFDD0 && r <= 0xFDEF) || (r >= 0 && r <= unicode.MaxRune && r&0xFFFE == 0xFFFE)
}

// isPythonSpace reports whether Python's str.strip would remove r (Unicode
// white space plus the ASCII separators U+001C-U+001F), as Zulip strips names.
func isPythonSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// endsWithPipeDigits reports whether s ends in "|" followed by digits (and at
// most one newline), the syntax of a mention that names a user id; it matches
// where Zulip's regular expression `\|\d+$` does.
func endsWithPipeDigits(s string) bool {
	s = strings.TrimSuffix(s, "\n")
	body := strings.TrimRightFunc(s, unicode.IsDigit)
	return len(body) < len(s) && strings.HasSuffix(body, "|")
}

// checkUniqueName refuses a name another user of the realm already has.
func checkUniqueName(ctx context.Context, tx Tx, u *User, name string) error {
	others, err := tx.Users(ctx, UserFilter{RealmID: u.RealmID, FullNameKey: FoldKey(name)})
	if err != nil {
		return err
	}
	for _, o := range others {
		if o.ID != u.ID {
			return BadRequest("Unique names required in this organization.")
		}
	}
	return nil
}

// validEmailAddress reports whether addr is a bare e-mail address that
// Django's validate_email (which Zulip uses) accepts: a dot-atom or quoted
// local part, "@", and a domain that is "localhost", a bracketed IP literal,
// or dot-separated labels of letters, digits and inner hyphens (at most 63
// characters each) ending in a top-level label of at least two characters.
// Non-ASCII letters and digits count as letters, standing in for Django's
// IDNA encoding of international domains.
func validEmailAddress(addr string) bool {
	if addr == "" || len(addr) > 254 || !utf8.ValidString(addr) {
		return false
	}
	i := strings.LastIndexByte(addr, '@')
	if i < 0 {
		return false
	}
	local, domain := addr[:i], addr[i+1:]
	if !emailLocalPart.MatchString(local) {
		return false
	}
	if domain == "localhost" {
		return true
	}
	if strings.HasPrefix(domain, "[") && strings.HasSuffix(domain, "]") {
		ip, err := netip.ParseAddr(strings.TrimPrefix(domain[1:len(domain)-1], "IPv6:"))
		return err == nil && ip.Zone() == "" &&
			ip.Is4() == !strings.HasPrefix(domain, "[IPv6:")
	}
	labels := strings.Split(domain, ".")
	if len(labels) < 2 {
		return false
	}
	for i, l := range labels {
		if !validDomainLabel(l, i == len(labels)-1) {
			return false
		}
	}
	return true
}

// emailLocalPart matches the local parts Django accepts: a dot-atom, or a
// quoted string of printable ASCII with backslash escapes.
var emailLocalPart = regexp.MustCompile("(?i)^(?:[-!#$%&'*+/=?^_`{}|~0-9a-z]+(?:\\.[-!#$%&'*+/=?^_`{}|~0-9a-z]+)*" +
	`|"(?:[\x01-\x08\x0b\x0c\x0e-\x1f!#-\[\]-\x7f]|\\[\x01-\x09\x0b\x0c\x0e-\x7f])*")$`)

// validDomainLabel reports whether l is a host name label (RFC 1035 as Django
// applies it): 1-63 letters, digits or hyphens, not starting or ending with a
// hyphen. The top-level label needs at least two characters and may start
// with a hyphen (as Django's pattern allows, for IDNA "xn--" forms).
func validDomainLabel(l string, top bool) bool {
	n := utf8.RuneCountInString(l)
	if n == 0 || n > 63 || (top && n < 2) || strings.HasSuffix(l, "-") ||
		(!top && strings.HasPrefix(l, "-")) {
		return false
	}
	for _, r := range l {
		if r != '-' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}

// checkEmailAvailable refuses an address another account of the realm uses.
func checkEmailAvailable(ctx context.Context, tx Tx, realm RealmID, addr string) error {
	other, err := tx.UserByEmail(ctx, realm, addr)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if other.IsActive {
		return BadRequest("Already has an account.")
	}
	return BadRequest("Account has been deactivated.")
}

// startEmailChange records a pending change of u's address to addr (replacing
// older ones) and mails the confirmation link to addr. The same address is a
// no-op.
func (s *Service) startEmailChange(ctx context.Context, tx Tx, fx *effects, realm *Realm, u *User, addr string) error {
	if addr == u.Email {
		return nil
	}
	if realm.EmailChangesDisabled && !u.Role.IsAdmin() {
		return BadRequest("Email address changes are disabled in this organization.")
	}
	if !validEmailAddress(addr) {
		return BadRequest("Invalid address.")
	}
	if err := checkEmailAvailable(ctx, tx, realm.ID, addr); err != nil {
		return err
	}
	// Checked after the address, as Zulip does: a refused address costs
	// nothing. A request refused later in the transaction still counts.
	if wait, ok := s.emailChanges.take(u.ID, s.clock.Now()); !ok {
		return errRateLimited(wait)
	}
	if err := tx.DeleteEmailChanges(ctx, u.ID); err != nil {
		return err
	}
	key, err := confirmationKey()
	if err != nil {
		return err
	}
	c := &EmailChange{Key: key, UserID: u.ID, RealmID: u.RealmID, OldEmail: u.Email, NewEmail: addr, CreatedAt: s.clock.Now()}
	if err := tx.CreateEmailChange(ctx, c); err != nil {
		return err
	}
	link := strings.TrimRight(s.externalURL, "/") + "/accounts/confirm_new_email/" + key
	fx.mail(Email{
		To:      addr,
		From:    s.noreplyAddress(),
		Subject: "Verify your new email address for " + realm.Name,
		Body: fmt.Sprintf("Hello %s,\n\n"+
			"Someone asked to change the email address of your account in %s from %s to %s.\n"+
			"To confirm the change, open this link within %d hours:\n\n%s\n\n"+
			"If you did not ask for this, ignore this message; nothing changes until the link is opened.\n",
			u.FullName, realm.Name, u.Email, addr, int(emailChangeValidity/time.Hour), link),
	})
	return nil
}

// noreplyAddress is the sender of chatcore's e-mails: noreply@ the host of the
// external URL.
func (s *Service) noreplyAddress() string {
	host := "localhost"
	if u, err := url.Parse(s.externalURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "noreply@" + host
}

// confirmationKey returns a random 24-character key of lower-case letters and
// digits (about 124 bits), the shape of Zulip's confirmation keys.
func confirmationKey() (string, error) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("chatcore: confirmation key: %w", err)
	}
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b), nil
}

// ConfirmEmailChange completes the pending e-mail change with the key from a
// confirmation link: the user's address becomes the new one, the pending
// change is deleted, the old address is mailed a notice, and realm_user
// update events are published after the commit.
//
// Errors (all [*Error]): 404-kind BAD_REQUEST "The confirmation link has
// expired or been deactivated." for an unknown, expired (older than 24 hours)
// or superseded key; BAD_REQUEST "Account is deactivated" (a plain 400: the
// link is opened without authentication) when the user was deactivated
// meanwhile; BAD_REQUEST "Email address changes are disabled in
// this organization.", "Already has an account." or "Account has been
// deactivated." when the change is no longer allowed. Any other error is an
// internal failure.
func (s *Service) ConfirmEmailChange(ctx context.Context, key string) error {
	return s.update(ctx, func(tx Tx, fx *effects) error {
		c, err := tx.EmailChange(ctx, key)
		if errors.Is(err, ErrNotFound) {
			return errConfirmationLink()
		}
		if err != nil {
			return err
		}
		if s.clock.Now().Sub(c.CreatedAt) > emailChangeValidity {
			return errConfirmationLink()
		}
		u, err := userInRealm(ctx, tx, c.RealmID, c.UserID)
		if errors.Is(err, ErrNotFound) {
			return errConfirmationLink()
		}
		if err != nil {
			return err
		}
		if u.Email != c.OldEmail {
			return errConfirmationLink()
		}
		if !u.IsActive {
			// The link is opened by a browser that has not authenticated:
			// a plain 400, never a 401 challenge.
			return BadRequest("Account is deactivated")
		}
		realm, err := tx.Realm(ctx, u.RealmID)
		if err != nil {
			return err
		}
		if realm.EmailChangesDisabled && !u.Role.IsAdmin() {
			return BadRequest("Email address changes are disabled in this organization.")
		}
		if err := checkEmailAvailable(ctx, tx, realm.ID, c.NewEmail); err != nil {
			return err
		}
		u.Email = c.NewEmail
		if err := tx.UpdateUser(ctx, u); err != nil {
			if errors.Is(err, ErrConflict) {
				return BadRequest("Already has an account.")
			}
			return err
		}
		if err := tx.DeleteEmailChanges(ctx, u.ID); err != nil {
			return err
		}
		everyone, err := activeUserIDs(ctx, tx, u.RealmID)
		if err != nil {
			return err
		}
		fx.event(u.RealmID, []UserID{u.ID}, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "delivery_email": u.Email},
		})
		fx.event(u.RealmID, everyone, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "new_email": u.Email},
		})
		fx.mail(Email{
			To:      c.OldEmail,
			From:    s.noreplyAddress(),
			Subject: "Email address changed for " + realm.Name,
			Body: fmt.Sprintf("Hello %s,\n\n"+
				"The email address of your account in %s (%s) was changed from %s to %s.\n"+
				"If you did not make this change, contact the organization's administrators right away.\n",
				u.FullName, realm.Name, s.externalURL, c.OldEmail, c.NewEmail),
		})
		return nil
	})
}

// updateSettingsBulk is the target_users branch of UpdateSettings: an
// administrator sets the requested settings for other users, one set-based
// store call per setting. phase2 is the deferred language/sound/batching
// validation error, reported after the permission checks.
func (s *Service) updateSettingsBulk(ctx context.Context, tx Tx, fx *effects, admin *User, req *SettingsUpdate, phase2 error) error {
	if err := requireAdmin(admin); err != nil {
		return err
	}
	if req.Email != nil || req.NewPassword != nil || req.Timezone != nil {
		return errCannotChangeForOthers()
	}
	settings := req.requestedSettings()
	for _, c := range settings {
		if securitySensitiveSettings[c.name] {
			return errCannotChangeForOthers()
		}
	}
	if phase2 != nil {
		return phase2
	}
	t := req.TargetUsers
	// Each requested group is read on its own: loading every group of the
	// realm with its members would cost far more than the few ids asked for.
	for _, id := range t.GroupIDs {
		g, err := tx.Group(ctx, id)
		if errors.Is(err, ErrNotFound) || (err == nil && g.RealmID != admin.RealmID) {
			return BadRequestf("Invalid user group ID: %d", id)
		}
		if err != nil {
			return err
		}
	}
	if len(t.UserIDs) > 0 {
		found, err := tx.Users(ctx, UserFilter{RealmID: admin.RealmID, IDs: t.UserIDs})
		if err != nil {
			return err
		}
		known := make(map[UserID]bool, len(found))
		for _, u := range found {
			known[u.ID] = true
		}
		for _, id := range t.UserIDs {
			if !known[id] {
				return BadRequestf("Invalid user ID: %d", id)
			}
		}
	}
	for _, c := range settings {
		changed, err := tx.UpdateSettingBulk(ctx, BulkSettingUpdate{
			RealmID:      admin.RealmID,
			UserIDs:      t.UserIDs,
			GroupIDs:     t.GroupIDs,
			Setting:      c.name,
			Value:        c.value,
			SkipIfEdited: *t.SkipIfAlreadyEdited,
		})
		if err != nil {
			return err
		}
		if len(changed) == 0 {
			continue
		}
		if c.name == "enable_drafts_synchronization" && c.value == false {
			if _, err := tx.DeleteDraftsOf(ctx, changed); err != nil {
				return err
			}
		}
		fx.event(admin.RealmID, changed, s.settingEvent(c.name, c.value))
	}
	return nil
}

// TypingNotificationRecipients returns the ids of the users among users who
// are active and have receives_typing_notifications on, in the order given:
// the users a typing event may be delivered to.
func TypingNotificationRecipients(users []User) []UserID {
	var out []UserID
	for i := range users {
		if users[i].IsActive && users[i].Settings.ReceivesTypingNotifications {
			out = append(out, users[i].ID)
		}
	}
	return out
}

// TypingRecipients filters candidates, the would-be recipients of a typing
// notification, down to the active users who receive typing notifications
// (see [TypingNotificationRecipients]). Unknown ids are dropped. The result is
// sorted by id and has no duplicates. It reads in one snapshot; errors are
// internal store failures.
func (s *Service) TypingRecipients(ctx context.Context, candidates []UserID) ([]UserID, error) {
	if len(candidates) == 0 {
		return nil, nil
	}
	var out []UserID
	err := s.view(ctx, func(tx Tx) error {
		users, err := tx.Users(ctx, UserFilter{IDs: candidates})
		if err != nil {
			return err
		}
		out = TypingNotificationRecipients(users)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
