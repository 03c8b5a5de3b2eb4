package main

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// mapStart finds the assignment of the name map in either form.
var mapStart = regexp.MustCompile(`(?m)^(EMOJI_NAME_MAPS|EMOJI_DATA)\b[^=\n]*=\s*\{`)

// parseNameMap reads the dict literal assigned to EMOJI_NAME_MAPS (keyed by
// code) or EMOJI_DATA (keyed by canonical name) and returns its emoji in
// file order.
func parseNameMap(src []byte) ([]entry, error) {
	loc := mapStart.FindSubmatchIndex(src)
	if loc == nil {
		return nil, errors.New("no EMOJI_NAME_MAPS or EMOJI_DATA dict found")
	}
	byCode := string(src[loc[2]:loc[3]]) == "EMOJI_NAME_MAPS"
	p := &pyParser{s: string(src), i: loc[1] - 1}
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	outer, ok := v.(pyDict)
	if !ok {
		return nil, errors.New("the name map is not a dict")
	}
	var out []entry
	for _, kv := range outer {
		key, ok := kv.key.(string)
		inner, ok2 := kv.val.(pyDict)
		if !ok || !ok2 {
			return nil, fmt.Errorf("entry %v is not a string key with a dict value", kv.key)
		}
		e := entry{}
		if byCode {
			e.Code = key
		} else {
			e.Canonical = key
		}
		for _, f := range inner {
			name, _ := f.key.(string)
			switch name {
			case "canonical_name":
				e.Canonical, _ = f.val.(string)
			case "code":
				e.Code, _ = f.val.(string)
			case "aliases":
				list, ok := f.val.([]any)
				if !ok {
					return nil, fmt.Errorf("%s: aliases is not a list", key)
				}
				for _, a := range list {
					s, ok := a.(string)
					if !ok {
						return nil, fmt.Errorf("%s: an alias is not a string", key)
					}
					e.Aliases = append(e.Aliases, s)
				}
			}
		}
		if e.Code == "" || e.Canonical == "" {
			return nil, fmt.Errorf("%s: missing code or canonical name", key)
		}
		out = append(out, e)
	}
	return out, nil
}

// pyDict is a parsed dict literal, in source order.
type pyDict []struct{ key, val any }

// pyParser reads the subset of Python literals the name maps use: dicts,
// lists, and single- or double-quoted strings with backslash escapes, with
// comments and trailing commas.
type pyParser struct {
	s string
	i int
}

func (p *pyParser) skip() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *pyParser) errorf(format string, args ...any) error {
	line := 1 + strings.Count(p.s[:p.i], "\n")
	return fmt.Errorf("line %d: %s", line, fmt.Sprintf(format, args...))
}

func (p *pyParser) value() (any, error) {
	p.skip()
	if p.i >= len(p.s) {
		return nil, p.errorf("unexpected end")
	}
	switch p.s[p.i] {
	case '{':
		p.i++
		var d pyDict
		for {
			p.skip()
			if p.i < len(p.s) && p.s[p.i] == '}' {
				p.i++
				return d, nil
			}
			k, err := p.value()
			if err != nil {
				return nil, err
			}
			p.skip()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, p.errorf("want ':'")
			}
			p.i++
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			d = append(d, struct{ key, val any }{k, v})
			if err := p.separator('}'); err != nil {
				return nil, err
			}
		}
	case '[':
		p.i++
		var l []any
		for {
			p.skip()
			if p.i < len(p.s) && p.s[p.i] == ']' {
				p.i++
				return l, nil
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			l = append(l, v)
			if err := p.separator(']'); err != nil {
				return nil, err
			}
		}
	case '\'', '"':
		q := p.s[p.i]
		start := p.i
		p.i++
		for p.i < len(p.s) && p.s[p.i] != q {
			if p.s[p.i] == '\\' {
				p.i++
			}
			p.i++
		}
		if p.i >= len(p.s) {
			return nil, p.errorf("unterminated string")
		}
		p.i++
		lit := p.s[start:p.i]
		if q == '\'' {
			lit = `"` + strings.ReplaceAll(strings.ReplaceAll(lit[1:len(lit)-1], `"`, `\"`), `\'`, `'`) + `"`
		}
		s, err := strconv.Unquote(lit)
		if err != nil {
			return nil, p.errorf("string %s: %v", lit, err)
		}
		return s, nil
	}
	return nil, p.errorf("unexpected %q", p.s[p.i])
}

// separator consumes the comma after an item, or leaves the closing
// bracket for the caller.
func (p *pyParser) separator(closing byte) error {
	p.skip()
	if p.i < len(p.s) && p.s[p.i] == ',' {
		p.i++
		return nil
	}
	if p.i < len(p.s) && p.s[p.i] == closing {
		return nil
	}
	return p.errorf("want ',' or %q", closing)
}
