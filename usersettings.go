package chatcore

import "github.com/chatcore/chatcore/settings"

// The personal settings are declared once, in package settings (settings.Table);
// the setting fields of SettingsUpdate and settingUpdates are generated from
// that table into settings_gen.go.

// Settings holds a user's personal settings, named and typed as on the wire;
// see [settings.Settings].
type Settings = settings.Settings

// DefaultSettings returns Zulip's defaults for a new user.
func DefaultSettings() Settings { return settings.Default() }

// SettingNames returns the wire names of all settings in declaration order.
// The slice is a fresh copy.
func SettingNames() []string { return settings.Names() }

// IsSetting reports whether name is the wire name of a setting.
func IsSetting(name string) bool { return settings.Index(name) >= 0 }

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
