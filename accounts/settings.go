package accounts

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/settings"
)

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
	UserIDs             []chatcore.UserID  `json:"user_ids"`
	GroupIDs            []chatcore.GroupID `json:"group_ids"`
	SkipIfAlreadyEdited *bool              `json:"skip_if_already_edited" wire:"required" validate:"required"`
}

// checkLength refuses a list of t over [MaxBulkTargetIDs] before any store
// access, with the text the settings validator gives it.
func (t *TargetUsers) checkLength() error {
	switch {
	case t == nil:
		return nil
	case len(t.UserIDs) > MaxBulkTargetIDs:
		return chatcore.TooLongError(`target_users["user_ids"]`, MaxBulkTargetIDs)
	case len(t.GroupIDs) > MaxBulkTargetIDs:
		return chatcore.TooLongError(`target_users["group_ids"]`, MaxBulkTargetIDs)
	}
	return nil
}

// requestedSettings returns the settings u sets, timezone excluded (it is
// applied separately, in canonical form), in declaration order.
func (u *SettingsUpdate) requestedSettings() []settingChange {
	all := u.settingChanges()
	out := all[:0]
	for _, c := range all {
		if c.row.Name != "timezone" {
			out = append(out, c)
		}
	}
	return out
}

func errCannotChangeForOthers() *chatcore.Error {
	return chatcore.BadRequest("Cannot change this setting for other users.")
}

// errRateLimited is Zulip's RateLimitedError: RATE_LIMIT_HIT, retry after wait
// (transports send it in whole seconds as "retry-after" and the Retry-After
// header).
func errRateLimited(wait time.Duration) *chatcore.Error {
	return &chatcore.Error{
		Code: chatcore.CodeRateLimitHit, Kind: chatcore.KindRateLimited,
		Msg:        "API usage exceeded rate limit",
		RetryAfter: wait,
	}
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
// address; see [ConfirmEmailChange]), the full name (silently ignored
// when the realm disables name changes and the actor is not an administrator),
// each setting whose value differs, and the time zone (stored canonically).
// Turning enable_drafts_synchronization off deletes the user's drafts.
//
// With TargetUsers, an administrator applies the settings in req to other
// users in bulk, with one set-based store call per setting
// ([chatcore.SettingsStore.UpdateSettingBulk]); FullName and OldPassword are then
// ignored, and users who changed a setting themselves keep it when
// SkipIfAlreadyEdited is true. Bulk edits are not recorded as the users' own
// edits. Each changed setting yields one [chatcore.Event] addressed to every user whose
// value changed (users already holding the value are left alone).
//
// A password change verifies the old password and hashes the new one before
// the write transaction (the hash is deliberately slow), and the transaction
// refuses with "Wrong password!" if the stored hash changed meanwhile.
//
// Errors (all [*chatcore.Error]):
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
//     failed-attempt limit of password changes, [chatcore.WithPasswordAttemptLimit];
//     Zulip reports it as a 400);
//     and in bulk mode "Either user_ids or group_ids must be provided.",
//     "Cannot change this setting for other users.",
//     "Invalid user group ID: <id>", "Invalid user ID: <id>".
//     A nil TargetUsers.SkipIfAlreadyEdited gives BAD_REQUEST
//     `target_users["skip_if_already_edited"] field is missing: Field required`.
//   - UNAUTHORIZED_PRINCIPAL: bulk mode by a non-administrator.
//   - RATE_LIMIT_HIT (kind [chatcore.KindRateLimited]) "API usage exceeded rate
//     limit" with [chatcore.Error.RetryAfter] set: too many e-mail change
//     requests ([chatcore.WithEmailChangeLimit]), checked after the new address.
//
// Password hashing and verification run at most GOMAXPROCS at a time
// ([chatcore.WithPasswordHashConcurrency]); a request waiting for a slot gives up with
// ctx's error when ctx ends.
//
// Any other error is an internal (store or context) failure.
func UpdateSettings(ctx context.Context, svc *chatcore.Service, actor chatcore.UserID, req SettingsUpdate) error {
	if err := req.TargetUsers.checkLength(); err != nil {
		return err
	}
	// Validation reads no store: run it once, outside the write lock, and
	// report its errors after the actor checks, in Zulip's order.
	sets := svc.SettingValueSets()
	first, second := req.validate(&sets)
	var pw *passwordChange
	if req.NewPassword != nil && req.TargetUsers == nil {
		var err error
		if pw, err = preparePasswordChange(ctx, svc, actor, &req, cmp.Or(first, second)); err != nil {
			return err
		}
	}
	if first == nil && second == nil && req.Authenticated != nil && req.Authenticated.ID == actor &&
		req.changesNothing(req.Authenticated) {
		return nil // what the write transaction would find: nothing to write, no event
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := settingsActor(ctx, svc, tx, actor)
		if err != nil {
			return err
		}
		if first != nil {
			return first
		}
		if req.TargetUsers != nil {
			return updateSettingsBulk(ctx, svc, tx, fx, u, &req, second)
		}
		if second != nil {
			return second
		}
		return updateOwnSettings(ctx, svc, tx, fx, u, &req, pw)
	})
}

// settingsActor loads the actor of a settings request and refuses bots.
func settingsActor(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, id chatcore.UserID) (*chatcore.User, error) {
	u, err := chatcore.Actor(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if u.IsBot {
		return nil, chatcore.Authorize(u, chatcore.AccessHuman)
	}
	return u, nil
}

// changesNothing reports whether u, validated, asks a (an active human,
// as authenticated) for nothing but the values a already holds: no password,
// e-mail or other users, the full name unchanged, every setting and the time
// zone at its current value. Such a request is answered without a write, as
// updateOwnSettings would answer it. A nil a changes something.
func (u *SettingsUpdate) changesNothing(a *chatcore.User) bool {
	if a == nil || !a.IsActive || a.IsBot || u.TargetUsers != nil || u.NewPassword != nil || u.Email != nil ||
		u.FullName != nil && *u.FullName != a.FullName {
		return false
	}
	if u.Timezone != nil && CanonicalTimezone(*u.Timezone) != a.Settings.Timezone {
		return false
	}
	for _, c := range u.requestedSettings() {
		if cur, _ := a.Settings.Value(c.row.Name); cur != c.value {
			return false
		}
	}
	return true
}

// updateOwnSettings is the own-account branch of UpdateSettings, run inside
// the transaction after validation, in Zulip's order: password, e-mail
// address, full name, then the settings and the time zone.
func updateOwnSettings(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, u *chatcore.User, req *SettingsUpdate, pw *passwordChange) error {
	var realm *chatcore.Realm // only the e-mail and full-name rules read the realm
	if req.Email != nil || req.FullName != nil && *req.FullName != u.FullName {
		var err error
		if realm, err = tx.Realm(ctx, u.RealmID); err != nil {
			return err
		}
	}
	dirty := false

	if pw != nil {
		if u.PasswordHash != pw.oldHash { // changed since it was verified
			return chatcore.BadRequest("Wrong password!")
		}
		u.PasswordHash = pw.newHash
		dirty = true
	}

	if req.Email != nil {
		if err := startEmailChange(ctx, svc, tx, fx, realm, u, strings.TrimSpace(*req.Email)); err != nil {
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
			u.FullName, u.FullNameKey = name, chatcore.FoldKey(name)
			nameChanged, dirty = true, true
		}
	}

	var changed []string
	var values []chatcore.SettingValue
	var settingEvents []map[string]any
	for _, c := range req.requestedSettings() {
		cur, _ := u.Settings.Value(c.row.Name)
		if cur == c.value {
			continue
		}
		if err := u.Settings.Set(c.row.Name, c.value); err != nil {
			return err
		}
		changed = append(changed, c.row.Name)
		values = append(values, chatcore.SettingValue{Name: c.row.Name, Value: c.value})
		settingEvents = append(settingEvents, settingEvent(svc, c.row.Name, c.value))
	}
	tzChanged := false
	if req.Timezone != nil {
		if tz := CanonicalTimezone(*req.Timezone); tz != u.Settings.Timezone {
			u.Settings.Timezone = tz
			changed = append(changed, "timezone")
			values = append(values, chatcore.SettingValue{Name: "timezone", Value: tz})
			settingEvents = append(settingEvents, settingEvent(svc, "timezone", tz))
			tzChanged = true
		}
	}
	switch {
	case dirty: // the password or the full name changed too: rewrite the row
		if err := tx.UpdateUser(ctx, u); err != nil {
			return err
		}
	case len(values) > 0: // only settings changed: write just their columns
		if err := tx.UpdateUserSettings(ctx, u.ID, values); err != nil {
			return err
		}
	default:
		return nil
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

	var everyone []chatcore.UserID
	if nameChanged || tzChanged {
		var err error
		if everyone, err = chatcore.ActiveUserIDs(ctx, tx, u.RealmID); err != nil {
			return err
		}
	}
	if nameChanged {
		fx.Event(u.RealmID, everyone, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "full_name": u.FullName},
		})
	}
	for _, ev := range settingEvents {
		fx.Event(u.RealmID, []chatcore.UserID{u.ID}, ev)
	}
	if tzChanged {
		fx.Event(u.RealmID, everyone, map[string]any{
			"type": "realm_user", "op": "update",
			"person": map[string]any{"user_id": u.ID, "email": svc.APIEmail(u), "timezone": u.Settings.Timezone},
		})
	}
	return nil
}

// settingEvent is the user_settings update event for one changed setting.
func settingEvent(svc *chatcore.Service, name string, value any) map[string]any {
	ev := map[string]any{"type": "user_settings", "op": "update", "property": name, "value": value}
	if name == "default_language" {
		sets := svc.SettingValueSets()
		ev["language_name"] = sets.LanguageName(value.(string))
	}
	return ev
}

// updateSettingsBulk is the target_users branch of UpdateSettings: an
// administrator sets the requested settings for other users, one set-based
// store call per setting. phase2 is the deferred language/sound/batching
// validation error, reported after the permission checks.
func updateSettingsBulk(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, admin *chatcore.User, req *SettingsUpdate, phase2 error) error {
	if err := chatcore.Authorize(admin, chatcore.AccessAdmin); err != nil {
		return err
	}
	if req.Email != nil || req.NewPassword != nil {
		return errCannotChangeForOthers()
	}
	// Only settings the table lets administrators edit in bulk: never the
	// time zone, never Zulip's security-sensitive settings.
	changes := req.settingChanges()
	for _, c := range changes {
		if c.row.Who != settings.UserOrAdmins {
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
		if errors.Is(err, chatcore.ErrNotFound) || (err == nil && g.RealmID != admin.RealmID) {
			return chatcore.BadRequestf("Invalid user group ID: %d", id)
		}
		if err != nil {
			return err
		}
	}
	if len(t.UserIDs) > 0 {
		found, err := tx.Users(ctx, chatcore.UserFilter{RealmID: admin.RealmID, IDs: t.UserIDs})
		if err != nil {
			return err
		}
		known := make(map[chatcore.UserID]bool, len(found))
		for _, u := range found {
			known[u.ID] = true
		}
		for _, id := range t.UserIDs {
			if !known[id] {
				return chatcore.BadRequestf("Invalid user ID: %d", id)
			}
		}
	}
	for _, c := range changes {
		changed, err := tx.UpdateSettingBulk(ctx, chatcore.BulkSettingUpdate{
			RealmID:      admin.RealmID,
			UserIDs:      t.UserIDs,
			GroupIDs:     t.GroupIDs,
			Setting:      c.row.Name,
			Value:        c.value,
			SkipIfEdited: *t.SkipIfAlreadyEdited,
		})
		if err != nil {
			return err
		}
		if len(changed) == 0 {
			continue
		}
		if c.row.Name == "enable_drafts_synchronization" && c.value == false {
			if _, err := tx.DeleteDraftsOf(ctx, changed); err != nil {
				return err
			}
		}
		fx.Event(admin.RealmID, changed, settingEvent(svc, c.row.Name, c.value))
	}
	return nil
}

// settingChanges returns the settings u sets, in declaration order.
func (u *SettingsUpdate) settingChanges() []settingChange {
	var out []settingChange
	for i, f := range settingUpdates {
		if v := settings.Deref(f(u)); v != nil {
			out = append(out, settingChange{row: &settings.Table[i], value: v})
		}
	}
	return out
}

// settingChange is one requested setting value.
type settingChange struct {
	row   *settings.Row
	value any // bool, int or string
}

// SettingValue is one personal setting a [SettingsUpdate] sets: its wire
// name and its value (a bool, int or string).
type SettingValue struct {
	Name  string
	Value any
}

// SettingValues returns the personal settings u sets, in table order; the
// account fields (full name, e-mail, passwords) and TargetUsers are not
// settings and are left out.
func (u *SettingsUpdate) SettingValues() []SettingValue {
	changes := u.settingChanges()
	out := make([]SettingValue, len(changes))
	for i, c := range changes {
		out[i] = SettingValue{Name: c.row.Name, Value: c.value}
	}
	return out
}
