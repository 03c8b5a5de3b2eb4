package chatcore_test

// Fuzz targets for the places where bytes from outside reach the domain:
// linkifier validation, topic names and Markdown rendering (the fixture loader
// is fuzzed in package fixture, the wire parameters in internal/wire). Each target
// asserts properties, not just "no panic": failures are *chatcore.Error values
// with a message, accepted input round-trips, and what is stored obeys Zulip's
// limits. Seeds live in f.Add calls and in testdata/fuzz/<Target>/.
//
// Run one for a minute with:
//
//	go test -run '^$' -fuzz '^FuzzTopicName$' -fuzztime 60s .

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/internal/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store/memory"
	"github.com/matryer/is"
)

// oneRealmFixture is a minimal fixture with one owner and the given linkifiers.
func oneRealmFixture(linkifiers []map[string]any) []byte {
	realm := map[string]any{
		"id": 1, "string_id": "acme", "name": "Acme",
		"users": []map[string]any{{"id": 11, "email": "owner@acme.test", "full_name": "Olivia Owner",
			"role": "owner", "api_key": "fzOwner000000000000000000000000a"}},
	}
	if linkifiers != nil {
		realm["linkifiers"] = linkifiers
	}
	b, _ := json.Marshal(map[string]any{"realms": []any{realm}})
	return b
}

func FuzzLinkifier(f *testing.F) {
	f.Add("#(?P<id>[0-9]+)", "https://tracker.example/issues/{id}", "see #42 and #7")
	f.Add("(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<n>[0-9]+)", "https://github.com/{org}/{repo}/pull/{n}", "chatcore/chatcore#12")
	f.Add("JIRA-(?P<k>\\d+)", "https://jira.example/browse/JIRA-{k}", "JIRA-1 **JIRA-2** `JIRA-3`")
	f.Add("(?P<x>a)", "https://x.example/{?x}", "a")
	f.Add("(?P<x>a)", "https://x.example/{+x}{#x}", "aaa")
	f.Add("(?P<id>", "https://x.example/{id}", "")
	f.Add("(?P<id>1)", "https://x.example/{id", "1")
	f.Add("(?P<id>1)", "https://x.example/{other}", "1")
	f.Add("(?P<a>1)(?P<b>2)", "https://x.example/{a}", "12")
	f.Add("", "", "")
	f.Add("x{1001}", "https://x.example/", "x")
	f.Add("(?i)café", "javascript:alert(1)", "CAFÉ")
	f.Add("\xff", "https://x.example/\xff", "\xff")
	f.Add("(?P<id>[0-9]+)", "https://x.example/{id}?q=<script>", "<script>1</script>")
	f.Fuzz(func(t *testing.T, pattern, tmpl, text string) {
		store := memory.New()
		svc := chatcore.New(store, chatcore.WithPasswordHasher(plainHasher{}))
		if err := fixture.Load(t.Context(), svc, bytes.NewReader(oneRealmFixture(nil))); err != nil {
			t.Fatal(err)
		}
		id, err := svc.AddLinkifier(t.Context(), chattest.WorldOwner, pattern, tmpl)
		// The fixture loader applies the same validation.
		ferr := fixture.Load(t.Context(), chatcore.New(memory.New(), chatcore.WithPasswordHasher(plainHasher{})),
			bytes.NewReader(oneRealmFixture([]map[string]any{{"id": 1, "pattern": pattern, "url_template": tmpl}})))
		if err != nil {
			chattest.APIError(t, err, []string{pattern, tmpl})
			if ferr == nil && validUTF8(pattern, tmpl) {
				t.Fatalf("AddLinkifier refused %q → %q (%v) but a fixture with it loads", pattern, tmpl, err)
			}
			return
		}
		if ferr != nil && validUTF8(pattern, tmpl) {
			t.Fatalf("AddLinkifier accepted %q → %q but a fixture with it is refused: %v", pattern, tmpl, ferr)
		}
		html, _, _, err := svc.RenderMessageForTest(t.Context(), chattest.WorldRealm, text)
		if err != nil {
			t.Fatalf("rendering %q: %v", text, err)
		}
		checkHTML(t, text, html)
		links, err := svc.TopicLinksForTest(t.Context(), chattest.WorldRealm, text)
		if err != nil {
			t.Fatalf("topic links of %q: %v", text, err)
		}
		for _, l := range links {
			if utf8.ValidString(text) && (!utf8.ValidString(l.URL) || !utf8.ValidString(l.Text)) {
				t.Fatalf("topic link of %q is not valid UTF-8: %+v", text, l)
			}
		}
		if err := svc.RemoveLinkifier(t.Context(), chattest.WorldOwner, id); err != nil {
			t.Fatalf("removing linkifier %d: %v", id, err)
		}
		left, err := svc.Linkifiers(t.Context(), chattest.WorldOwner)
		if err != nil || len(left) != 0 {
			t.Fatalf("linkifiers after removal: %v, %v", left, err)
		}
	})
}

func FuzzTopicName(f *testing.F) {
	f.Add("lunch")
	f.Add("LUNCH")
	f.Add("Straße")
	f.Add("  padded  ")
	f.Add("")
	f.Add("general chat")
	f.Add("General Chat")
	f.Add(strings.Repeat("a", 61))
	f.Add(strings.Repeat("é", 58) + "😀😀😀")
	f.Add(strings.Repeat("😀", 70))
	f.Add("tab\there")
	f.Add("nul\x00")
	f.Add("\xff\xfe")
	f.Add("ﬃ ǅ İ ς ᾈ")
	f.Add("\u200b\u00ad")
	f.Add("a\u0301")
	svc := chattest.LoadWorld(f, memory.New())
	f.Fuzz(func(t *testing.T, topic string) {
		key := chatcore.FoldKey(topic)
		if chatcore.FoldKey(key) != key {
			t.Fatalf("FoldKey is not idempotent on %q: %q then %q", topic, key, chatcore.FoldKey(key))
		}
		if utf8.ValidString(topic) && !utf8.ValidString(key) {
			t.Fatalf("FoldKey(%q) = %q is not valid UTF-8", topic, key)
		}
		tkey := chatcore.TopicKey(topic)
		if chatcore.TopicKey(tkey) != tkey {
			t.Fatalf("TopicKey is not idempotent on %q: %q then %q", topic, tkey, chatcore.TopicKey(tkey))
		}
		if utf8.ValidString(topic) && !utf8.ValidString(tkey) {
			t.Fatalf("TopicKey(%q) = %q is not valid UTF-8", topic, tkey)
		}
		id, err := svc.SendMessage(t.Context(), chattest.WorldMember, chatcore.SendMessageRequest{
			Type: "stream", To: new("general"), Topic: &topic, Content: "topic fuzz",
		})
		if err != nil {
			e := chattest.APIError(t, err, topic)
			if e.Kind != chatcore.KindInvalid {
				t.Fatalf("topic %q: refusal of kind %v", topic, e.Kind)
			}
			return
		}
		var stored string
		err = svc.Store().View(t.Context(), func(tx chatcore.Tx) error {
			m, err := tx.Message(t.Context(), id)
			if err != nil {
				return err
			}
			stored = m.Topic
			if m.TopicKey != chatcore.TopicKey(m.Topic) {
				t.Fatalf("topic %q stored with key %q, want TopicKey %q", m.Topic, m.TopicKey, chatcore.TopicKey(m.Topic))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(stored) || utf8.RuneCountInString(stored) > chatcore.MaxTopicLength {
			t.Fatalf("topic %q stored as %q (%d characters)", topic, stored, utf8.RuneCountInString(stored))
		}
		trimmed := strings.TrimSpace(topic)
		if utf8.RuneCountInString(trimmed) <= chatcore.MaxTopicLength && stored != trimmed && !(stored == "" && trimmed == chatcore.DefaultEmptyTopicDisplayName) {
			t.Fatalf("topic %q within the limit stored as %q", topic, stored)
		}
		if utf8.RuneCountInString(trimmed) > chatcore.MaxTopicLength && !strings.HasSuffix(stored, "...") {
			t.Fatalf("long topic %q stored as %q without the marker", topic, stored)
		}
		// The topic as stored (and as clients see it) deletes the message.
		view, _, err := messages.One(t.Context(), svc, chattest.WorldMember, id, messages.OneRequest{})
		if err != nil {
			t.Fatalf("reading message %d: %v", id, err)
		}
		res, err := svc.DeleteTopic(t.Context(), chattest.WorldAdmin, chattest.WorldGeneral, view.Subject)
		if err != nil || !res.Complete {
			t.Fatalf("deleting topic %q (sent as %q): %+v, %v", view.Subject, topic, res, err)
		}
		if _, _, err := messages.One(t.Context(), svc, chattest.WorldMember, id, messages.OneRequest{}); chatcore.ErrorCode(err) != chatcore.CodeBadRequest {
			t.Fatalf("message %d in topic %q survived its deletion: %v", id, view.Subject, err)
		}
	})
}

func FuzzMarkdown(f *testing.F) {
	for _, s := range []string{
		"**bold** _it_ `code` [link](https://example.com)",
		"<script>alert(1)</script>",
		"<SCRIPT SRC=//x.example/a.js></SCRIPT>",
		"<img src=x onerror=alert(1)>",
		"[x](javascript:alert(1))",
		"[x](JaVaScRiPt:alert(1))",
		"![x](javascript:alert(1))",
		"<a href=\"javascript:alert(1)\">x</a>",
		"```\n<script>\n```",
		"```quote\n<script>x\n```",
		"```python\nprint('<b>')\n```",
		"@**Mia Member** and @_**Adam Admin|12** and @**all**",
		"@**<script>|14**",
		"see #12 <#12> [#12](#12)",
		"/me waves",
		"| a | b |\n|---|---|\n| <script> | ~~x~~ |",
		"> quote\n> <iframe src=x>",
		"https://example.com/<script>",
		"<!-- comment --><style>x</style>",
		"&lt;script&gt; &#60;script&#62; &#x3c;script",
		"\x00<script>",
		"a\xffb",
		strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
		strings.Repeat("> ", 500) + "deep",
		strings.Repeat("*", 3000),
	} {
		f.Add(s)
	}
	svc := chattest.LoadWorld(f, memory.New())
	f.Fuzz(func(t *testing.T, content string) {
		html, mentioned, _, err := svc.RenderMessageForTest(t.Context(), chattest.WorldRealm, content)
		if err != nil {
			t.Fatalf("rendering %q: %v", content, err)
		}
		checkHTML(t, content, html)
		known := map[chatcore.UserID]bool{11: true, 12: true, 14: true, 15: true, 31: true}
		for _, id := range mentioned {
			if !known[id] {
				t.Fatalf("%q mentions user %d, who is not an active user of the realm", content, id)
			}
		}
		if !slices.IsSorted(mentioned) {
			t.Fatalf("mentioned users of %q not sorted: %v", content, mentioned)
		}
	})
}

// checkHTML checks rendered HTML: valid UTF-8 when the input was, and no
// active content: no script, style, iframe, object or embed element, no on*
// event attribute, and no javascript:, vbscript: or data: URL in href or src.
// Text from the input can only reach the output escaped, so every raw '<' in
// the output starts a tag the renderer wrote.
func checkHTML(tb testing.TB, input, html string) {
	tb.Helper()
	if utf8.ValidString(input) && !utf8.ValidString(html) {
		tb.Fatalf("%q rendered to invalid UTF-8: %q", input, html)
	}
	for _, tag := range htmlTags(html) {
		switch tag.name {
		case "script", "style", "iframe", "object", "embed", "frame", "frameset", "meta", "link", "base", "form":
			tb.Fatalf("%q rendered a <%s> element: %s", input, tag.name, html)
		}
		for name, value := range tag.attrs {
			if strings.HasPrefix(name, "on") {
				tb.Fatalf("%q rendered an event attribute %s=%q: %s", input, name, value, html)
			}
			if name == "href" || name == "src" || name == "action" || name == "formaction" {
				v := strings.ToLower(strings.Map(func(r rune) rune {
					if r <= ' ' {
						return -1
					}
					return r
				}, unescapeHTML(value)))
				for _, scheme := range []string{"javascript:", "vbscript:", "data:"} {
					if strings.HasPrefix(v, scheme) {
						tb.Fatalf("%q rendered a %s URL in %s: %s", input, scheme, name, html)
					}
				}
			}
		}
	}
}

// htmlTag is one start or end tag of rendered HTML.
type htmlTag struct {
	name  string
	attrs map[string]string
}

// htmlTags is a small tokenizer for the renderer's output: it finds each '<'
// followed by a letter or '/', reads the tag name and its attributes (quoted
// or bare values). It is strict enough for HTML the renderer writes, in which
// text never contains a raw '<'.
func htmlTags(html string) []htmlTag {
	var tags []htmlTag
	for i := 0; i < len(html); i++ {
		if html[i] != '<' || i+1 >= len(html) {
			continue
		}
		j := i + 1
		if html[j] == '/' || html[j] == '!' || html[j] == '?' {
			j++
		}
		start := j
		for j < len(html) && (isASCIILetter(html[j]) || (j > start && html[j] >= '0' && html[j] <= '9')) {
			j++
		}
		if j == start {
			continue
		}
		tag := htmlTag{name: strings.ToLower(html[start:j]), attrs: map[string]string{}}
		for j < len(html) && html[j] != '>' {
			for j < len(html) && (html[j] == ' ' || html[j] == '\t' || html[j] == '\n' || html[j] == '\r' || html[j] == '/') {
				j++
			}
			ns := j
			for j < len(html) && !strings.ContainsRune(" \t\n\r/>=", rune(html[j])) {
				j++
			}
			name := strings.ToLower(html[ns:j])
			value := ""
			if j < len(html) && html[j] == '=' {
				j++
				if j < len(html) && (html[j] == '"' || html[j] == '\'') {
					q := html[j]
					end := strings.IndexByte(html[j+1:], q)
					if end < 0 {
						end = len(html) - j - 1
					}
					value = html[j+1 : j+1+end]
					j += end + 2
				} else {
					vs := j
					for j < len(html) && !strings.ContainsRune(" \t\n\r>", rune(html[j])) {
						j++
					}
					value = html[vs:j]
				}
			}
			if name != "" {
				tag.attrs[name] = value
			} else if j < len(html) && html[j] != '>' {
				j++ // a stray character: skip it
			}
		}
		tags = append(tags, tag)
		i = j
	}
	return tags
}

// validUTF8 reports whether every string is valid UTF-8 (JSON encoding would
// change the others).
func validUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

func isASCIILetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// unescapeHTML undoes the character references a browser would decode in an
// attribute value before looking at the URL scheme (the numeric forms and
// the few named ones that matter for "javascript:").
func unescapeHTML(s string) string {
	if !strings.Contains(s, "&") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '&' {
			b.WriteByte(s[i])
			continue
		}
		end := strings.IndexByte(s[i:], ';')
		if end < 0 || end > 10 {
			b.WriteByte(s[i])
			continue
		}
		ref := s[i+1 : i+end]
		var r rune = -1
		switch {
		case strings.HasPrefix(ref, "#x") || strings.HasPrefix(ref, "#X"):
			r = parseRune(ref[2:], 16)
		case strings.HasPrefix(ref, "#"):
			r = parseRune(ref[1:], 10)
		case ref == "colon":
			r = ':'
		case ref == "Tab":
			r = '\t'
		case ref == "NewLine":
			r = '\n'
		case ref == "amp":
			r = '&'
		}
		if r < 0 {
			b.WriteByte(s[i])
			continue
		}
		b.WriteRune(r)
		i += end
	}
	return b.String()
}

func parseRune(digits string, base int) rune {
	if digits == "" {
		return -1
	}
	var n rune
	for _, c := range digits {
		var d rune
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case base == 16 && c|0x20 >= 'a' && c|0x20 <= 'f':
			d = c | 0x20 - 'a' + 10
		default:
			return -1
		}
		n = n*rune(base) + d
		if n > utf8.MaxRune {
			return -1
		}
	}
	return n
}

// TestFuzzHelpers checks that the HTML checks of the fuzz targets catch what
// they are there to catch, so a passing fuzz run means something.
func TestFuzzHelpers(t *testing.T) {
	for _, bad := range []string{
		`<p><script>x</script></p>`,
		`<p><a href="javascript:alert(1)">x</a></p>`,
		`<p><a href="&#106;avascript:alert(1)">x</a></p>`,
		`<p><a href=" JaVa&#x09;Script:alert(1)">x</a></p>`,
		`<img src=x onerror=alert(1)>`,
		`<IFRAME src="https://x.example">`,
		`<p><img alt="a" src="data:text/html,x"></p>`,
	} {
		t.Run(bad, func(t *testing.T) {
			is := is.New(t)
			ft := &recordingTB{TB: t}
			func() {
				defer func() { _ = recover() }()
				checkHTML(ft, "input", bad)
			}()
			is.True(ft.failed) // the check flags it
		})
	}
	for _, good := range []string{
		`<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>`,
		`<p><a href="https://example.com/?q=javascript:x">x</a> <img src="https://x.example/a.png" alt="onerror=x"></p>`,
		`<div class="codehilite"><pre><span></span><code>&lt;iframe&gt;</code></pre></div>`,
	} {
		t.Run(good, func(t *testing.T) {
			is := is.New(t)
			ft := &recordingTB{TB: t}
			checkHTML(ft, "input", good)
			is.True(!ft.failed) // harmless markup passes
		})
	}
}

// recordingTB records Fatalf instead of stopping the test, so the helper
// tests can observe a failure.
type recordingTB struct {
	testing.TB
	failed bool
}

func (r *recordingTB) Fatalf(string, ...any) { r.failed = true; panic("fatal") }
func (r *recordingTB) Helper()               {}
