package store

import "github.com/chatcore/chatcore/settings"

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
