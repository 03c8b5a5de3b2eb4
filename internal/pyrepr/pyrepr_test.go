package pyrepr_test

import (
	"encoding/json"
	"testing"

	"github.com/chatcore/chatcore/internal/pyrepr"
	"github.com/matryer/is"
)

func TestStr(t *testing.T) {
	tests := []struct {
		name, raw, want string
	}{
		{"string as it is", `"it's"`, "it's"},
		{"empty string", `""`, ""},
		{"null", `null`, "None"},
		{"true", `true`, "True"},
		{"false", `false`, "False"},
		{"float", `1.0`, "1.0"},
		{"big float", `1e16`, "1e+16"},
		{"small float", `0.00001`, "1e-05"},
		{"float in fixed notation", `123.5e2`, "12350.0"},
		{"integer", `-7`, "-7"},
		{"integer beyond int64", `123456789012345678901234567890`, "123456789012345678901234567890"},
		{"float overflow", `1e400`, "inf"},
		{"negative float overflow", `-1e400`, "-inf"},
		{"list", `[1, null, "it's", "x"]`, `[1, None, "it's", 'x']`},
		{"empty list", `[]`, "[]"},
		{"object keeps key order", `{"z": 1, "a": {"b": false}}`, "{'z': 1, 'a': {'b': False}}"},
		{"repeated key: first position, last value", `{"a": 1, "b": 2, "a": 3}`, "{'a': 3, 'b': 2}"},
		{"string escapes inside a list", "[\"tab\\there\\n\", \"\\u0001\\u00e9\\u200b\\ud83d\\ude00\"]", `['tab\there\n', '\x01é\u200b😀']`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(pyrepr.Str(json.RawMessage(tt.raw)), tt.want) // Python's str() of the decoded value
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "not json", `'not json'`},
		{"single quote switches to double", `["it's"]`, `'["it\'s"]'`},
		{"only a single quote", "it's", `"it's"`},
		{"backslash", `a\b`, `'a\\b'`},
		{"control characters", "a\nb\rc\td\x00", `'a\nb\rc\td\x00'`},
		{"invalid UTF-8 read as U+FFFD", "\xff", `'` + "\ufffd" + `'`},
		{"non-printable BMP and astral", "\u2028\U000e0001", `'\u2028\U000e0001'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(pyrepr.String(tt.in), tt.want) // Python's repr() of a str
		})
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"JSON with a newline and a high byte", "{\"msg\": \"boom\"}\n\xff", `b'{"msg": "boom"}\n\xff'`},
		{"empty", "", `b''`},
		{"single quote", "it's", `b"it's"`},
		{"both quotes", `it's "x"`, `b'it\'s "x"'`},
		{"UTF-8 is bytes", "é", `b'\xc3\xa9'`},
		{"DEL and tab", "\x7f\t", `b'\x7f\t'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			is.Equal(pyrepr.Bytes([]byte(tt.in)), tt.want) // Python's repr() of bytes
		})
	}
}

func TestTruthy(t *testing.T) {
	tests := []struct {
		raw  string
		want bool
	}{
		{`null`, false}, {`false`, false}, {`true`, true}, {`0`, false}, {`0.5`, true},
		{`""`, false}, {`"no"`, true}, {`[]`, false}, {`[0]`, true}, {`{}`, false}, {`{"a": null}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			is := is.New(t)
			var v any
			is.NoErr(json.Unmarshal([]byte(tt.raw), &v)) // JSON
			is.Equal(pyrepr.Truthy(v), tt.want)          // Python's bool() of the value
		})
	}
}

func TestJSONString(t *testing.T) {
	tests := []struct {
		raw  string
		want string
		ok   bool
	}{
		{`"text"`, "text", true},
		{` "a\nb" `, "a\nb", true}, // white space around the value is allowed
		{`""`, "", true},
		{`null`, "", false},
		{`12`, "", false},
		{`["x"]`, "", false},
		{`"unterminated`, "", false},
		{``, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			is := is.New(t)
			got, ok := pyrepr.JSONString([]byte(tt.raw))
			is.Equal(ok, tt.ok)    // only a JSON string is one
			is.Equal(got, tt.want) // its decoded value
		})
	}
}
