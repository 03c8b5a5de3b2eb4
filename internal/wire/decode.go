// Package wire decodes Zulip's wire parameters (the query string and form
// body of a request, as url.Values) into request structs, with the strictness
// of Zulip's typed endpoints. It is the transport's half of a request: the
// structs it fills are the Service's, and its errors are [*chatcore.Error]
// values with Zulip's texts.
package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
)

// maxParamJSONDepth bounds the nesting of JSON-encoded parameter values.
// Zulip's parameters nest two or three levels; the bound keeps hostile input
// from costing deep recursion.
const maxParamJSONDepth = 32

// DecodeParams decodes Zulip wire parameters into dst, a non-nil pointer to a
// request struct, and returns the names of the parameters no field reads,
// sorted by byte order (Zulip's ignored_parameters_unsupported). It is what an
// HTTP adapter calls for every endpoint, after merging the query string and the
// body; for a name given more than once, the last value counts.
//
// # Fields
//
// Each exported field with a json tag is one parameter named by the tag (a tag
// of "-", and fields without a json tag, are skipped; anonymous struct fields
// without a tag are flattened). Fields should be pointers (or slices or maps),
// so absent parameters stay nil. The `wire` tag takes comma-separated options:
//
//   - required: an absent parameter is REQUEST_VARIABLE_MISSING
//     "Missing '<name>' argument" (with var_name). Inside a JSON object, a
//     missing required field is BAD_REQUEST
//     `<name>["<field>"] field is missing: Field required`.
//   - alias=<other>: <other> is accepted as another name of the parameter;
//     sending both is REQUEST_CONFUSING_VAR
//     "Can't decide between '<name>' and '<other>' arguments".
//   - json: a string field is JSON-decoded too (its value must be a JSON string).
//
// # Values
//
// A string-kinded field (*string, or a named string type) takes the value
// literally: sending "\"de\"" sets the three characters with the quotes. Every
// other type is JSON-decoded and checked strictly, as Zulip's Json[...]
// parameters are: booleans must be the literals true or false, integers must
// be JSON integers that fit the field's type, lists must be arrays and objects
// must be objects (decoded field by field through their own json tags; unknown
// keys are ignored), and null is never a valid value. Supported field types are
// bool, all integer kinds (so typed ids such as *chatcore.UserID work), float32/64,
// string, slices and arrays of these, maps with string keys, structs, pointers
// to any of them, any (decoded as by encoding/json with json.Number), and
// json.RawMessage (kept verbatim after the syntax check).
//
// # Errors
//
// Errors are [*chatcore.Error] values of kind [chatcore.KindInvalid] with Zulip's texts:
// "<name> is not valid JSON", "<name> is not a boolean", "<name> is not an
// integer", "<name> is not a number", "<name> is not a string", "<name> is not
// a list", "<name> is not a dict", "<name> is too small" / "is too large" (an
// integer outside the field type's range), with nested positions rendered like
// `target_users["user_ids"][0]`. Values that are not valid UTF-8 and JSON
// nested deeper than 32 levels are refused with a 400 as well. The first
// failing field in struct order is reported. A dst that is not a non-nil
// pointer to a struct, or a field type DecodeParams cannot fill, yields a
// plain (non-*chatcore.Error) error: a programming mistake, not bad input.
//
// DecodeParams never panics on any params, and is safe for concurrent use.
func DecodeParams(params url.Values, dst any) (ignored []string, err error) {
	rv := reflect.ValueOf(dst)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("wire: DecodeParams: dst must be a non-nil pointer to a struct, got %T", dst)
	}
	plan, err := planFor(rv.Elem().Type())
	if err != nil {
		return nil, err
	}
	for name := range params {
		if !utf8.ValidString(name) {
			return nil, chatcore.BadRequest("Invalid UTF-8 in a parameter name")
		}
		if _, ok := plan.byName[name]; !ok {
			ignored = append(ignored, name)
		}
	}
	slices.Sort(ignored)

	root := rv.Elem()
	for i := range plan.fields {
		f := &plan.fields[i]
		name, raw, present, err := f.lookup(params)
		if err != nil {
			return nil, err
		}
		if !present {
			if f.required {
				return nil, chatcore.MissingArgument(f.name)
			}
			continue
		}
		v, err := decodeParam(name, raw, f)
		if err != nil {
			return nil, err
		}
		root.FieldByIndex(f.index).Set(v)
	}
	return ignored, nil
}

// paramField is one decodable field of a request struct (or of a JSON object
// nested in one).
type paramField struct {
	name     string
	aliases  []string
	index    []int
	typ      reflect.Type
	required bool
	literal  bool // a string taken as sent, not JSON-decoded
}

// lookup returns the name and last value under which the parameter was sent.
func (f *paramField) lookup(params url.Values) (name, value string, present bool, err error) {
	if vs, ok := params[f.name]; ok && len(vs) > 0 {
		name, value, present = f.name, vs[len(vs)-1], true
	}
	for _, a := range f.aliases {
		vs, ok := params[a]
		if !ok || len(vs) == 0 {
			continue
		}
		if present {
			return "", "", false, &chatcore.Error{
				Code: chatcore.CodeRequestConfusingVar, Kind: chatcore.KindInvalid,
				Msg:  fmt.Sprintf("Can't decide between '%s' and '%s' arguments", name, a),
				Data: map[string]any{"var_name1": name, "var_name2": a},
			}
		}
		name, value, present = a, vs[len(vs)-1], true
	}
	return name, value, present, nil
}

// paramPlan is the cached decoding plan of a struct type.
type paramPlan struct {
	fields []paramField
	byName map[string]int // names and aliases → index in fields
}

var paramPlans sync.Map // reflect.Type → *paramPlan

var (
	paramRawMessageType = reflect.TypeFor[json.RawMessage]()
	paramAnyType        = reflect.TypeFor[any]()
)

// planFor returns the decoding plan of struct type t, building and caching it
// on first use.
func planFor(t reflect.Type) (*paramPlan, error) {
	if p, ok := paramPlans.Load(t); ok {
		return p.(*paramPlan), nil
	}
	p := &paramPlan{byName: map[string]int{}}
	if err := p.add(t, nil, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	paramPlans.Store(t, p)
	return p, nil
}

// add appends the fields of struct type t (at index path prefix) to p.
func (p *paramPlan) add(t reflect.Type, prefix []int, seen map[reflect.Type]bool) error {
	if seen[t] {
		return nil
	}
	seen[t] = true
	for i := range t.NumField() {
		sf := t.Field(i)
		index := append(slices.Clone(prefix), i)
		tag, hasTag := sf.Tag.Lookup("json")
		name, _, _ := strings.Cut(tag, ",")
		if sf.Anonymous && name == "" {
			// Flatten embedded structs (not pointers: a nil one cannot be filled).
			if sf.Type.Kind() == reflect.Struct {
				if err := p.add(sf.Type, index, seen); err != nil {
					return err
				}
			}
			continue
		}
		if !sf.IsExported() || !hasTag || name == "-" || name == "" {
			continue
		}
		f := paramField{name: name, index: index, typ: sf.Type}
		forceJSON := false
		for opt := range strings.SplitSeq(sf.Tag.Get("wire"), ",") {
			switch opt = strings.TrimSpace(opt); {
			case opt == "":
			case opt == "required":
				f.required = true
			case opt == "json":
				forceJSON = true
			case strings.HasPrefix(opt, "alias="):
				f.aliases = append(f.aliases, strings.TrimPrefix(opt, "alias="))
			default:
				return fmt.Errorf("wire: DecodeParams: %s.%s: unknown wire option %q", t, sf.Name, opt)
			}
		}
		f.literal = isStringKind(sf.Type) && !forceJSON
		if err := checkDecodable(sf.Type, map[reflect.Type]bool{}); err != nil {
			return fmt.Errorf("wire: DecodeParams: %s.%s: %w", t, sf.Name, err)
		}
		for _, n := range append([]string{f.name}, f.aliases...) {
			if _, dup := p.byName[n]; dup {
				return fmt.Errorf("wire: DecodeParams: %s: parameter %q declared twice", t, n)
			}
			p.byName[n] = len(p.fields)
		}
		p.fields = append(p.fields, f)
	}
	return nil
}

// isStringKind reports whether t is a string type or a pointer to one.
func isStringKind(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.String
}

// checkDecodable reports an error for types decodeValue cannot fill.
func checkDecodable(t reflect.Type, seen map[reflect.Type]bool) error {
	if t == paramRawMessageType || t == paramAnyType {
		return nil
	}
	switch t.Kind() {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return nil
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return checkDecodable(t.Elem(), seen)
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return fmt.Errorf("map key type %s is not a string type", t.Key())
		}
		return checkDecodable(t.Elem(), seen)
	case reflect.Struct:
		if seen[t] {
			return nil
		}
		seen[t] = true
		for sf := range t.Fields() {
			name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
			if !sf.IsExported() || name == "" || name == "-" {
				continue
			}
			if err := checkDecodable(sf.Type, seen); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unsupported type %s", t)
}

// decodeParam turns the raw value of one top-level parameter into a value of
// the field's type.
func decodeParam(name, raw string, f *paramField) (reflect.Value, error) {
	if !utf8.ValidString(raw) {
		return reflect.Value{}, chatcore.BadRequestf("%s is not valid UTF-8", name)
	}
	if f.literal {
		v := reflect.New(derefType(f.typ)).Elem()
		v.SetString(raw)
		return wrapPointer(v, f.typ), nil
	}
	if jsonDepth(raw) > maxParamJSONDepth {
		return reflect.Value{}, chatcore.BadRequestf("%s is nested too deeply", name)
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return reflect.Value{}, chatcore.BadRequestf("%s is not valid JSON", name)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) { // trailing data
		return reflect.Value{}, chatcore.BadRequestf("%s is not valid JSON", name)
	}
	return decodeValue(doc, f.typ, name, raw)
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// wrapPointer returns v (of type derefType(t)) as a value of type t, adding
// pointers as needed.
func wrapPointer(v reflect.Value, t reflect.Type) reflect.Value {
	if t.Kind() != reflect.Pointer {
		return v
	}
	p := reflect.New(t.Elem())
	p.Elem().Set(wrapPointer(v, t.Elem()))
	return p
}

// jsonDepth returns the deepest nesting of arrays and objects in s, scanning
// bytes outside strings; it is cheap and tolerates invalid JSON.
func jsonDepth(s string) int {
	depth, maxDepth := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			maxDepth = max(maxDepth, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return maxDepth
}

// typeError is the Zulip message for a value that is not of type t.
func typeError(path string, t reflect.Type) *chatcore.Error {
	t = derefType(t)
	switch t.Kind() {
	case reflect.Bool:
		return chatcore.BadRequestf("%s is not a boolean", path)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return chatcore.BadRequestf("%s is not an integer", path)
	case reflect.Float32, reflect.Float64:
		return chatcore.BadRequestf("%s is not a number", path)
	case reflect.String:
		return chatcore.BadRequestf("%s is not a string", path)
	case reflect.Slice, reflect.Array:
		return chatcore.BadRequestf("%s is not a list", path)
	}
	return chatcore.BadRequestf("%s is not a dict", path)
}

// decodeValue converts doc, a value decoded by encoding/json with UseNumber,
// into a value of type t; path names the position for error messages. raw is
// the JSON text of doc when doc is a whole parameter (for json.RawMessage).
func decodeValue(doc any, t reflect.Type, path, raw string) (reflect.Value, error) {
	switch {
	case t == paramRawMessageType:
		if raw == "" {
			b, err := json.Marshal(doc)
			if err != nil {
				return reflect.Value{}, chatcore.BadRequestf("%s is not valid JSON", path)
			}
			raw = string(b)
		}
		return reflect.ValueOf(json.RawMessage(bytes.TrimSpace([]byte(raw)))), nil
	case t == paramAnyType:
		v := reflect.New(t).Elem()
		if doc != nil {
			v.Set(reflect.ValueOf(doc))
		}
		return v, nil
	}
	if doc == nil {
		return reflect.Value{}, typeError(path, t)
	}
	switch t.Kind() {
	case reflect.Pointer:
		elem, err := decodeValue(doc, t.Elem(), path, raw)
		if err != nil {
			return reflect.Value{}, err
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(elem)
		return p, nil
	case reflect.Bool:
		b, ok := doc.(bool)
		if !ok {
			return reflect.Value{}, typeError(path, t)
		}
		return reflect.ValueOf(b).Convert(t), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, ok := doc.(json.Number)
		if !ok || strings.ContainsAny(string(n), ".eE") {
			return reflect.Value{}, typeError(path, t)
		}
		v := reflect.New(t).Elem()
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || v.OverflowInt(i) {
			if strings.HasPrefix(string(n), "-") {
				return reflect.Value{}, chatcore.BadRequestf("%s is too small", path)
			}
			return reflect.Value{}, chatcore.BadRequestf("%s is too large", path)
		}
		v.SetInt(i)
		return v, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, ok := doc.(json.Number)
		if !ok || strings.ContainsAny(string(n), ".eE") {
			return reflect.Value{}, typeError(path, t)
		}
		if strings.HasPrefix(string(n), "-") {
			if string(n) == "-0" {
				return reflect.New(t).Elem(), nil
			}
			return reflect.Value{}, chatcore.BadRequestf("%s is too small", path)
		}
		v := reflect.New(t).Elem()
		u, err := strconv.ParseUint(string(n), 10, 64)
		if err != nil || v.OverflowUint(u) {
			return reflect.Value{}, chatcore.BadRequestf("%s is too large", path)
		}
		v.SetUint(u)
		return v, nil
	case reflect.Float32, reflect.Float64:
		n, ok := doc.(json.Number)
		if !ok {
			return reflect.Value{}, typeError(path, t)
		}
		f, err := strconv.ParseFloat(string(n), t.Bits())
		if err != nil {
			if strings.HasPrefix(string(n), "-") {
				return reflect.Value{}, chatcore.BadRequestf("%s is too small", path)
			}
			return reflect.Value{}, chatcore.BadRequestf("%s is too large", path)
		}
		return reflect.ValueOf(f).Convert(t), nil
	case reflect.String:
		s, ok := doc.(string)
		if !ok {
			return reflect.Value{}, typeError(path, t)
		}
		return reflect.ValueOf(s).Convert(t), nil
	case reflect.Slice, reflect.Array:
		list, ok := doc.([]any)
		if !ok {
			return reflect.Value{}, typeError(path, t)
		}
		var v reflect.Value
		if t.Kind() == reflect.Slice {
			v = reflect.MakeSlice(t, len(list), len(list))
		} else {
			if len(list) != t.Len() {
				return reflect.Value{}, chatcore.BadRequestf("%s is not a list of %d items", path, t.Len())
			}
			v = reflect.New(t).Elem()
		}
		for i, item := range list {
			ev, err := decodeValue(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), "")
			if err != nil {
				return reflect.Value{}, err
			}
			v.Index(i).Set(ev)
		}
		return v, nil
	case reflect.Map:
		obj, ok := doc.(map[string]any)
		if !ok {
			return reflect.Value{}, typeError(path, t)
		}
		v := reflect.MakeMapWithSize(t, len(obj))
		keys := make([]string, 0, len(obj))
		for k := range obj {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the first error is deterministic
		for _, k := range keys {
			ev, err := decodeValue(obj[k], t.Elem(), fmt.Sprintf("%s[%q]", path, k), "")
			if err != nil {
				return reflect.Value{}, err
			}
			v.SetMapIndex(reflect.ValueOf(k).Convert(t.Key()), ev)
		}
		return v, nil
	case reflect.Struct:
		obj, ok := doc.(map[string]any)
		if !ok {
			return reflect.Value{}, typeError(path, t)
		}
		return decodeObject(obj, t, path)
	}
	return reflect.Value{}, fmt.Errorf("wire: DecodeParams: unsupported type %s", t)
}

// decodeObject fills a struct of type t from a JSON object, field by field
// through the struct's json tags; unknown keys are ignored.
func decodeObject(obj map[string]any, t reflect.Type, path string) (reflect.Value, error) {
	v := reflect.New(t).Elem()
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "" || name == "-" {
			continue
		}
		fieldPath := fmt.Sprintf("%s[%q]", path, name)
		item, ok := obj[name]
		if !ok {
			if slices.Contains(strings.Split(sf.Tag.Get("wire"), ","), "required") {
				return reflect.Value{}, chatcore.BadRequestf("%s field is missing: Field required", fieldPath)
			}
			continue
		}
		fv, err := decodeValue(item, sf.Type, fieldPath, "")
		if err != nil {
			return reflect.Value{}, err
		}
		v.Field(i).Set(fv)
	}
	return v, nil
}
