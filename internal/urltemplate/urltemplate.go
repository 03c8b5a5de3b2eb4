// Package urltemplate parses and expands linkifier URL templates: RFC 6570
// level 4 with string values only, checked as Zulip checks them.
package urltemplate

import (
	"strconv"
	"strings"
)

// Template is a parsed linkifier URL template (RFC 6570, level 4, with string
// values only). As in Zulip, only the brace expressions are checked: literal
// text between them may hold any character, and is percent-encoded when the
// template is expanded. A Template is immutable and safe for concurrent use.
type Template struct {
	parts []urlTemplatePart
}

// urlTemplatePart is literal text (expr false) or one {expression}.
type urlTemplatePart struct {
	literal string
	expr    bool
	op      byte // 0 for a simple expression, else one of + # . / ; ? &
	vars    []urlTemplateVar
}

// urlTemplateVar is one varspec of an expression.
type urlTemplateVar struct {
	name   string
	prefix int // the :n modifier in characters; 0 for none
}

// urlTemplateOps lists the operators an expression may start with; "=,!@|"
// are reserved by RFC 6570 and refused.
const urlTemplateOps = "+#./;?&"

// Parse parses s, reporting false for a stray "{" or "}", an empty
// expression, a reserved or unknown operator, or a malformed varspec (a
// variable name is letters, digits, "_" and %XX, with single dots between;
// the modifiers are "*" and ":1" to ":9999").
func Parse(s string) (*Template, bool) {
	t := &Template{}
	for len(s) > 0 {
		open := strings.IndexAny(s, "{}")
		if open < 0 {
			t.parts = append(t.parts, urlTemplatePart{literal: s})
			break
		}
		if s[open] == '}' {
			return nil, false
		}
		if open > 0 {
			t.parts = append(t.parts, urlTemplatePart{literal: s[:open]})
		}
		n := strings.IndexByte(s[open+1:], '}')
		if n < 0 {
			return nil, false
		}
		part, ok := parseURLTemplateExpr(s[open+1 : open+1+n])
		if !ok {
			return nil, false
		}
		t.parts = append(t.parts, part)
		s = s[open+1+n+1:]
	}
	return t, true
}

// parseURLTemplateExpr parses the text between the braces of an expression.
func parseURLTemplateExpr(body string) (urlTemplatePart, bool) {
	part := urlTemplatePart{expr: true}
	if body == "" {
		return part, false
	}
	if strings.IndexByte(urlTemplateOps, body[0]) >= 0 {
		part.op, body = body[0], body[1:]
	}
	for spec := range strings.SplitSeq(body, ",") {
		v := urlTemplateVar{}
		switch {
		case strings.HasSuffix(spec, "*"):
			spec = spec[:len(spec)-1]
		case strings.Contains(spec, ":"):
			i := strings.IndexByte(spec, ':')
			digits := spec[i+1:]
			if len(digits) == 0 || len(digits) > 4 || digits[0] == '0' {
				return part, false
			}
			if strings.Trim(digits, "0123456789") != "" {
				return part, false
			}
			n, _ := strconv.Atoi(digits) // 1 to 9999: four digits, no leading zero
			spec, v.prefix = spec[:i], n
		}
		if !validURLTemplateVarname(spec) {
			return part, false
		}
		v.name = spec
		part.vars = append(part.vars, v)
	}
	return part, true
}

// validURLTemplateVarname reports whether name is an RFC 6570 varname.
func validURLTemplateVarname(name string) bool {
	if name == "" || name[0] == '.' || name[len(name)-1] == '.' || strings.Contains(name, "..") {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_' || c == '.' || isASCIIAlnum(c):
		case c == '%' && i+2 < len(name) && isHexDigit(name[i+1]) && isHexDigit(name[i+2]):
			i += 2
		default:
			return false
		}
	}
	return true
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// VarNames returns the distinct variable names of t in order of appearance.
func (t *Template) VarNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range t.parts {
		for _, v := range p.vars {
			if !seen[v.name] {
				seen[v.name] = true
				out = append(out, v.name)
			}
		}
	}
	return out
}

// urlTemplateOp is RFC 6570's expansion table (appendix A) for one operator.
type urlTemplateOp struct {
	first, sep    string
	named         bool
	ifEmpty       string
	allowReserved bool
}

func urlTemplateOpFor(op byte) urlTemplateOp {
	switch op {
	case '+':
		return urlTemplateOp{sep: ",", allowReserved: true}
	case '#':
		return urlTemplateOp{first: "#", sep: ",", allowReserved: true}
	case '.':
		return urlTemplateOp{first: ".", sep: "."}
	case '/':
		return urlTemplateOp{first: "/", sep: "/"}
	case ';':
		return urlTemplateOp{first: ";", sep: ";", named: true}
	case '?':
		return urlTemplateOp{first: "?", sep: "&", named: true, ifEmpty: "="}
	case '&':
		return urlTemplateOp{first: "&", sep: "&", named: true, ifEmpty: "="}
	}
	return urlTemplateOp{sep: ","}
}

// Expand fills t in with vals; a name missing from vals is undefined and
// left out, as RFC 6570 says. Literal text keeps unreserved and reserved
// characters and valid %XX triplets and percent-encodes everything else.
func (t *Template) Expand(vals map[string]string) string {
	var b strings.Builder
	for _, p := range t.parts {
		if !p.expr {
			percentEncode(&b, p.literal, true)
			continue
		}
		op := urlTemplateOpFor(p.op)
		n := 0
		for _, v := range p.vars {
			val, ok := vals[v.name]
			if !ok {
				continue
			}
			if n == 0 {
				b.WriteString(op.first)
			} else {
				b.WriteString(op.sep)
			}
			n++
			if v.prefix > 0 {
				val = firstRunes(val, v.prefix)
			}
			if op.named {
				b.WriteString(v.name)
				if val == "" {
					b.WriteString(op.ifEmpty)
					continue
				}
				b.WriteByte('=')
			}
			percentEncode(&b, val, op.allowReserved)
		}
	}
	return b.String()
}

// firstRunes returns the first n characters of s (all of s if it is shorter).
func firstRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// urlReserved are RFC 3986's reserved characters.
const urlReserved = ":/?#[]@!$&'()*+,;="

// percentEncode writes s to b, keeping unreserved characters (and, when
// allowReserved, reserved characters and valid %XX triplets) and writing
// every other byte as %XX.
func percentEncode(b *strings.Builder, s string, allowReserved bool) {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isASCIIAlnum(c) || c == '-' || c == '.' || c == '_' || c == '~':
			b.WriteByte(c)
		case allowReserved && strings.IndexByte(urlReserved, c) >= 0:
			b.WriteByte(c)
		case allowReserved && c == '%' && i+2 < len(s) && isHexDigit(s[i+1]) && isHexDigit(s[i+2]):
			b.WriteString(s[i : i+3])
			i += 2
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
}
