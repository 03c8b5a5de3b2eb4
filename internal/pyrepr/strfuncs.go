package pyrepr

import (
	"strings"
	"unicode/utf8"
)

// SplitLines splits s at Python's str.splitlines boundaries, without
// the line ends and without a last empty line.
func SplitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexFunc(s, func(r rune) bool {
			switch r {
			case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
				return true
			}
			return false
		})
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i])
		r, size := utf8.DecodeRuneInString(s[i:])
		s = s[i+size:]
		if r == '\r' && strings.HasPrefix(s, "\n") {
			s = s[1:]
		}
	}
	return out
}

// WriteJSONString writes s as Python's json.dumps does (ensure_ascii):
// every non-ASCII character as \uXXXX escapes (surrogate pairs above the
// BMP).
func WriteJSONString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	u4 := func(r rune) {
		b.WriteString(`\u`)
		for shift := 12; shift >= 0; shift -= 4 {
			b.WriteByte(hex[(r>>shift)&0xf])
		}
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\b':
			b.WriteString(`\b`)
		case r == '\f':
			b.WriteString(`\f`)
		case r < 0x20 || (r >= 0x7f && r <= 0xffff):
			u4(r)
		case r > 0xffff:
			r -= 0x10000
			u4(0xd800 + r>>10)
			u4(0xdc00 + r&0x3ff)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
