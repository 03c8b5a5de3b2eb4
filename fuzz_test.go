package chatcore_test

// Fuzz targets for the places where bytes from outside reach the domain:
// topic names and Markdown rendering (linkifier validation is fuzzed in
// package linkifiers, the fixture loader in package fixture, the wire
// parameters in internal/wire). Each target asserts properties, not just "no
// panic": failures are *chatcore.Error values with a message, accepted input
// round-trips, and what is stored obeys Zulip's limits. Seeds live in f.Add calls and in testdata/fuzz/<Target>/.
//
// Run one for a minute with:
//
//	go test -run '^$' -fuzz '^FuzzTopicName$' -fuzztime 60s .

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/channels"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/messages"
	"github.com/chatcore/chatcore/store/memory"
)

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
		res, err := channels.DeleteTopic(t.Context(), svc, chattest.WorldAdmin, chattest.WorldGeneral, view.Subject)
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
		chattest.CheckHTML(t, content, html)
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
