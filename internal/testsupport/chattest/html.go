package chattest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// CheckHTML checks rendered HTML: valid UTF-8 when the input was, and no
// active content: no script, style, iframe, object or embed element, no on*
// event attribute, and no javascript:, vbscript: or data: URL in href or src.
// Text from the input can only reach the output escaped, so every raw '<' in
// the output starts a tag the renderer wrote. It fails tb on the first
// problem.
func CheckHTML(tb testing.TB, input, html string) {
	tb.Helper()
	if utf8.ValidString(input) && !utf8.ValidString(html) {
		tb.Fatalf("%q rendered to invalid UTF-8: %q", input, html)
	}
	for _, tag := range htmlTags(html) {
		switch tag.name {
		case "script", "style", "iframe", "object", "embed", "frame", "frameset", "meta", "link", "base", "form":
			tb.Fatalf("%q rendered a <%s> element: %s", input, tag.name, html)
		}
		for name, value := range tag.attrs {
			if strings.HasPrefix(name, "on") {
				tb.Fatalf("%q rendered an event attribute %s=%q: %s", input, name, value, html)
			}
			if name == "href" || name == "src" || name == "action" || name == "formaction" {
				v := strings.ToLower(strings.Map(func(r rune) rune {
					if r <= ' ' {
						return -1
					}
					return r
				}, unescapeHTML(value)))
				for _, scheme := range []string{"javascript:", "vbscript:", "data:"} {
					if strings.HasPrefix(v, scheme) {
						tb.Fatalf("%q rendered a %s URL in %s: %s", input, scheme, name, html)
					}
				}
			}
		}
	}
}

// htmlTag is one start or end tag of rendered HTML.
type htmlTag struct {
	name  string
	attrs map[string]string
}

// htmlTags is a small tokenizer for the renderer's output: it finds each '<'
// followed by a letter or '/', reads the tag name and its attributes (quoted
// or bare values). It is strict enough for HTML the renderer writes, in which
// text never contains a raw '<'.
func htmlTags(html string) []htmlTag {
	var tags []htmlTag
	for i := 0; i < len(html); i++ {
		if html[i] != '<' || i+1 >= len(html) {
			continue
		}
		j := i + 1
		if html[j] == '/' || html[j] == '!' || html[j] == '?' {
			j++
		}
		start := j
		for j < len(html) && (isASCIILetter(html[j]) || (j > start && html[j] >= '0' && html[j] <= '9')) {
			j++
		}
		if j == start {
			continue
		}
		tag := htmlTag{name: strings.ToLower(html[start:j]), attrs: map[string]string{}}
		for j < len(html) && html[j] != '>' {
			for j < len(html) && (html[j] == ' ' || html[j] == '\t' || html[j] == '\n' || html[j] == '\r' || html[j] == '/') {
				j++
			}
			ns := j
			for j < len(html) && !strings.ContainsRune(" \t\n\r/>=", rune(html[j])) {
				j++
			}
			name := strings.ToLower(html[ns:j])
			value := ""
			if j < len(html) && html[j] == '=' {
				j++
				if j < len(html) && (html[j] == '"' || html[j] == '\'') {
					q := html[j]
					end := strings.IndexByte(html[j+1:], q)
					if end < 0 {
						end = len(html) - j - 1
					}
					value = html[j+1 : j+1+end]
					j += end + 2
				} else {
					vs := j
					for j < len(html) && !strings.ContainsRune(" \t\n\r>", rune(html[j])) {
						j++
					}
					value = html[vs:j]
				}
			}
			if name != "" {
				tag.attrs[name] = value
			} else if j < len(html) && html[j] != '>' {
				j++ // a stray character: skip it
			}
		}
		tags = append(tags, tag)
		i = j
	}
	return tags
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// unescapeHTML undoes the character references a browser would decode in an
// attribute value before looking at the URL scheme (the numeric forms and
// the few named ones that matter for "javascript:").
func unescapeHTML(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '&' {
			b.WriteByte(s[i])
			continue
		}
		end := strings.IndexByte(s[i:], ';')
		if end < 0 || end > 10 {
			b.WriteByte(s[i])
			continue
		}
		ref := s[i+1 : i+end]
		var r rune = -1
		switch {
		case strings.HasPrefix(ref, "#x") || strings.HasPrefix(ref, "#X"):
			r = parseRune(ref[2:], 16)
		case strings.HasPrefix(ref, "#"):
			r = parseRune(ref[1:], 10)
		case ref == "colon":
			r = ':'
		case ref == "Tab":
			r = '\t'
		case ref == "NewLine":
			r = '\n'
		case ref == "amp":
			r = '&'
		}
		if r < 0 {
			b.WriteByte(s[i])
			continue
		}
		b.WriteRune(r)
		i += end
	}
	return b.String()
}

func parseRune(digits string, base int) rune {
	if digits == "" {
		return -1
	}
	var n rune
	for _, c := range digits {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case base == 16 && c|0x20 >= 'a' && c|0x20 <= 'f':
			d = c | 0x20 - 'a' + 10
		default:
			return -1
		}
		n = n*rune(base) + d
		if n > utf8.MaxRune {
			return -1
		}
	}
	return n
}
