package sqlite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// A user row has some 85 columns, most of them settings. The driver costs
// per result column of every query (the column's name and declared type are
// copied into Go strings each time), so user reads fetch the settings as one
// column, json_array(...) of the setting columns in SettingNames order, and
// settingsCol decodes it into the Settings fields.

// settingsCol scans the json_array of the setting columns into fields (the
// pointers of Settings.Fields, in the same order).
type settingsCol struct{ fields []any }

func (c settingsCol) Scan(v any) error {
	var b []byte
	switch v := v.(type) {
	case string:
		b = []byte(v)
	case []byte:
		b = v
	default:
		return fmt.Errorf("settings column holds %T", v)
	}
	return decodeSettings(b, c.fields)
}

var errSettingsJSON = errors.New("sqlite: malformed settings array")

// decodeSettings decodes b, a JSON array of integers (also the booleans, as
// SQLite stores them) and strings, one per field, into fields (*bool, *int or
// *string).
func decodeSettings(b []byte, fields []any) error {
	i := 0
	expect := func(c byte) bool {
		if i < len(b) && b[i] == c {
			i++
			return true
		}
		return false
	}
	if !expect('[') {
		return errSettingsJSON
	}
	for k, f := range fields {
		if k > 0 && !expect(',') {
			return errSettingsJSON
		}
		switch p := f.(type) {
		case *bool, *int:
			j := i
			for j < len(b) && (b[j] == '-' || '0' <= b[j] && b[j] <= '9') {
				j++
			}
			n, err := strconv.ParseInt(string(b[i:j]), 10, 64)
			if err != nil {
				return fmt.Errorf("%w: setting %d: %w", errSettingsJSON, k, err)
			}
			i = j
			if bp, ok := p.(*bool); ok {
				*bp = n != 0
			} else {
				*p.(*int) = int(n)
			}
		case *string:
			if !expect('"') {
				return errSettingsJSON
			}
			j, plain := i, true
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					plain = false
					j++ // the escaped character, possibly a quote
				}
				j++
			}
			if j >= len(b) {
				return errSettingsJSON
			}
			if plain {
				*p = string(b[i:j])
			} else if err := json.Unmarshal(b[i-1:j+1], p); err != nil {
				return fmt.Errorf("%w: setting %d: %w", errSettingsJSON, k, err)
			}
			i = j + 1
		default:
			return fmt.Errorf("sqlite: setting field of type %T", f)
		}
	}
	if !expect(']') || i != len(b) {
		return errSettingsJSON
	}
	return nil
}

// userSettingsField is the select expression of the settings column: the
// setting columns, quoted, in SettingNames order. It is named: the driver
// copies every result column's name on every query, and an unnamed
// expression's name is its whole text, some 1.7 KB here.
func userSettingsField(quoted []string) string {
	out := "json_array("
	for i, q := range quoted {
		if i > 0 {
			out += ", "
		}
		out += q
	}
	return out + ") AS settings_json"
}
