package groups

import (
	"context"
	"fmt"

	"github.com/chatcore/chatcore"
)

// Realm permissions as the rules that use them consult them: Zulip's
// user_has_permission_for_group_setting over the realm's group settings.

// RealmSetting returns the definition of the realm group setting name
// (one of [RealmSettings]).
func RealmSetting(name string) (SettingDef, bool) { return settingDef(RealmSettings, name) }

// RealmAllows reports whether u is in the realm group setting name of their
// realm in p: its stored value, else Zulip's default. Guests are never in a
// setting that cannot be role:everyone ([SettingDef.NoEveryone]), whatever
// its value. name must be one of [RealmSettings].
func RealmAllows(p *chatcore.Permissions, u *chatcore.User, name string) bool {
	def, ok := RealmSetting(name)
	if !ok {
		panic(fmt.Sprintf("groups: %q is not a realm group setting", name))
	}
	if def.NoEveryone && u.Role == chatcore.RoleGuest {
		return false
	}
	return p.Allows(u, chatcore.SettingOfRealm, int64(u.RealmID), name, def.Default)
}

// HasRealmPermission is [RealmAllows] with the realm's permissions read in
// tx (two reads).
func HasRealmPermission(ctx context.Context, tx chatcore.Tx, u *chatcore.User, name string) (bool, error) {
	p, err := chatcore.LoadPermissions(ctx, tx, u.RealmID)
	if err != nil {
		return false, err
	}
	return RealmAllows(p, u, name), nil
}

// RequireRealmPermission is [HasRealmPermission] as a refusal: BAD_REQUEST
// "Insufficient permission" when u is not in the setting.
func RequireRealmPermission(ctx context.Context, tx chatcore.Tx, u *chatcore.User, name string) error {
	ok, err := HasRealmPermission(ctx, tx, u, name)
	if err == nil && !ok {
		err = chatcore.BadRequest("Insufficient permission")
	}
	return err
}
