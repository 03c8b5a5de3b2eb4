package chatcore_test

// Rendering with a realm's linkifiers: content and topic links.

import (
	"context"
	"fmt"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

func TestTopicLinks(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	w.AddLinkifier(t, org.Admin, `#(?P<id>[0-9]+)`, "https://github.com/zulip/zulip/issues/{id}")
	w.AddLinkifier(t, org.Admin, `#(?P<id>[0-9]+)-x`, "https://other.example.com/{id}")
	for _, tc := range []struct {
		topic string
		want  []chatcore.TopicLink
	}{
		{"no links", []chatcore.TopicLink{}},
		{"fix #123 and #4", []chatcore.TopicLink{
			{Text: "#123", URL: "https://github.com/zulip/zulip/issues/123"},
			{Text: "#4", URL: "https://github.com/zulip/zulip/issues/4"}}},
		{"a#5 is not a match", []chatcore.TopicLink{}},
		{"#6-x overlaps", []chatcore.TopicLink{{Text: "#6", URL: "https://github.com/zulip/zulip/issues/6"}}},
		{"see https://zulip.com/x, then #7", []chatcore.TopicLink{
			{Text: "https://zulip.com/x", URL: "https://zulip.com/x"},
			{Text: "#7", URL: "https://github.com/zulip/zulip/issues/7"}}},
		{"docs at example.org/help.", []chatcore.TopicLink{{Text: "example.org/help", URL: "https://example.org/help"}}},
	} {
		t.Run(tc.topic, func(t *testing.T) {
			is := is.New(t)
			got, err := w.Svc.TopicLinksForTest(ctx, org.Realm.ID, tc.topic)
			is.NoErr(err)          // computed
			is.Equal(got, tc.want) // Zulip's topic_links, by position
		})
	}
	t.Run("on sent messages", func(t *testing.T) {
		is := is.New(t)
		id := w.Send(t, org.Member, org.Public, "bug #99", "x")
		view, _, err := messages.One(ctx, w.Svc, org.Other.ID, id, messages.OneRequest{})
		is.NoErr(err)                                                                                                   // readable
		is.Equal(view.TopicLinks, []chatcore.TopicLink{{Text: "#99", URL: "https://github.com/zulip/zulip/issues/99"}}) // from the topic
		dm := w.SendDM(t, org.Member, "#99", org.Other)
		dview, _, err := messages.One(ctx, w.Svc, org.Other.ID, dm, messages.OneRequest{})
		is.NoErr(err)                                                                                // readable
		is.Equal(len(dview.TopicLinks), 0)                                                           // direct messages have no topic
		is.True(dview.TopicLinks != nil)                                                             // but an empty list
		is.Equal(dview.Content, `<p><a href="https://github.com/zulip/zulip/issues/99">#99</a></p>`) // content is linkified
	})
	t.Run("linkifiers do not re-render old messages", func(t *testing.T) {
		is := is.New(t)
		id := w.Send(t, org.Member, org.Public, "t", "JIRA-1")
		w.AddLinkifier(t, org.Admin, `JIRA-(?P<n>[0-9]+)`, "https://jira/{n}")
		view, _, err := messages.One(ctx, w.Svc, org.Other.ID, id, messages.OneRequest{})
		is.NoErr(err)                           // readable
		is.Equal(view.Content, "<p>JIRA-1</p>") // stored rendering kept
		fresh := w.Send(t, org.Member, org.Public, "t", "JIRA-1")
		fv, _, err := messages.One(ctx, w.Svc, org.Other.ID, fresh, messages.OneRequest{})
		is.NoErr(err)                                                                         // readable
		is.Equal(fv.Content, fmt.Sprintf(`<p><a href="%s">JIRA-1</a></p>`, "https://jira/1")) // new messages use it
	})
}

// TestLinkifierURLTemplateLiterals checks Zulip's URL-template rule: only the
// brace expressions are validated; literal text of any kind is accepted and
// percent-encoded when a match is expanded.
func TestLinkifierURLTemplateLiterals(t *testing.T) {
	for _, tc := range []struct {
		name, tmpl, in, want string
	}{
		{"space in the literal", "https://x.example/ {id}", "#7",
			`<p><a href="https://x.example/%207">#7</a></p>`},
		{"invalid percent escape in the literal", "https://x.example/%zz{id}", "#7",
			`<p><a href="https://x.example/%25zz7">#7</a></p>`},
		{"valid percent escape kept", "https://x.example/a%2Fb/{id}", "#7",
			`<p><a href="https://x.example/a%2Fb/7">#7</a></p>`},
		{"non-ASCII literal", "https://x.example/ü/{id}", "#7",
			`<p><a href="https://x.example/%C3%BC/7">#7</a></p>`},
		{"reserved characters kept", "https://x.example/?q=a&b=c,d;e:f#{id}", "#7",
			`<p><a href="https://x.example/?q=a&amp;b=c,d;e:f#7">#7</a></p>`},
		{"quote and angle brackets encoded", `https://x.example/"<{id}>`, "#7",
			`<p><a href="https://x.example/%22%3C7%3E">#7</a></p>`},
		{"query expression", "https://x.example/issues{?id}", "#7",
			`<p><a href="https://x.example/issues?id=7">#7</a></p>`},
		{"path and fragment expressions", "https://x.example{/id}{#id}", "#7",
			`<p><a href="https://x.example/7#7">#7</a></p>`},
		{"prefix modifier", "https://x.example/{id:2}", "#12345",
			`<p><a href="https://x.example/12">#12345</a></p>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			w, org := chattest.NewMessaging(t)
			_, err := linkifiers.Add(context.Background(), w.Svc, org.Admin.ID, `#(?P<id>[0-9]+)`, tc.tmpl)
			is.NoErr(err) // the template is accepted
			got, _, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want) // the literal is percent-encoded as Zulip does
		})
	}
}

// TestLinkifierDuplicateGroupNames checks RE2's rule for a repeated group
// name: the pattern is valid (RE2 compiles it, and Zulip's validation only
// compares the set of names), and the leftmost group of the name gives the
// value, even when it did not take part in the match.
func TestLinkifierDuplicateGroupNames(t *testing.T) {
	for _, tc := range []struct {
		name, pattern, in, want string
	}{
		{"in sequence", `(?P<id>[a-z]+)-(?P<id>[0-9]+)`, "abc-12",
			`<p><a href="https://x.example/abc">abc-12</a></p>`},
		{"in alternatives, leftmost matched", `(?:A(?P<id>[0-9]+)|B(?P<id>[0-9]+))`, "A12",
			`<p><a href="https://x.example/12">A12</a></p>`},
		{"in alternatives, leftmost unmatched", `(?:A(?P<id>[0-9]+)|B(?P<id>[0-9]+))`, "B34",
			`<p><a href="https://x.example/">B34</a></p>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			w, org := chattest.NewMessaging(t)
			_, err := linkifiers.Add(context.Background(), w.Svc, org.Admin.ID, tc.pattern, "https://x.example/{id}")
			is.NoErr(err) // RE2 accepts a repeated group name
			got, _, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want) // the leftmost group of the name supplies the value
		})
	}
}

// TestLinkifierAcrossDelimiters checks that linkifiers match text that
// goldmark splits at delimiter characters (_ * @ and others), in message
// content as in topics, while keeping the link, code and boundary rules.
func TestLinkifierAcrossDelimiters(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	w.AddLinkifier(t, org.Admin, `FOO_BAR-(?P<id>\d+)`, "https://foo.example/{id}")
	w.AddLinkifier(t, org.Admin, `(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)`,
		"https://github.com/{org}/{repo}/pull/{id}")
	w.AddLinkifier(t, org.Admin, `mail@(?P<host>[a-z]+)`, "https://mail.example/{host}")
	w.AddLinkifier(t, org.Admin, `x\*(?P<n>[0-9]+)`, "https://times.example/{n}")
	foo := `<a href="https://foo.example/7">FOO_BAR-7</a>`
	for _, tc := range []struct{ name, in, want string }{
		{"underscore", "see FOO_BAR-7", "<p>see " + foo + "</p>"},
		{"underscore at the start", "FOO_BAR-7 done", "<p>" + foo + " done</p>"},
		{"two underscores", "my_org/my_repo#5",
			`<p><a href="https://github.com/my_org/my_repo/pull/5">my_org/my_repo#5</a></p>`},
		{"at sign", "write mail@zulip now", `<p>write <a href="https://mail.example/zulip">mail@zulip</a> now</p>`},
		{"asterisk", "x*3 apples", `<p><a href="https://times.example/3">x*3</a> apples</p>`},
		{"two matches in one run", "FOO_BAR-7 and FOO_BAR-8",
			"<p>" + foo + ` and <a href="https://foo.example/8">FOO_BAR-8</a></p>`},
		{"after a letter", "xFOO_BAR-7", "<p>xFOO_BAR-7</p>"},
		{"followed by a letter", "FOO_BAR-7x", "<p>FOO_BAR-7x</p>"},
		{"inside emphasis", "**FOO_BAR-7**", "<p><strong>" + foo + "</strong></p>"},
		{"emphasis inside the match", "FOO_BAR-*7*", "<p>FOO_BAR-<em>7</em></p>"},
		{"not inside code", "`FOO_BAR-7`", "<p><code>FOO_BAR-7</code></p>"},
		{"not inside a link", "[FOO_BAR-7](https://example.com)", `<p><a href="https://example.com">FOO_BAR-7</a></p>`},
		{"not across a line break", "FOO_\nBAR-7", "<p>FOO_<br>\nBAR-7</p>"},
		{"before a line break", "FOO_BAR-7\nnext", "<p>" + foo + "<br>\nnext</p>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, _, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want) // linkified across goldmark's text nodes
		})
	}
	t.Run("topic links agree", func(t *testing.T) {
		is := is.New(t)
		links, err := w.Svc.TopicLinksForTest(context.Background(), org.Realm.ID, "see FOO_BAR-7")
		is.NoErr(err)                                                                            // topic links computed
		is.Equal(links, []chatcore.TopicLink{{Text: "FOO_BAR-7", URL: "https://foo.example/7"}}) // the same match as in content
	})
}
