package wire_test

import (
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/wire"
	"github.com/matryer/is"
)

func TestDecodeParamsSettingsStrictness(t *testing.T) {
	tests := []struct {
		name, param, value string
		msg                string
	}{
		{"bool literal 1", "enter_sends", "1", "enter_sends is not a boolean"},
		{"bool quoted 1", "enter_sends", `"1"`, "enter_sends is not a boolean"},
		{"bool yes", "enter_sends", `"yes"`, "enter_sends is not a boolean"},
		{"bool Python True", "enter_sends", "True", "enter_sends is not valid JSON"},
		{"bool empty", "enter_sends", "", "enter_sends is not valid JSON"},
		{"bool null", "enter_sends", "null", "enter_sends is not a boolean"},
		{"bool trailing data", "enter_sends", "true false", "enter_sends is not valid JSON"},
		{"int float", "color_scheme", "1.5", "color_scheme is not an integer"},
		{"int float zero fraction", "color_scheme", "1.0", "color_scheme is not an integer"},
		{"int exponent", "color_scheme", "1e3", "color_scheme is not an integer"},
		{"int bool", "color_scheme", "true", "color_scheme is not an integer"},
		{"int quoted", "color_scheme", `"2"`, "color_scheme is not an integer"},
		{"int list", "color_scheme", "[2]", "color_scheme is not an integer"},
		{"int huge", "color_scheme", "99999999999999999999", "color_scheme is too large"},
		{"int huge negative", "color_scheme", "-99999999999999999999", "color_scheme is too small"},
		{"target_users not a dict", "target_users", "[1]", "target_users is not a dict"},
		{"target_users not JSON", "target_users", "{user_ids: [1]}", "target_users is not valid JSON"},
		{"user_ids not a list", "target_users", `{"user_ids": 1, "skip_if_already_edited": true}`, `target_users["user_ids"] is not a list`},
		{"user id not an integer", "target_users", `{"user_ids": ["a"], "skip_if_already_edited": true}`, `target_users["user_ids"][0] is not an integer`},
		{"second user id float", "target_users", `{"user_ids": [1, 2.5], "skip_if_already_edited": true}`, `target_users["user_ids"][1] is not an integer`},
		{"group ids null", "target_users", `{"group_ids": null, "skip_if_already_edited": true}`, `target_users["group_ids"] is not a list`},
		{"skip flag missing", "target_users", `{"user_ids": [1]}`, `target_users["skip_if_already_edited"] field is missing: Field required`},
		{"skip flag not a boolean", "target_users", `{"user_ids": [1], "skip_if_already_edited": 1}`, `target_users["skip_if_already_edited"] is not a boolean`},
		{"deep nesting", "target_users", strings.Repeat("[", 10000), "target_users is nested too deeply"},
		{"invalid UTF-8", "full_name", "Al\xffce", "full_name is not valid UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u accounts.SettingsUpdate
			_, err := wire.DecodeParams(url.Values{tt.param: {tt.value}}, &u)
			e := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
			is := is.New(t)
			is.Equal(e.Kind, chatcore.KindInvalid) // HTTP 400
		})
	}
}

func TestDecodeParamsSettingsValues(t *testing.T) {
	is := is.New(t)
	vals := url.Values{
		"full_name":        {`"Quoted" Name`},
		"default_language": {`"de"`},
		"enter_sends":      {"false", "true"}, // the last value counts
		"color_scheme":     {" 2 "},
		"target_users":     {`{"user_ids": [3, 4], "group_ids": [], "unknown": {"x": 1}, "skip_if_already_edited": false}`},
		"dense_mode":       {"true"},
		"zzz":              {"1"},
		"Abc":              {""},
	}
	var u accounts.SettingsUpdate
	ignored, err := wire.DecodeParams(vals, &u)
	is.NoErr(err)                                                  // all values are well-formed
	is.Equal(ignored, []string{"Abc", "dense_mode", "zzz"})        // unknown names, byte order
	is.Equal(*u.FullName, `"Quoted" Name`)                         // strings are taken literally
	is.Equal(*u.DefaultLanguage, `"de"`)                           // quotes included
	is.Equal(*u.EnterSends, true)                                  // last value wins
	is.Equal(*u.ColorScheme, 2)                                    // surrounding JSON whitespace is fine
	is.Equal(u.TargetUsers.UserIDs, []chatcore.UserID{3, 4})       // typed ids
	is.Equal(u.TargetUsers.GroupIDs, []chatcore.GroupID{})         // empty list
	is.Equal(*u.TargetUsers.SkipIfAlreadyEdited, false)            // explicit false is present
	is.True(u.Timezone == nil && u.NotificationSound == nil)       // absent parameters stay nil
	is.True(u.WebFontSizePx == nil && u.TwentyFourHourTime == nil) // absent parameters stay nil
}

// topicRequest exercises the options and types DecodeParams supports.
type topicRequest struct {
	StreamID *chatcore.StreamID `json:"stream_id" wire:"required"`
	Topic    *string            `json:"topic" wire:"alias=subject"`
	Note     *string            `json:"note" wire:"json"`
	Kind     *chatcore.MessageType
	Hidden   *string               `json:"-"`
	Level    *int8                 `json:"level"`
	Count    *uint16               `json:"count"`
	Ratio    *float64              `json:"ratio"`
	To       *[]chatcore.UserID    `json:"to"`
	Limits   *map[string]int       `json:"limits"`
	Narrow   *[]narrowTerm         `json:"narrow"`
	Raw      json.RawMessage       `json:"raw"`
	Anything any                   `json:"anything"`
	Pair     *[2]string            `json:"pair"`
	Type     *chatcore.MessageType `json:"type"`
	Nested   *struct {
		A *bool `json:"a"`
	} `json:"nested"`
	embeddedParams
}

type embeddedParams struct {
	Extra *bool `json:"extra"`
}

type narrowTerm struct {
	Operator string `json:"operator" wire:"required"`
	Operand  any    `json:"operand"`
	Negated  bool   `json:"negated"`
}

func TestDecodeParamsOptionsAndTypes(t *testing.T) {
	is := is.New(t)
	vals := url.Values{
		"stream_id": {"7"},
		"subject":   {"lunch"},
		"note":      {`"hi"`},
		"Kind":      {"x"}, // no json tag: not a parameter
		"-":         {"x"},
		"level":     {"-128"},
		"count":     {"65535"},
		"ratio":     {"0.25"},
		"to":        {"[1, 2]"},
		"limits":    {`{"a": 1, "b": 2}`},
		"narrow":    {`[{"operator": "channel", "operand": 3}, {"operator": "topic", "operand": "x", "negated": true}]`},
		"raw":       {` {"k": [1]} `},
		"anything":  {`{"x": [true, null]}`},
		"pair":      {`["a", "b"]`},
		"type":      {"stream"},
		"nested":    {`{"a": true}`},
		"extra":     {"true"},
	}
	var r topicRequest
	ignored, err := wire.DecodeParams(vals, &r)
	is.NoErr(err)                                                    // every value fits its type
	is.Equal(ignored, []string{"-", "Kind"})                         // untagged and "-" fields are not parameters
	is.Equal(*r.StreamID, chatcore.StreamID(7))                      // typed id
	is.Equal(*r.Topic, "lunch")                                      // alias fills the field
	is.Equal(*r.Note, "hi")                                          // wire:"json" decodes a string
	is.Equal(*r.Level, int8(-128))                                   // smallest int8
	is.Equal(*r.Count, uint16(65535))                                // largest uint16
	is.Equal(*r.Ratio, 0.25)                                         // float
	is.Equal(*r.To, []chatcore.UserID{1, 2})                         // list of typed ids
	is.Equal(*r.Limits, map[string]int{"a": 1, "b": 2})              // map
	is.Equal(len(*r.Narrow), 2)                                      // list of objects
	is.Equal((*r.Narrow)[1].Negated, true)                           // nested field
	is.Equal((*r.Narrow)[0].Operand, json.Number("3"))               // any keeps json.Number
	is.Equal(string(r.Raw), `{"k": [1]}`)                            // raw JSON, trimmed
	is.Equal(*r.Pair, [2]string{"a", "b"})                           // array
	is.Equal(*r.Type, chatcore.MessageTypeStream)                    // named string type is literal
	is.Equal(*r.Nested.A, true)                                      // anonymous nested struct
	is.Equal(*r.Extra, true)                                         // embeddedParams struct fields are flattened
	is.Equal(r.Anything, any(map[string]any{"x": []any{true, nil}})) // any
}

func TestDecodeParamsErrors(t *testing.T) {
	tests := []struct {
		name string
		vals url.Values
		code chatcore.Code
		msg  string
	}{
		{"missing required", url.Values{"topic": {"x"}}, chatcore.CodeRequestVariableMissing, "Missing 'stream_id' argument"},
		{"alias conflict", url.Values{"stream_id": {"1"}, "topic": {"a"}, "subject": {"a"}}, chatcore.CodeRequestConfusingVar,
			"Can't decide between 'topic' and 'subject' arguments"},
		{"int8 overflow", url.Values{"stream_id": {"1"}, "level": {"128"}}, chatcore.CodeBadRequest, "level is too large"},
		{"uint negative", url.Values{"stream_id": {"1"}, "count": {"-1"}}, chatcore.CodeBadRequest, "count is too small"},
		{"id overflow", url.Values{"stream_id": {"9223372036854775808"}}, chatcore.CodeBadRequest, "stream_id is too large"},
		{"json string option", url.Values{"stream_id": {"1"}, "note": {"hi"}}, chatcore.CodeBadRequest, "note is not valid JSON"},
		{"json string not a string", url.Values{"stream_id": {"1"}, "note": {"1"}}, chatcore.CodeBadRequest, "note is not a string"},
		{"float", url.Values{"stream_id": {"1"}, "ratio": {`"x"`}}, chatcore.CodeBadRequest, "ratio is not a number"},
		{"map value", url.Values{"stream_id": {"1"}, "limits": {`{"b": 1, "a": "x"}`}}, chatcore.CodeBadRequest, `limits["a"] is not an integer`},
		{"map not a dict", url.Values{"stream_id": {"1"}, "limits": {`[]`}}, chatcore.CodeBadRequest, "limits is not a dict"},
		{"nested required", url.Values{"stream_id": {"1"}, "narrow": {`[{"operand": 1}]`}}, chatcore.CodeBadRequest,
			`narrow[0]["operator"] field is missing: Field required`},
		{"array length", url.Values{"stream_id": {"1"}, "pair": {`["a"]`}}, chatcore.CodeBadRequest, "pair is not a list of 2 items"},
		{"invalid UTF-8 name", url.Values{"stream_id": {"1"}, "x\xff": {"1"}}, chatcore.CodeBadRequest, "Invalid UTF-8 in a parameter name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r topicRequest
			_, err := wire.DecodeParams(tt.vals, &r)
			e := chattest.WantError(t, err, tt.code, chatcore.KindInvalid, tt.msg)
			if tt.code == chatcore.CodeRequestVariableMissing {
				is := is.New(t)
				is.Equal(e.Data["var_name"], "stream_id") // var_name names the parameter
			}
		})
	}
}

func TestDecodeParamsProgrammingErrors(t *testing.T) {
	type badMap struct {
		M *map[int]int `json:"m"`
	}
	type badChan struct {
		C *chan int `json:"c"`
	}
	type badOption struct {
		A *int `json:"a" wire:"sometimes"`
	}
	for _, dst := range []any{nil, 3, topicRequest{}, (*topicRequest)(nil), &badMap{}, &badChan{}, &badOption{}} {
		is := is.New(t)
		_, err := wire.DecodeParams(url.Values{}, dst)
		is.True(err != nil) // refused
		_, isAPIError := errors.AsType[*chatcore.Error](err)
		is.True(!isAPIError) // a programming mistake, not a 400
	}
}

func FuzzDecodeParams(f *testing.F) {
	f.Add("target_users", `{"user_ids": [1], "skip_if_already_edited": true}`)
	f.Add("enter_sends", "true")
	f.Add("color_scheme", "1e9999")
	f.Add("narrow", `[{"operator": "x", "operand": [[[]]]}]`)
	f.Add("limits", `{"a": -0}`)
	f.Add("to", "[-0, 1]")
	f.Fuzz(func(t *testing.T, name, value string) {
		vals := url.Values{name: {value}, "stream_id": {"1"}}
		var u accounts.SettingsUpdate
		if _, err := wire.DecodeParams(vals, &u); err != nil {
			if _, ok := errors.AsType[*chatcore.Error](err); !ok {
				t.Fatalf("non-API error for %q=%q: %v", name, value, err)
			}
		} else {
			_ = u.Validate() // must not panic either
		}
		var r topicRequest
		if _, err := wire.DecodeParams(vals, &r); err != nil {
			if _, ok := errors.AsType[*chatcore.Error](err); !ok {
				t.Fatalf("non-API error for %q=%q: %v", name, value, err)
			}
		}
	})
}

func BenchmarkDecodeParamsSettings(b *testing.B) {
	vals := url.Values{
		"color_scheme":  {"2"},
		"enter_sends":   {"true"},
		"timezone":      {"Europe/Berlin"},
		"target_users":  {`{"user_ids": [1, 2, 3], "skip_if_already_edited": true}`},
		"emojiset":      {"text"},
		"unknown_thing": {"x"},
	}
	b.ReportAllocs()
	for b.Loop() {
		var u accounts.SettingsUpdate
		if _, err := wire.DecodeParams(vals, &u); err != nil {
			b.Fatal(err)
		}
	}
}
