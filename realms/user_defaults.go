package realms

import (
	"context"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/settings"
)

// NotUserDefaults are the personal settings PATCH /settings takes that
// Zulip's PATCH /realm/user_settings_defaults does not: the time zone and
// language (a new account takes the realm's language, realm_default_language)
// and the e-mails Zulip leaves to each user (login and marketing e-mails).
// Transports report them as ignored parameters; [UpdateUserDefaults]
// leaves them alone.
var NotUserDefaults = []string{"default_language", "enable_login_emails", "enable_marketing_emails", "timezone"}

// UserDefaults returns the realm's defaults for new accounts as the
// realm_user_settings_defaults section of POST /register shows them: every
// personal setting but the time zone, by wire name, default_language being
// the realm's language.
func UserDefaults(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID) (map[string]any, error) {
	r, err := tx.Realm(ctx, realm)
	if err != nil {
		return nil, err
	}
	s, err := tx.RealmUserDefaults(ctx, realm)
	if err != nil {
		return nil, err
	}
	if r.DefaultLanguage != "" {
		s.DefaultLanguage = r.DefaultLanguage
	}
	out := make(map[string]any, len(settings.Table))
	for _, name := range settings.Names() {
		if name == "timezone" {
			continue
		}
		out[name], _ = s.Value(name)
	}
	return out, nil
}

// UpdateUserDefaults changes the settings the realm's new accounts start
// with (PATCH /realm/user_settings_defaults). Only administrators may
// ("Must be an organization administrator"). Each value is checked as PATCH
// /settings checks it ([accounts.ValidateSettings], with Zulip's errors);
// the account fields of req, TargetUsers and [NotUserDefaults] are left
// alone. A request that changes nothing succeeds. Each changed setting
// publishes a realm_user_settings_defaults update event (property, value)
// to the realm's active users; existing accounts keep their settings.
func UpdateUserDefaults(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req accounts.SettingsUpdate) error {
	req.FullName, req.Email, req.OldPassword, req.NewPassword, req.TargetUsers = nil, nil, nil, nil, nil
	req.Timezone, req.DefaultLanguage, req.EnableLoginEmails, req.EnableMarketingEmails = nil, nil, nil, nil
	if err := svc.View(ctx, func(tx chatcore.Tx) error {
		_, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		return err
	}); err != nil {
		return err
	}
	if err := accounts.ValidateSettings(svc, &req); err != nil {
		return err
	}
	values := req.SettingValues()
	if len(values) == 0 {
		return nil
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		u, err := chatcore.AuthorizedActor(ctx, tx, actorID, chatcore.AccessAdmin)
		if err != nil {
			return err
		}
		s, err := tx.RealmUserDefaults(ctx, u.RealmID)
		if err != nil {
			return err
		}
		var changed []accounts.SettingValue
		for _, v := range values {
			if cur, _ := s.Value(v.Name); cur == v.Value {
				continue
			}
			if err := s.Set(v.Name, v.Value); err != nil {
				return err
			}
			changed = append(changed, v)
		}
		if len(changed) == 0 {
			return nil
		}
		if err := tx.PutRealmUserDefaults(ctx, u.RealmID, &s); err != nil {
			return err
		}
		audience, err := chatcore.ActiveUserIDs(ctx, tx, u.RealmID)
		if err != nil {
			return err
		}
		for _, v := range changed {
			fx.Event(u.RealmID, audience, map[string]any{"type": "realm_user_settings_defaults", "op": "update",
				"property": v.Name, "value": v.Value})
		}
		return nil
	})
}
