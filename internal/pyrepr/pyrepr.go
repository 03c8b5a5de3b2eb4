// Package pyrepr writes values the way Python writes them: repr() of str and
// bytes, str() of a JSON value as json.loads reads it, Python's truthiness of
// decoded JSON, json.dumps of a str and str.splitlines. Zulip's
// outgoing-webhook worker and its widgets are written in Python, and the
// texts they write go through these functions.
package pyrepr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"
)

// Truthy reports whether v, a value decoded by encoding/json into an any,
// is true in Python: None, False, 0, "", [] and {} are false.
func Truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case float64:
		return v != 0
	case string:
		return v != ""
	case []any:
		return len(v) > 0
	case map[string]any:
		return len(v) > 0
	}
	return true
}

// Str returns Python's str() of the JSON value raw as json.loads reads it:
// a string as it is, anything else as its Python repr (None, True, 1.0,
// ['a', 1], {'k': None}), object keys in their order, a repeated key in its
// first position with its last value. raw must hold one valid JSON value
// (as json.Valid reports); for other input the result is unspecified.
func Str(raw json.RawMessage) string {
	if s, ok := JSONString(raw); ok {
		return s
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var b strings.Builder
	if err := reprValue(dec, &b); err != nil {
		return string(raw) // not valid JSON
	}
	return b.String()
}

// JSONString returns the value of raw, surrounding white space aside, when it
// is a JSON string; ok is false for any other JSON value or invalid JSON.
func JSONString(raw []byte) (string, bool) {
	raw = bytes.TrimSpace(raw)
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// reprValue writes the Python repr of the next JSON value of dec.
func reprValue(dec *json.Decoder, b *strings.Builder) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case nil:
		b.WriteString("None")
	case bool:
		if v {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case string:
		b.WriteString(String(v))
	case json.Number:
		b.WriteString(numberRepr(v))
	case json.Delim:
		if v == '[' {
			b.WriteByte('[')
			for i := 0; dec.More(); i++ {
				if i > 0 {
					b.WriteString(", ")
				}
				if err := reprValue(dec, b); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		} else {
			// A dict keeps the first position of a repeated key and its
			// last value.
			var keys []string
			vals := map[string]string{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				var vb strings.Builder
				if err := reprValue(dec, &vb); err != nil {
					return err
				}
				if _, seen := vals[k]; !seen {
					keys = append(keys, k)
				}
				vals[k] = vb.String()
			}
			b.WriteByte('{')
			for i, k := range keys {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(String(k))
				b.WriteString(": ")
				b.WriteString(vals[k])
			}
			b.WriteByte('}')
		}
		_, err := dec.Token() // the closing delimiter
		return err
	}
	return nil
}

// numberRepr is the Python repr of a JSON number: an int for a literal
// without fraction or exponent, a float otherwise.
func numberRepr(n json.Number) string {
	text := n.String()
	if !strings.ContainsAny(text, ".eE") {
		if i, ok := new(big.Int).SetString(text, 10); ok {
			return i.String()
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case err != nil:
		return text
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e // Python writes 1e+16 and 1e-05 the same way
	}
	fixed := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(fixed, ".") {
		fixed += ".0"
	}
	return fixed
}

// quote returns the quote Python's repr uses for text: ' unless the text
// contains ' and no ".
func quote(hasSingle, hasDouble bool) byte {
	if hasSingle && !hasDouble {
		return '"'
	}
	return '\''
}

// String returns Python's repr() of the str s; invalid UTF-8 bytes are each
// read as U+FFFD, as Python's requests decodes response.text.
func String(s string) string {
	q := quote(strings.Contains(s, "'"), strings.Contains(s, `"`))
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\' || r == rune(q):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// Bytes returns Python's repr() of the bytes value p.
func Bytes(p []byte) string {
	q := quote(bytes.IndexByte(p, '\'') >= 0, bytes.IndexByte(p, '"') >= 0)
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(q)
	for _, c := range p {
		switch {
		case c == '\\' || c == q:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(q)
	return b.String()
}
