package main

import (
	"strings"
	"testing"

	"github.com/matryer/is"
)

func TestParseZulipForm(t *testing.T) {
	is := is.New(t)
	src := `from typing import Any

EMOJI_NAME_MAPS: dict[str, dict[str, Any]] = {
    # a comment
    "1f600": {"canonical_name": "grinning", "aliases": ["happy"]},
    '263a': {'canonical_name': 'smiling_face', 'aliases': ['relaxed',]},  # trailing comma
}
`
	got, err := parseNameMap([]byte(src))
	is.NoErr(err)
	is.Equal(got, []entry{
		{Code: "1f600", Canonical: "grinning", Aliases: []string{"happy"}},
		{Code: "263a", Canonical: "smiling_face", Aliases: []string{"relaxed"}},
	})
}

func TestParseTerminalForm(t *testing.T) {
	is := is.New(t)
	src := "EMOJI_DATA = {\n    \"+1\": {'code': '1f44d', 'aliases': ['thumbs_up', 'like']},\n}\n"
	got, err := parseNameMap([]byte(src))
	is.NoErr(err)
	is.Equal(got, []entry{{Code: "1f44d", Canonical: "+1", Aliases: []string{"thumbs_up", "like"}}})
}

func TestCheckRefusesBadMaps(t *testing.T) {
	is := is.New(t)
	ds := []byte(`[{"unified":"1F600"},{"unified":"263A-FE0F"}]`)
	is.NoErr(check([]entry{{Code: "1f600", Canonical: "a"}, {Code: "263a", Canonical: "b"}}, ds))
	for _, bad := range [][]entry{
		{{Code: "1F600", Canonical: "a"}},                                  // upper case
		{{Code: "1f601", Canonical: "a"}},                                  // not in the data set
		{{Code: "1f600", Canonical: "a"}, {Code: "263a", Canonical: "a"}},  // a name twice
		{{Code: "1f600", Canonical: "a"}, {Code: "1f600", Canonical: "b"}}, // a code twice
		{{Code: "1f600", Canonical: "a", Aliases: []string{"x;y"}}},        // breaks the table
	} {
		is.True(check(bad, ds) != nil)
	}
	out, err := render([]entry{{Code: "263a", Canonical: "b"}, {Code: "1f600", Canonical: "a", Aliases: []string{"c"}}}, "test")
	is.NoErr(err)
	is.True(strings.Contains(string(out), `"1f600:a,c;263a:b;"`)) // sorted by code
}
