package chatcore

import "github.com/chatcore/chatcore/settings"

// The personal settings are declared once, in package settings (settings.Table);
// the setting fields of SettingsUpdate and settingUpdates are generated from
// that table into settings_gen.go.

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
