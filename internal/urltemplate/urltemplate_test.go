package urltemplate

import (
	"testing"

	"github.com/matryer/is"
)

func TestParseAndExpand(t *testing.T) {
	vals := map[string]string{"id": "7", "q": "a b", "long": "12345"}
	for _, tc := range []struct{ tmpl, want string }{
		{"https://x.example/{id}", "https://x.example/7"},
		{"https://x.example/ {id}", "https://x.example/%207"},
		{"https://x.example/%zz{id}", "https://x.example/%25zz7"},
		{"https://x.example/a%2Fb/{id}", "https://x.example/a%2Fb/7"},
		{"https://x.example/issues{?id,q}", "https://x.example/issues?id=7&q=a%20b"},
		{"https://x.example{/id}{#q}", "https://x.example/7#a%20b"},
		{"https://x.example/{+q}", "https://x.example/a%20b"},
		{"https://x.example/{long:2}", "https://x.example/12"},
		{"https://x.example/{missing}", "https://x.example/"},
	} {
		t.Run(tc.tmpl, func(t *testing.T) {
			is := is.New(t)
			tmpl, ok := Parse(tc.tmpl)
			is.True(ok)                          // a valid template
			is.Equal(tmpl.Expand(vals), tc.want) // RFC 6570 expansion
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, s := range []string{"{id", "id}", "{}", "{=id}", "{i d}", "{id:0}", "{id:10000}", "{.id.}", "{id,}"} {
		t.Run(s, func(t *testing.T) {
			is := is.New(t)
			_, ok := Parse(s)
			is.True(!ok) // malformed expression refused
		})
	}
}

func TestVarNames(t *testing.T) {
	is := is.New(t)
	tmpl, ok := Parse("{a}/{b,a}{?c}")
	is.True(ok)                                        // valid
	is.Equal(tmpl.VarNames(), []string{"a", "b", "c"}) // distinct, in order
}
