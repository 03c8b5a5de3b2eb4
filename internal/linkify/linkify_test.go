package linkify

import (
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
