// Package emoji holds Zulip's names of Unicode emoji: the name → code and
// code → canonical name maps Zulip builds from its emoji name map (see
// names_gen.go, written by ./genemoji from Zulip's name map, checked against
// iamcal's emoji-datasource).
//
// A code is the emoji's code points in lower-case hex joined by "-" (what
// Zulip sends as emoji_code of a unicode_emoji reaction); every emoji has one
// canonical name and any number of aliases, and every name is unique.
package emoji

import (
	"strings"
	"sync"
)

//go:generate echo "names_gen.go is written by ./genemoji from files fetched by hand; see its doc comment"

// maps are the two lookup tables, built from table on first use.
type maps struct {
	code      map[string]string // name (canonical or alias) → code
	canonical map[string]string // code → canonical name
	// unqualified maps the codes with presentation selectors, without them,
	// to their canonical names.
	unqualified map[string]string
}

var load = sync.OnceValue(func() maps {
	m := maps{code: make(map[string]string, 2*tableSize), canonical: make(map[string]string, tableSize), unqualified: map[string]string{}}
	for rec := range strings.SplitSeq(table, ";") {
		if rec == "" {
			continue
		}
		code, names, _ := strings.Cut(rec, ":")
		for i, n := range strings.Split(names, ",") {
			if i == 0 {
				m.canonical[code] = n
				if u := Unqualified(code); u != code {
					m.unqualified[u] = n
				}
			}
			m.code[n] = code
		}
	}
	return m
})

// Code returns the code of the emoji with the name (canonical or alias), as
// Zulip's name_to_codepoint; false for a name Zulip does not know.
func Code(name string) (string, bool) {
	c, ok := load().code[name]
	return c, ok
}

// Name returns the canonical name of the emoji with the code, as Zulip's
// codepoint_to_name; false for a code Zulip does not know.
func Name(code string) (string, bool) {
	n, ok := load().canonical[code]
	return n, ok
}

// Unqualified returns code without its presentation selectors (fe0f), the
// form Zulip's renderer looks emoji up by and shows in its markup.
func Unqualified(code string) string {
	if !strings.Contains(code, "fe0f") {
		return code
	}
	parts := strings.Split(code, "-")
	out := parts[:0]
	for _, p := range parts {
		if p != "fe0f" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "-")
}

// Len returns the number of emoji in the table.
func Len() int { return len(load().canonical) }

// CodeToNames returns every emoji's names by code, the canonical name first
// and then its aliases: the code_to_names map of Zulip's emoji data
// (server_emoji_data_url). The map is new on each call.
func CodeToNames() map[string][]string {
	out := make(map[string][]string, tableSize)
	for rec := range strings.SplitSeq(table, ";") {
		if rec == "" {
			continue
		}
		code, names, _ := strings.Cut(rec, ":")
		out[code] = strings.Split(names, ",")
	}
	return out
}
