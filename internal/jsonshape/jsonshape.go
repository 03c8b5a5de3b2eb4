// Package jsonshape checks that a JSON document has the shape of a Go type
// and reports the first place where it does not by its JSON path
// ("realms[0].users[1].id: unknown key"), which encoding/json cannot do: it
// names unknown fields without their path and accepts duplicate keys.
package jsonshape

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// Check reads the one JSON value in data and reports the first place where it
// does not fit the Go type t. It checks JSON syntax (giving the line and
// column of an error), that every object key names a field of the struct
// (by the name in its json tag) or that the value is a map, that no object
// repeats a key, that each value has the JSON type its field needs
// (booleans, strings, integers that fit int64, lists for slices, objects for
// structs and maps), that null appears only where a pointer, slice or map
// may be nil (never at the top level), and that nothing follows the value.
// A json.RawMessage accepts any value. Supported kinds are structs, maps,
// slices, pointers to them, bool, string, int and int64; any other kind is
// reported as unsupported.
//
// The error's message starts with the JSON path of the offending value, or
// with root for the top-level value, followed by ": " and the problem, as in
// "realms[0].users[1].id: must be an integer, not a string". Check decodes
// nothing: on success the caller decodes data with encoding/json.
func Check(data []byte, t reflect.Type, root string) error {
	w := walker{dec: json.NewDecoder(bytes.NewReader(data)), data: data, root: root}
	w.dec.UseNumber()
	if err := w.value(t, ""); err != nil {
		return err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: unexpected data after the top-level %s", root, kindName(t))
	}
	return nil
}

// kindName names the JSON type a value of t is written as.
func kindName(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice:
		return "list"
	}
	return "value"
}

// walker walks a JSON document token by token against a Go type, so
// that unknown keys and type mismatches are reported with their JSON path
// (encoding/json reports unknown fields without one).
type walker struct {
	dec  *json.Decoder
	data []byte
	root string // names the top-level value in messages
	// s is the state of a streaming walk (see Stream); nil for Check.
	s *streaming
}

// where names the value at path in a message.
func (w *walker) where(path string) string {
	if path == "" {
		return w.root
	}
	return path
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// value reads one JSON value that should decode into t.
func (w *walker) value(t reflect.Type, path string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return w.syntaxError(path, err)
	}
	return w.walk(tok, t, path)
}

// syntaxError describes a decoding error at path, with the line and column
// of a syntax error.
func (w *walker) syntaxError(path string, err error) error {
	where := w.where(path)
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%s: unexpected end of JSON", where)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := w.lineCol(se.Offset)
		return fmt.Errorf("%s: invalid JSON at line %d, column %d: %s", where, line, col, strings.TrimPrefix(se.Error(), "json: "))
	}
	return fmt.Errorf("%s: invalid JSON: %s", where, strings.TrimPrefix(err.Error(), "json: "))
}

// lineCol turns a byte offset of the document into 1-based line and column
// numbers.
func (w *walker) lineCol(off int64) (int, int) {
	if w.s != nil {
		return w.s.rec.lineCol(off)
	}
	return lineCol(w.data, off)
}

// lineCol turns a byte offset into 1-based line and column numbers.
func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line := bytes.Count(before, []byte("\n")) + 1
	col := int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// jsonKind names the JSON type of a value by its first token.
func jsonKind(tok json.Token) string {
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "a list"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case nil:
		return "null"
	}
	return "a value"
}

// walk checks the value whose first token is tok against t.
func (w *walker) walk(tok json.Token, t reflect.Type, path string) error {
	if t == rawMessageType {
		return w.skip(tok, path)
	}
	where := w.where(path)
	if tok == nil {
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if path != "" {
				return nil
			}
		}
		return fmt.Errorf("%s: must not be null", where)
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	mismatch := func(want string) error {
		if err := w.skip(tok, path); err != nil {
			return err
		}
		return fmt.Errorf("%s: must be %s, not %s", where, want, jsonKind(tok))
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			return mismatch("an object")
		}
		seen := map[string]bool{}
		for w.dec.More() {
			kt, err := w.dec.Token()
			if err != nil {
				return w.syntaxError(path, err)
			}
			key := kt.(string)
			p := key
			if path != "" {
				p = path + "." + key
			}
			if seen[key] {
				return fmt.Errorf("%s: duplicate key", p)
			}
			seen[key] = true
			var vt reflect.Type // the member's type
			if t.Kind() == reflect.Map {
				vt = t.Elem()
			} else if ft, ok := jsonField(t, key); ok {
				vt = ft
			} else {
				return fmt.Errorf("%s: unknown key", p)
			}
			if err := w.member(vt, p); err != nil {
				return err
			}
		}
		return w.end(path)
	case reflect.Slice:
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return mismatch("a list")
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.member(t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return w.end(path)
	case reflect.Bool:
		if _, ok := tok.(bool); !ok {
			return mismatch("a boolean")
		}
	case reflect.String:
		if _, ok := tok.(string); !ok {
			return mismatch("a string")
		}
	case reflect.Int, reflect.Int64:
		n, ok := tok.(json.Number)
		if !ok {
			return mismatch("an integer")
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			return fmt.Errorf("%s: must be an integer, not %s", where, n)
		}
	default:
		return fmt.Errorf("%s: unsupported type %s", where, t)
	}
	return nil
}

// end consumes the closing delimiter of an object or list.
func (w *walker) end(path string) error {
	if _, err := w.dec.Token(); err != nil {
		return w.syntaxError(path, err)
	}
	return nil
}

// skip consumes the rest of a value whose first token is tok.
func (w *walker) skip(tok json.Token, path string) error {
	d, ok := tok.(json.Delim)
	if !ok || (d != '{' && d != '[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := w.dec.Token()
		if err != nil {
			return w.syntaxError(path, err)
		}
		if d, ok := t.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// jsonField returns the type of the field of struct t with the JSON name.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag == name {
			return f.Type, true
		}
	}
	return nil, false
}
