package linkify

import (
	"slices"
	"testing"

	"github.com/matryer/is"
)

func mustCompile(tb testing.TB, pattern, tmpl string) *Linkifier {
	tb.Helper()
	l, ok := Compile(pattern, tmpl)
	if !ok {
		tb.Fatalf("compile %q: refused", pattern)
	}
	return l
}

func TestMatches(t *testing.T) {
	l := mustCompile(t, `#(?P<id>[0-9]+)`, "https://x.example/{id}")
	for _, tc := range []struct {
		text, before, after string
		want                []Match
	}{
		{"see #12 and #3", " ", " ", []Match{{4, 7, "https://x.example/12"}, {12, 14, "https://x.example/3"}}},
		{"a#5", " ", " ", nil},
		{"#5x", " ", " ", nil},
		{"#5", "x", " ", nil},
		{"#5", "(", ",", []Match{{0, 2, "https://x.example/5"}}},
	} {
		t.Run(tc.text, func(t *testing.T) {
			is := is.New(t)
			is.Equal(l.Matches(tc.text, tc.before, tc.after), tc.want) // Zulip's boundary rule
		})
	}
}

func TestCompileRefusesAndCaches(t *testing.T) {
	is := is.New(t)
	_, ok := Compile("(", "https://x.example/")
	is.True(!ok) // a bad pattern does not compile
	_, ok = Compile("x", "https://x.example/{")
	is.True(!ok) // nor a bad template
	a := mustCompile(t, "y(?P<n>[0-9])", "https://y.example/{n}")
	b := mustCompile(t, "y(?P<n>[0-9])", "https://y.example/{n}")
	is.True(a == b) // compiled once
}

func TestTopicLinks(t *testing.T) {
	ls := []*Linkifier{
		mustCompile(t, `#(?P<id>[0-9]+)`, "https://github.com/zulip/zulip/issues/{id}"),
		mustCompile(t, `#(?P<id>[0-9]+)-x`, "https://other.example.com/{id}"),
	}
	for _, tc := range []struct {
		topic string
		want  []TopicLink
	}{
		{"no links", []TopicLink{}},
		{"#6-x overlaps", []TopicLink{{"#6", "https://github.com/zulip/zulip/issues/6"}}},
		{"see https://zulip.com/x, then #7", []TopicLink{
			{"https://zulip.com/x", "https://zulip.com/x"}, {"#7", "https://github.com/zulip/zulip/issues/7"}}},
		{"docs at example.org/help.", []TopicLink{{"example.org/help", "https://example.org/help"}}},
	} {
		t.Run(tc.topic, func(t *testing.T) {
			is := is.New(t)
			is.Equal(TopicLinks(ls, tc.topic), tc.want) // by position, earlier linkifier first
		})
	}
}

func TestRequiredLiteral(t *testing.T) {
	for _, tc := range []struct {
		pattern, want string
	}{
		{`#(?P<id>[0-9]+)`, "#"},
		{`JIRA-(?P<k>\d+)`, "JIRA-"},
		{`(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<n>[0-9]+)`, "/"},
		{`(?:ab){2}x`, "ab"},
		{`(?:abc)+`, "abc"},
		{`(?:abc)*x`, "x"},
		{`(?:abc)?`, ""},
		{`abc|abd`, "ab"}, // RE2 factors out the common prefix
		{`abc|xyz`, ""},
		{`(?i)jira-\d+`, ""},
		{"caf\u00e9-\\x{FFFD}", "caf\u00e9-"},
		{`\x{FFFD}`, ""},
		{"ab\\x{FFFD}abc", "abc"},
		{`[a-z]+`, ""},
	} {
		t.Run(tc.pattern, func(t *testing.T) {
			is := is.New(t)
			l := mustCompile(t, tc.pattern, "https://x.example/")
			is.Equal(string(l.required), tc.want) // the longest literal every match holds
		})
	}
}

func TestMayMatch(t *testing.T) {
	is := is.New(t)
	l := mustCompile(t, `JIRA-(?P<k>\d+)`, "https://x.example/{k}")
	is.True(l.MayMatch([]byte("see JIRA-1")))                           // holds the literal
	is.True(!l.MayMatch([]byte("see jira-1 or JIRA 1")))                // no match can come from it
	is.Equal(l.Matches("see jira-1 or JIRA 1", " ", " "), []Match(nil)) // nor does one
	any := mustCompile(t, `(?i)jira-(?P<k>\d+)`, "https://x.example/{k}")
	is.True(any.MayMatch([]byte("nothing"))) // no literal known: anything may match
}

func TestAppendMatchesReusesScratch(t *testing.T) {
	is := is.New(t)
	l := mustCompile(t, `#(?P<id>[0-9]+)`, "https://x.example/{id}")
	var sc Scratch
	got := l.AppendMatches(nil, &sc, []byte("see #12 and #3"), " ", " ")
	is.Equal(got, []Match{{4, 7, "https://x.example/12"}, {12, 14, "https://x.example/3"}}) // as Matches finds them
	got = l.AppendMatches(got[:1], &sc, []byte("#5"), "(", ",")
	is.Equal(got, []Match{{4, 7, "https://x.example/12"}, {0, 2, "https://x.example/5"}}) // appended after dst
	allocs := testing.AllocsPerRun(100, func() { l.AppendMatches(nil, &sc, []byte("no number here at all"), " ", " ") })
	is.Equal(allocs, 0.0) // text without a match costs no allocation
}

// FuzzRequiredLiteral checks that skipping the regular expression for text
// without the required literal never loses a match.
func FuzzRequiredLiteral(f *testing.F) {
	f.Add(`#(?P<id>[0-9]+)`, "see #12, #x and (#3)")
	f.Add(`abc|abd`, "abd abc ab")
	f.Add(`(?:ab){2}x`, "ababx abx")
	f.Add(`caf\x{FFFD}-(?P<n>\d)`, "caf\xff-1 caf\uFFFD-2")
	f.Add(`(?i)JIRA-(?P<k>\d+)`, "jira-7")
	f.Add(`a(?P<x>b+)c`, "abbc ac abc")
	f.Fuzz(func(t *testing.T, pattern, text string) {
		l, ok := Compile(pattern, "https://x.example/")
		if !ok {
			return
		}
		unfiltered := *l
		unfiltered.required = nil
		for _, ctx := range [][2]string{{" ", " "}, {"x", "("}, {"(", "x"}} {
			got, want := l.Matches(text, ctx[0], ctx[1]), unfiltered.Matches(text, ctx[0], ctx[1])
			if len(got) != len(want) || (len(got) > 0 && !slices.Equal(got, want)) {
				t.Fatalf("%q in %q: %v with the literal filter, %v without", pattern, text, got, want)
			}
		}
	})
}
