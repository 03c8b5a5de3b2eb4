package chatcore

import (
	"fmt"
	"reflect"
)

// The typed code of the personal settings (Settings, DefaultSettings, the
// setting fields of SettingsUpdate, Settings.Value, Settings.Set and
// Settings.Fields) is generated into settings_gen.go from settingsTable.

// SettingNames returns the wire names of all settings in declaration order.
// The slice is a fresh copy.
func SettingNames() []string {
	return append([]string(nil), settingNames[:]...)
}

// IsSetting reports whether name is the wire name of a setting.
func IsSetting(name string) bool {
	return settingIndex(name) >= 0
}

// settingChange is one requested setting value.
type settingChange struct {
	index int // in settingsTable
	name  string
	value any // bool, int or string
}

// row returns the table row of the changed setting.
func (c settingChange) row() *settingRow { return &settingsTable[c.index] }

// setBool assigns v to the bool setting *dst (Settings.Set).
func setBool(dst *bool, name string, v any) error {
	if b, ok := v.(bool); ok {
		*dst = b
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Bool { // a named bool type
		*dst = rv.Bool()
		return nil
	}
	return errCannotAssign(name, v)
}

// setInt assigns v, of any signed integer type, to the int setting *dst
// (Settings.Set).
func setInt(dst *int, name string, v any) error {
	if n, ok := v.(int); ok {
		*dst = n
		return nil
	}
	if rv := reflect.ValueOf(v); rv.CanInt() {
		*dst = int(rv.Int())
		return nil
	}
	return errCannotAssign(name, v)
}

// setString assigns v to the string setting *dst (Settings.Set).
func setString(dst *string, name string, v any) error {
	if s, ok := v.(string); ok {
		*dst = s
		return nil
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.String { // a named string type
		*dst = rv.String()
		return nil
	}
	return errCannotAssign(name, v)
}

func errCannotAssign(name string, v any) error {
	return fmt.Errorf("chatcore: setting %q: cannot assign %T", name, v)
}
