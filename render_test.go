package chatcore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/messages"
	"github.com/matryer/is"
)

// renderFor renders content in e's realm and fails the test on error.
func renderFor(tb testing.TB, w *chattest.World, org *chattest.Messaging, content string) (string, []chatcore.UserID, bool) {
	tb.Helper()
	html, mentioned, isMe, err := w.Svc.RenderMessageForTest(context.Background(), org.Realm.ID, content)
	if err != nil {
		tb.Fatalf("render %q: %v", content, err)
	}
	return html, mentioned, isMe
}

func TestRenderMarkdownBasics(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	for _, tc := range []struct{ name, in, want string }{
		{"paragraph", "hello", "<p>hello</p>"},
		{"emphasis", "**bold** *it* ~~gone~~", "<p><strong>bold</strong> <em>it</em> <del>gone</del></p>"},
		{"line break inside a paragraph", "one\ntwo", "<p>one<br>\ntwo</p>"},
		{"two paragraphs", "one\n\ntwo", "<p>one</p>\n<p>two</p>"},
		{"code span", "run `ls -l`", "<p>run <code>ls -l</code></p>"},
		{"code block", "```\nx < y\n```", `<div class="codehilite"><pre><span></span><code>x &lt; y` + "\n</code></pre></div>"},
		{"code block with language", "```go\nfmt.Println()\n```",
			`<div class="codehilite" data-code-language="go"><pre><span></span><code>fmt.Println()` + "\n</code></pre></div>"},
		{"bare URL", "see https://example.com/a", `<p>see <a href="https://example.com/a">https://example.com/a</a></p>`},
		{"quote block", "```quote\nwise words\n```\nreply", "<blockquote>\n<p>wise words</p>\n</blockquote>\n<p>reply</p>"},
		{"quote fence inside a code block stays code", "````\n```quote\nx\n```\n````",
			"<div class=\"codehilite\"><pre><span></span><code>```quote\nx\n```\n</code></pre></div>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, _, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want) // rendered HTML
		})
	}
}

func TestRenderEscapesHTML(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	for _, tc := range []struct{ name, in, want string }{
		{"script block", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"inline tag", "hi <b onclick=\"x()\">there</b>", "<p>hi &lt;b onclick=&quot;x()&quot;&gt;there&lt;/b&gt;</p>"},
		{"image tag block", "<img src=x onerror=alert(1)>", "<p>&lt;img src=x onerror=alert(1)&gt;</p>"},
		{"javascript link", "[click](javascript:alert(1))", `<p><a href="">click</a></p>`},
		{"ampersand", "a & b", "<p>a &amp; b</p>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, _, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want)                     // escaped, never passed through
			is.True(!strings.Contains(got, "<script")) // no live script tag
		})
	}
}

func TestRenderMentions(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	hamlet := fmt.Sprintf(`<span class="user-mention" data-user-id="%d">@King Hamlet</span>`, org.Member.ID)
	for _, tc := range []struct {
		name      string
		in        string
		want      string
		mentioned []chatcore.UserID
	}{
		{"by name", "hi @**King Hamlet**", "<p>hi " + hamlet + "</p>", []chatcore.UserID{org.Member.ID}},
		{"by name, case-insensitively", "@**king hamlet**", "<p>" + hamlet + "</p>", []chatcore.UserID{org.Member.ID}},
		{"by name and id", fmt.Sprintf("@**King Hamlet|%d**", org.Member.ID), "<p>" + hamlet + "</p>", []chatcore.UserID{org.Member.ID}},
		{"a wrong name with an id is no mention", fmt.Sprintf("@**Someone|%d**", org.Other.ID),
			fmt.Sprintf("<p>@**Someone|%d**</p>", org.Other.ID), nil},
		{"silent", "@_**King Hamlet**",
			fmt.Sprintf(`<p><span class="user-mention silent" data-user-id="%d">King Hamlet</span></p>`, org.Member.ID), nil},
		{"unknown name stays text", "@**Nobody**", "<p>@**Nobody**</p>", nil},
		{"user of another realm by id", fmt.Sprintf("@**King Lear|%d**", org.Stranger.ID), fmt.Sprintf("<p>@**King Lear|%d**</p>", org.Stranger.ID), nil},
		{"user of another realm by name", "@**King Lear**", "<p>@**King Lear**</p>", nil},
		{"inside a code span", "`@**King Hamlet**`", "<p><code>@**King Hamlet**</code></p>", nil},
		{"inside a code block", "```\n@**King Hamlet**\n```",
			"<div class=\"codehilite\"><pre><span></span><code>@**King Hamlet**\n</code></pre></div>", nil},
		{"glued to a word", "x@**King Hamlet**", "<p>x@<strong>King Hamlet</strong></p>", nil},
		{"twice counts once", "@**King Hamlet** @**King Hamlet**", "<p>" + hamlet + " " + hamlet + "</p>", []chatcore.UserID{org.Member.ID}},
		{"two users", "@**Othello** @**King Hamlet**",
			fmt.Sprintf(`<p><span class="user-mention" data-user-id="%d">@Othello</span> %s</p>`, org.Other.ID, hamlet),
			[]chatcore.UserID{org.Member.ID, org.Other.ID}},
		{"bot", "@**Helper Bot**", fmt.Sprintf(`<p><span class="user-mention" data-user-id="%d">@Helper Bot</span></p>`, org.Bot.ID), []chatcore.UserID{org.Bot.ID}},
		{"inside a block quote", "> @**King Hamlet**",
			fmt.Sprintf("<blockquote>\n<p><span class=\"user-mention silent\" data-user-id=\"%d\">King Hamlet</span></p>\n</blockquote>", org.Member.ID), nil},
		{"inside a quote fence", "```quote\n@**King Hamlet**\n```",
			fmt.Sprintf("<blockquote>\n<p><span class=\"user-mention silent\" data-user-id=\"%d\">King Hamlet</span></p>\n</blockquote>", org.Member.ID), nil},
		{"wildcard", "@**all**", `<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span></p>`, nil},
		{"topic wildcard", "@**topic**", `<p><span class="topic-mention">@topic</span></p>`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, mentioned, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want)            // rendered like Zulip
			is.Equal(mentioned, tc.mentioned) // users really mentioned
		})
	}
	t.Run("deactivated user is rendered but not counted", func(t *testing.T) {
		is := is.New(t)
		gone := w.AddUser(t, org.Realm, "Yorick", chatcore.RoleMember)
		w.Write(t, func(ctx context.Context, tx chatcore.Tx) error {
			gone.IsActive = false
			return tx.UpdateUser(context.Background(), gone)
		})
		got, mentioned, _ := renderFor(t, w, org, "@**Yorick**")
		is.Equal(got, fmt.Sprintf(`<p><span class="user-mention" data-user-id="%d">@Yorick</span></p>`, gone.ID)) // rendered
		is.Equal(len(mentioned), 0)                                                                               // not an active user
	})
	t.Run("names are escaped", func(t *testing.T) {
		is := is.New(t)
		odd := w.AddUser(t, org.Realm, "<i>Odd</i>", chatcore.RoleMember)
		got, _, _ := renderFor(t, w, org, fmt.Sprintf("@**|%d**", odd.ID))
		is.Equal(got, fmt.Sprintf(`<p><span class="user-mention" data-user-id="%d">@&lt;i&gt;Odd&lt;/i&gt;</span></p>`, odd.ID)) // no markup from names
	})
}

func TestRenderMeMessage(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	for _, tc := range []struct {
		in   string
		isMe bool
	}{
		{"/me waves", true},
		{"/me", false},
		{"say /me waves", false},
		{"/metoo", false},
	} {
		t.Run(tc.in, func(t *testing.T) {
			is := is.New(t)
			_, _, isMe := renderFor(t, w, org, tc.in)
			is.Equal(isMe, tc.isMe) // /me status message
		})
	}
	t.Run("sent message", func(t *testing.T) {
		is := is.New(t)
		id := w.Send(t, org.Member, org.Public, "t", "/me waves")
		view, _, err := messages.One(context.Background(), w.Svc, org.Member.ID, id, messages.OneRequest{})
		is.NoErr(err)                              // readable
		is.True(view.IsMeMessage)                  // is_me_message
		is.Equal(view.Content, "<p>/me waves</p>") // content kept for clients to show
	})
}

func TestRenderLinkifiers(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	_, err := linkifiers.Add(ctx, w.Svc, org.Admin.ID, `#(?P<id>[0-9]+)`, "https://github.com/zulip/zulip/issues/{id}")
	if err != nil {
		t.Fatal(err)
	}
	_, err = linkifiers.Add(ctx, w.Svc, org.Admin.ID, `(?P<proj>[A-Z]+)-(?P<num>[0-9]+)`, "https://jira.example.com/{proj}/{num}")
	if err != nil {
		t.Fatal(err)
	}
	link := func(n string) string {
		return fmt.Sprintf(`<a href="https://github.com/zulip/zulip/issues/%s">#%s</a>`, n, n)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"start of message", "#1 fixed", "<p>" + link("1") + " fixed</p>"},
		{"after a space", "see #12", "<p>see " + link("12") + "</p>"},
		{"after an opening parenthesis", "(#3)", "<p>(" + link("3") + ")</p>"},
		{"after a quote", `"#4"`, "<p>&quot;" + link("4") + "&quot;</p>"},
		{"after a colon and a comma", "a:#5,#6", "<p>a:" + link("5") + "," + link("6") + "</p>"},
		{"after a letter", "a#7", "<p>a#7</p>"},
		{"followed by a letter", "#8b", "<p>#8b</p>"},
		{"followed by punctuation", "#9.", "<p>" + link("9") + ".</p>"},
		{"after a line break", "x\n#10", "<p>x<br>\n" + link("10") + "</p>"},
		{"inside emphasis", "**#11**", "<p><strong>" + link("11") + "</strong></p>"},
		{"not inside code", "`#12`", "<p><code>#12</code></p>"},
		{"not inside a link", "[#13](https://example.com)", `<p><a href="https://example.com">#13</a></p>`},
		{"not inside a bare URL", "https://example.com/#14", `<p><a href="https://example.com/#14">https://example.com/#14</a></p>`},
		{"several groups", "PROJ-42 done", `<p><a href="https://jira.example.com/PROJ/42">PROJ-42</a> done</p>`},
		{"two linkifiers in one text", "#1 and AB-2", "<p>" + link("1") + ` and <a href="https://jira.example.com/AB/2">AB-2</a></p>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, _, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want) // linkified as Zulip does
		})
	}
	t.Run("other realms are unaffected", func(t *testing.T) {
		is := is.New(t)
		got, _, _, err := w.Svc.RenderMessageForTest(ctx, org.OtherRealm.ID, "#1")
		is.NoErr(err)              // rendered
		is.Equal(got, "<p>#1</p>") // the realm has no linkifiers
	})
}

func BenchmarkRenderMessage(b *testing.B) {
	w, org := chattest.NewMessaging(b)
	ctx := context.Background()
	if _, err := linkifiers.Add(ctx, w.Svc, org.Admin.ID, `#(?P<id>[0-9]+)`, "https://example.com/{id}"); err != nil {
		b.Fatal(err)
	}
	content := strings.Repeat("Hello @**King Hamlet**, see #123 and **this** `code` https://example.com.\n\n", 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, _, err := w.Svc.RenderMessageForTest(ctx, org.Realm.ID, content); err != nil {
			b.Fatal(err)
		}
	}
}

func TestRenderConcurrently(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	ctx := context.Background()
	w.AddLinkifier(t, org.Admin, `#(?P<id>[0-9]+)`, "https://example.com/{id}")
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := w.Svc.SendMessage(ctx, org.Member.ID, chatcore.SendMessageRequest{
				Type: "stream", To: new("Verona"), Topic: new(fmt.Sprint("t", i)),
				Content: fmt.Sprintf("@**Othello** #%d `code`", i)})
			errs <- err
		}()
	}
	for range 8 {
		is.NoErr(<-errs) // every concurrent send succeeds
	}
	res, err := messages.Get(ctx, w.Svc, org.Other.ID, messages.Request{Anchor: new("newest"), NumBefore: new(10)})
	is.NoErr(err)                  // fetched
	is.Equal(len(res.Messages), 8) // all of them
	for _, m := range res.Messages {
		is.True(strings.Contains(m.Content, `<a href="https://example.com/`)) // linkified
		is.True(strings.Contains(m.Content, `class="user-mention"`))          // mention rendered
	}
}

func TestRenderChannelLinks(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	id := org.Public.ID
	for _, tc := range []struct{ name, in, want string }{
		{"channel", "see #**Verona**",
			fmt.Sprintf(`<p>see <a class="stream" data-stream-id="%d" href="/#narrow/channel/%d-Verona">#Verona</a></p>`, id, id)},
		{"channel, case-insensitively", "#**verona**",
			fmt.Sprintf(`<p><a class="stream" data-stream-id="%d" href="/#narrow/channel/%d-Verona">#Verona</a></p>`, id, id)},
		{"topic", "#**Verona>hi there**",
			fmt.Sprintf(`<p><a class="stream-topic" data-stream-id="%d" href="/#narrow/channel/%d-Verona/topic/hi.20there">#Verona &gt; hi there</a></p>`, id, id)},
		{"message", "#**Verona>a.b (c)@12**",
			fmt.Sprintf(`<p><a class="message-link" href="/#narrow/channel/%d-Verona/topic/a.2Eb.20.28c.29/near/12">#Verona &gt; a.b (c) @ 💬</a></p>`, id)},
		{"unknown channel stays text", "#**Nowhere**", "<p>#**Nowhere**</p>"},
		{"channel of another realm stays text", "#**Denmark**", "<p>#**Denmark**</p>"},
		{"inside code", "`#**Verona**`", "<p><code>#**Verona**</code></p>"},
		{"heading is untouched", "# Verona", "<h1>Verona</h1>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, _, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want) // Zulip's channel link markup
		})
	}
}

func TestRenderQuoteNestingIsBounded(t *testing.T) {
	is := is.New(t)
	w, org := chattest.NewMessaging(t)
	got, _, _ := renderFor(t, w, org, strings.Repeat("```quote\n", 50)+"deep")
	is.Equal(strings.Count(got, "<blockquote>"), 8) // deeper quote fences stay code blocks
	is.True(strings.Contains(got, "deep"))          // the text is still there
	two, _, _ := renderFor(t, w, org, "```quote\n```quote\ninner\n```\nouter\n```")
	is.Equal(two, "<blockquote>\n<blockquote>\n<p>inner</p>\n</blockquote>\n<p>outer</p>\n</blockquote>") // nesting within the bound
}

func BenchmarkRenderNestedQuotes(b *testing.B) {
	w, org := chattest.NewMessaging(b)
	content := strings.Repeat("```quote\n", 2000)
	b.ReportAllocs()
	for b.Loop() {
		renderFor(b, w, org, content)
	}
}

// TestRenderMentionNameAndID checks Zulip's rule for @**Name|id**: the user is
// mentioned only when Name is exactly their full name; otherwise the text
// stays as written and nobody is mentioned (so no outgoing webhook fires).
func TestRenderMentionNameAndID(t *testing.T) {
	w, org := chattest.NewMessaging(t)
	hamlet := fmt.Sprintf(`<span class="user-mention" data-user-id="%d">@King Hamlet</span>`, org.Member.ID)
	bot := fmt.Sprintf(`<span class="user-mention" data-user-id="%d">@Helper Bot</span>`, org.Bot.ID)
	for _, tc := range []struct {
		name      string
		in        string
		want      string
		mentioned []chatcore.UserID
	}{
		{"exact name and id", fmt.Sprintf("@**King Hamlet|%d**", org.Member.ID), "<p>" + hamlet + "</p>", []chatcore.UserID{org.Member.ID}},
		{"id alone", fmt.Sprintf("@**|%d**", org.Member.ID), "<p>" + hamlet + "</p>", []chatcore.UserID{org.Member.ID}},
		{"wrong name", fmt.Sprintf("@**Wrong Name|%d**", org.Member.ID), fmt.Sprintf("<p>@**Wrong Name|%d**</p>", org.Member.ID), nil},
		{"another user's name", fmt.Sprintf("@**Othello|%d**", org.Member.ID), fmt.Sprintf("<p>@**Othello|%d**</p>", org.Member.ID), nil},
		{"name in another case", fmt.Sprintf("@**king hamlet|%d**", org.Member.ID), fmt.Sprintf("<p>@**king hamlet|%d**</p>", org.Member.ID), nil},
		{"silent with a wrong name", fmt.Sprintf("@_**Wrong|%d**", org.Member.ID), fmt.Sprintf("<p>@_**Wrong|%d**</p>", org.Member.ID), nil},
		{"webhook bot by the wrong name", fmt.Sprintf("@**Helper|%d**", org.Bot.ID), fmt.Sprintf("<p>@**Helper|%d**</p>", org.Bot.ID), nil},
		{"webhook bot by its name", fmt.Sprintf("@**Helper Bot|%d**", org.Bot.ID), "<p>" + bot + "</p>", []chatcore.UserID{org.Bot.ID}},
		{"wrong name beside a good mention", fmt.Sprintf("@**Wrong|%d** @**King Hamlet**", org.Bot.ID),
			fmt.Sprintf("<p>@**Wrong|%d** %s</p>", org.Bot.ID, hamlet), []chatcore.UserID{org.Member.ID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			is := is.New(t)
			got, mentioned, _ := renderFor(t, w, org, tc.in)
			is.Equal(got, tc.want)            // rendered as a mention only with the exact name
			is.Equal(mentioned, tc.mentioned) // only real mentions count
		})
	}
}
