package chatcore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// addLinkifier adds a linkifier as e's admin and fails the test on error.
func addLinkifier(tb testing.TB, w *chattest.World, org *chattest.Messaging, pattern, tmpl string) chatcore.LinkifierID {
	tb.Helper()
	id, err := w.Svc.AddLinkifier(context.Background(), org.Admin.ID, pattern, tmpl)
	if err != nil {
		tb.Fatalf("add linkifier %q: %v", pattern, err)
	}
	return id
}

func TestAddLinkifierValidation(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	addLinkifier(t, w, org, `#(?P<id>[0-9]+)`, "https://github.com/zulip/zulip/issues/{id}")
	for _, tc := range []struct {
		name, pattern, tmpl string
		field, msg          string
	}{
		{"blank pattern", "", "https://example.com", "pattern", "This field cannot be blank."},
		{"blank pattern after trimming", "   ", "https://example.com", "pattern", "This field cannot be blank."},
		{"blank template", "#x", "", "url_template", "This field cannot be blank."},
		{"unclosed group", "(foo", "https://example.com", "__all__", "Bad regular expression: missing ): (foo"},
		{"repeated repetition", "#(?P<id>[0-9]+)????", "https://example.com/{id}", "__all__", "Bad regular expression: bad repetition operator: ????"},
		{"missing bracket", "[a", "https://example.com", "__all__", "Bad regular expression: missing ]: [a"},
		{"unclosed expression", "#(?P<id>[0-9]+)", "{id", "url_template", "Invalid URL template."},
		{"unclosed expression after a URL", "#(?P<id>[0-9]+)", "https://example.com/{foo", "url_template", "Invalid URL template."},
		{"variable without a group", "#(?P<id>[0-9]+)", "https://example.com/{id}/{zzz}/{other}", "__all__",
			"Group 'other' in URL template is not present in linkifier pattern."},
		{"group without a variable", "(?P<b>[a-z]+)-(?P<a>[0-9]+)", "https://example.com/", "__all__",
			"Group 'a' in linkifier pattern is not present in URL template."},
		{"duplicate pattern", " #(?P<id>[0-9]+) ", "https://example.com/{id}", "__all__",
			"Realm filter with this Realm and Pattern already exists."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := w.Svc.AddLinkifier(ctx, org.Admin.ID, tc.pattern, tc.tmpl)
			ce := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, tc.msg)
			errs, ok := ce.Data["errors"].(map[string]any)
			is.True(ok)                                // an errors map
			is.Equal(errs[tc.field], []string{tc.msg}) // the message under its field
			is.Equal(len(errs), 1)                     // nothing else
		})
	}
	t.Run("blank pattern and bad template report both fields", func(t *testing.T) {
		is := is.New(t)
		_, err := w.Svc.AddLinkifier(ctx, org.Admin.ID, "", "{id")
		ce := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "This field cannot be blank.")
		errs := ce.Data["errors"].(map[string]any)
		is.Equal(errs["pattern"], []string{"This field cannot be blank."}) // pattern first
		is.Equal(errs["url_template"], []string{"Invalid URL template."})  // and the template
	})
	for _, tc := range []struct{ name, pattern, tmpl string }{
		{"expansion operators", `(?P<a>x)(?P<b>y)(?P<x>z)(?P<d>w)(?P<f>v)`, "https://x/{?a,b}{/x}{.d}{#f:5}"},
		{"reserved expansion", `(?P<x>[a-z/]+)`, "https://x/{+x}"},
		{"not a URL at all", `\$x`, "$not_a_url$"},
		{"RE2 syntax", `(?i)jira-(?P<n>\d+)`, "https://jira/{n}"},
	} {
		t.Run("valid: "+tc.name, func(t *testing.T) {
			is := is.New(t)
			_, err := w.Svc.AddLinkifier(ctx, org.Admin.ID, tc.pattern, tc.tmpl)
			is.NoErr(err) // accepted
		})
	}
	t.Run("not an administrator", func(t *testing.T) {
		_, err := w.Svc.AddLinkifier(ctx, org.Member.ID, "", "")
		chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
	})
}

func TestLinkifierLifecycle(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	a := addLinkifier(t, w, org, "  #(?P<id>[0-9]+)  ", "  https://example.com/{id}  ")
	b := addLinkifier(t, w, org, `!(?P<id>[0-9]+)`, "https://example.com/mr/{id}")
	c := addLinkifier(t, w, org, `\$(?P<id>[0-9]+)`, "https://example.com/c/{id}")
	other, err := w.Svc.AddLinkifier(ctx, org.Stranger.ID, `#(?P<id>[0-9]+)`, "https://lear.example.com/{id}")
	is.NoErr(err) // the same pattern in another realm is fine

	list, err := w.Svc.Linkifiers(ctx, org.Member.ID)
	is.NoErr(err) // any member may list
	is.Equal(list, []chatcore.LinkifierView{
		{ID: a, Pattern: "#(?P<id>[0-9]+)", URLTemplate: "https://example.com/{id}"},
		{ID: b, Pattern: "!(?P<id>[0-9]+)", URLTemplate: "https://example.com/mr/{id}"},
		{ID: c, Pattern: `\$(?P<id>[0-9]+)`, URLTemplate: "https://example.com/c/{id}"},
	}) // trimmed, in creation order, this realm only

	is.NoErr(w.Svc.ReorderLinkifiers(ctx, org.Admin.ID, []chatcore.LinkifierID{c, a, b})) // reordered
	list, err = w.Svc.Linkifiers(ctx, org.Member.ID)
	is.NoErr(err)                                                                                         // listed
	is.Equal([]chatcore.LinkifierID{list[0].ID, list[1].ID, list[2].ID}, []chatcore.LinkifierID{c, a, b}) // new order

	d := addLinkifier(t, w, org, `%(?P<id>[0-9]+)`, "https://example.com/d/{id}")
	is.NoErr(w.Svc.RemoveLinkifier(ctx, org.Admin.ID, a)) // removed
	list, err = w.Svc.Linkifiers(ctx, org.Member.ID)
	is.NoErr(err)                                                                                         // listed
	is.Equal([]chatcore.LinkifierID{list[0].ID, list[1].ID, list[2].ID}, []chatcore.LinkifierID{c, b, d}) // others keep their order, the new one last

	t.Run("remove errors", func(t *testing.T) {
		err := w.Svc.RemoveLinkifier(ctx, org.Admin.ID, a)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Linkifier not found.")
		err = w.Svc.RemoveLinkifier(ctx, org.Admin.ID, other)
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Linkifier not found.")
		err = w.Svc.RemoveLinkifier(ctx, org.Member.ID, b)
		chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
		is := is.New(t)
		lear, err := w.Svc.Linkifiers(ctx, org.Stranger.ID)
		is.NoErr(err)          // listed
		is.Equal(len(lear), 1) // the other realm's linkifier survived
	})
	t.Run("reorder errors", func(t *testing.T) {
		err := w.Svc.ReorderLinkifiers(ctx, org.Admin.ID, []chatcore.LinkifierID{c, b})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The ordered list must enumerate all existing linkifiers exactly once")
		err = w.Svc.ReorderLinkifiers(ctx, org.Admin.ID, []chatcore.LinkifierID{c, b, other})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The ordered list must enumerate all existing linkifiers exactly once")
		err = w.Svc.ReorderLinkifiers(ctx, org.Admin.ID, []chatcore.LinkifierID{c, c, b})
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "The ordered list must not contain duplicated linkifiers")
		err = w.Svc.ReorderLinkifiers(ctx, org.Member.ID, []chatcore.LinkifierID{c, b, d})
		chattest.WantError(t, err, chatcore.CodeUnauthorizedPrincipal, chatcore.KindInvalid, "Must be an organization administrator")
	})
	t.Run("update", func(t *testing.T) {
		is := is.New(t)
		is.NoErr(w.Svc.UpdateLinkifier(ctx, org.Admin.ID, b, `!!(?P<n>[0-9]+)`, "https://example.com/n/{n}")) // updated
		list, err := w.Svc.Linkifiers(ctx, org.Member.ID)
		is.NoErr(err)                                                                                                          // listed
		is.Equal(list[1], chatcore.LinkifierView{ID: b, Pattern: `!!(?P<n>[0-9]+)`, URLTemplate: "https://example.com/n/{n}"}) // in place
		err = w.Svc.UpdateLinkifier(ctx, org.Admin.ID, b, `\$(?P<id>[0-9]+)`, "https://x/{id}")
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Realm filter with this Realm and Pattern already exists.")
		err = w.Svc.UpdateLinkifier(ctx, org.Admin.ID, other, `x`, "https://x")
		chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Linkifier not found.")
	})
}

// linkifierCheckingSink records realm_linkifiers events together with what the store
// held when each was published.
type linkifierCheckingSink struct {
	store  chatcore.Store
	events []chatcore.Event
	stored [][]chatcore.Linkifier
}

func (s *linkifierCheckingSink) Publish(ctx context.Context, events []chatcore.Event) {
	for _, ev := range events {
		if ev.Data["type"] != "realm_linkifiers" {
			continue
		}
		var ls []chatcore.Linkifier
		_ = s.store.View(ctx, func(tx chatcore.Tx) error {
			var err error
			ls, err = tx.Linkifiers(ctx, ev.RealmID)
			return err
		})
		s.events = append(s.events, ev)
		s.stored = append(s.stored, ls)
	}
}

func TestLinkifierEventsAfterCommit(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	sink := &linkifierCheckingSink{store: w.Base}
	svc := chatcore.New(w.Base, chatcore.WithEventSink(sink))
	gone := w.AddUser(t, org.Realm, "Gone", chatcore.RoleMember)
	w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
		gone.IsActive = false
		return tx.UpdateUser(ctx, gone)
	})

	a, err := svc.AddLinkifier(ctx, org.Admin.ID, `#(?P<id>[0-9]+)`, "https://x/{id}")
	is.NoErr(err) // added
	b, err := svc.AddLinkifier(ctx, org.Admin.ID, `!(?P<id>[0-9]+)`, "https://y/{id}")
	is.NoErr(err)                                                                    // added
	is.NoErr(svc.ReorderLinkifiers(ctx, org.Admin.ID, []chatcore.LinkifierID{b, a})) // reordered
	is.NoErr(svc.RemoveLinkifier(ctx, org.Admin.ID, b))                              // removed
	_, err = svc.AddLinkifier(ctx, org.Admin.ID, "(", "https://x")
	is.True(err != nil)                                       // refused
	is.NoErr(svc.RemoveLinkifier(ctx, org.Admin.ID, a))       // the last one
	is.True(svc.RemoveLinkifier(ctx, org.Admin.ID, a) != nil) // already gone

	is.Equal(len(sink.events), 5) // one per successful change, none for failures
	last := sink.events[3]
	is.Equal(last.Data["realm_linkifiers"], []chatcore.LinkifierView{{ID: a, Pattern: `#(?P<id>[0-9]+)`, URLTemplate: "https://x/{id}"}}) // the remaining list
	is.Equal(len(sink.stored[3]), 1)                                                                                                      // published after the removal had committed
	reordered := sink.events[2].Data["realm_linkifiers"].([]chatcore.LinkifierView)
	is.Equal([]chatcore.LinkifierID{reordered[0].ID, reordered[1].ID}, []chatcore.LinkifierID{b, a}) // in the new order
	is.Equal(sink.events[4].Data["realm_linkifiers"], []chatcore.LinkifierView{})                    // empty list, not null
	for _, ev := range sink.events {
		is.Equal(ev.RealmID, org.Realm.ID)                     // the realm's event
		is.True(slices.Contains(ev.UserIDs, org.Member.ID))    // to active users
		is.True(slices.Contains(ev.UserIDs, org.Bot.ID))       // bots included
		is.True(!slices.Contains(ev.UserIDs, gone.ID))         // not to deactivated users
		is.True(!slices.Contains(ev.UserIDs, org.Stranger.ID)) // not to other realms
	}
}

func TestTopicLinks(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	addLinkifier(t, w, org, `#(?P<id>[0-9]+)`, "https://github.com/zulip/zulip/issues/{id}")
	addLinkifier(t, w, org, `#(?P<id>[0-9]+)-x`, "https://other.example.com/{id}")
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
		addLinkifier(t, w, org, `JIRA-(?P<n>[0-9]+)`, "https://jira/{n}")
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
			_, err := w.Svc.AddLinkifier(context.Background(), org.Admin.ID, `#(?P<id>[0-9]+)`, tc.tmpl)
			is.NoErr(err) // the template is accepted
			got, _, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want) // the literal is percent-encoded as Zulip does
		})
	}
}

// TestLinkifierURLTemplateRefused checks that malformed expressions are
// still refused with Zulip's message.
func TestLinkifierURLTemplateRefused(t *testing.T) {
	w, org := chattest.NewMessaging(t)
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
			_, err := w.Svc.AddLinkifier(context.Background(), org.Admin.ID, `#(?P<id>[0-9]+)`, tmpl)
			ce := chattest.WantError(t, err, chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid URL template.")
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
			w, org := chattest.NewMessaging(t)
			_, err := w.Svc.AddLinkifier(context.Background(), org.Admin.ID, tc.pattern, "https://x.example/{id}")
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
	addLinkifier(t, w, org, `FOO_BAR-(?P<id>\d+)`, "https://foo.example/{id}")
	addLinkifier(t, w, org, `(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_-]+)#(?P<id>[0-9]+)`,
		"https://github.com/{org}/{repo}/pull/{id}")
	addLinkifier(t, w, org, `mail@(?P<host>[a-z]+)`, "https://mail.example/{host}")
	addLinkifier(t, w, org, `x\*(?P<n>[0-9]+)`, "https://times.example/{n}")
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
