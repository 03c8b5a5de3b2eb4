package chatcore_test

import (
	"context"
	"testing"

	"github.com/matryer/is"

	"github.com/chatcore/chatcore"
)

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
			e := newMxEnv(t)
			_, err := e.svc.AddLinkifier(context.Background(), e.admin.ID, `#(?P<id>[0-9]+)`, tc.tmpl)
			is.NoErr(err) // the template is accepted
			got, _, _ := mxRender(t, e, tc.in)
			is.Equal(got, tc.want) // the literal is percent-encoded as Zulip does
		})
	}
}

// TestLinkifierURLTemplateRefused checks that malformed expressions are
// still refused with Zulip's message.
func TestLinkifierURLTemplateRefused(t *testing.T) {
	e := newMxEnv(t)
	for _, tmpl := range []string{
		"https://x.example/{id",          // unclosed expression
		"https://x.example/id}",          // stray closing brace
		"https://x.example/{}{id}",       // empty expression
		"https://x.example/{=id}",        // reserved operator
		"https://x.example/{!id}",        // reserved operator
		"https://x.example/{|id}",        // reserved operator
		"https://x.example/{i d}",        // space in a name
		"https://x.example/{id-x}",       // dash in a name
		"https://x.example/{.id.}",       // trailing dot in a name
		"https://x.example/{id,}",        // empty varspec
		"https://x.example/{id:0}",       // zero prefix
		"https://x.example/{id:10000}",   // prefix too long
		"https://x.example/{id:x}",       // non-numeric prefix
		"https://x.example/{id{x}",       // brace inside an expression
		"https://x.example/{%zzid}",      // bad escape in a name
		"https://x.example/{id}{(oops)}", // parenthesis in a name
	} {
		t.Run(tmpl, func(t *testing.T) {
			is := is.New(t)
			_, err := e.svc.AddLinkifier(context.Background(), e.admin.ID, `#(?P<id>[0-9]+)`, tmpl)
			ce := wantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid URL template.")
			errs, ok := ce.Data["errors"].(map[string]any)
			is.True(ok)                                                       // an errors map
			is.Equal(errs["url_template"], []string{"Invalid URL template."}) // under url_template
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
			e := newMxEnv(t)
			_, err := e.svc.AddLinkifier(context.Background(), e.admin.ID, tc.pattern, "https://x.example/{id}")
			is.NoErr(err) // RE2 accepts a repeated group name
			got, _, _ := mxRender(t, e, tc.in)
			is.Equal(got, tc.want) // the leftmost group of the name supplies the value
		})
	}
}

// TestLinkifierAcrossDelimiters checks that linkifiers match text that
// goldmark splits at delimiter characters (_ * @ and others), in message
// content as in topics, while keeping the link, code and boundary rules.
func TestLinkifierAcrossDelimiters(t *testing.T) {
	e := newMxEnv(t)
	mxAddLinkifier(t, e, `FOO_BAR-(?P<id>\d+)`, "https://foo.example/{id}")
	mxAddLinkifier(t, e, `(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)`,
		"https://github.com/{org}/{repo}/pull/{id}")
	mxAddLinkifier(t, e, `mail@(?P<host>[a-z]+)`, "https://mail.example/{host}")
	mxAddLinkifier(t, e, `x\*(?P<n>[0-9]+)`, "https://times.example/{n}")
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
			got, _, _ := mxRender(t, e, tc.in)
			is.Equal(got, tc.want) // linkified across goldmark's text nodes
		})
	}
	t.Run("topic links agree", func(t *testing.T) {
		is := is.New(t)
		links, err := e.svc.TopicLinksForTest(context.Background(), e.realm.ID, "see FOO_BAR-7")
		is.NoErr(err)                                                                            // topic links computed
		is.Equal(links, []chatcore.TopicLink{{Text: "FOO_BAR-7", URL: "https://foo.example/7"}}) // the same match as in content
	})
}
