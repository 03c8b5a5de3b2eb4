package linkifiers_test

// FuzzLinkifier: a linkifier from outside is validated as the fixture loader
// validates it, and rendering with an accepted one stays safe. Seeds live in
// f.Add calls and in testdata/fuzz/FuzzLinkifier/.
//
// Run it for a minute with:
//
//	go test -run '^$' -fuzz '^FuzzLinkifier$' -fuzztime 60s ./linkifiers

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/fixture"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/linkifiers"
	"github.com/chatcore/chatcore/store/memory"
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
		svc := chatcore.New(store, chatcore.WithPasswordHasher(chattest.PlainHasher{}))
		if err := fixture.Load(t.Context(), svc, bytes.NewReader(oneRealmFixture(nil))); err != nil {
			t.Fatal(err)
		}
		id, err := linkifiers.Add(t.Context(), svc, chattest.WorldOwner, pattern, tmpl)
		// The fixture loader applies the same validation.
		ferr := fixture.Load(t.Context(), chatcore.New(memory.New(), chatcore.WithPasswordHasher(chattest.PlainHasher{})),
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
		var html string
		err = svc.View(t.Context(), func(tx chatcore.Tx) error {
			var err error
			html, _, _, err = svc.RenderMessage(t.Context(), tx, chattest.WorldRealm, text)
			return err
		})
		if err != nil {
			t.Fatalf("rendering %q: %v", text, err)
		}
		chattest.CheckHTML(t, text, html)
		var links []chatcore.TopicLink
		err = svc.View(t.Context(), func(tx chatcore.Tx) error {
			var err error
			links, err = svc.TopicLinksIn(t.Context(), tx, chattest.WorldRealm, text)
			return err
		})
		if err != nil {
			t.Fatalf("topic links of %q: %v", text, err)
		}
		for _, l := range links {
			if utf8.ValidString(text) && (!utf8.ValidString(l.URL) || !utf8.ValidString(l.Text)) {
				t.Fatalf("topic link of %q is not valid UTF-8: %+v", text, l)
			}
		}
		if err := linkifiers.Remove(t.Context(), svc, chattest.WorldOwner, id); err != nil {
			t.Fatalf("removing linkifier %d: %v", id, err)
		}
		left, err := linkifiers.List(t.Context(), svc, chattest.WorldOwner)
		if err != nil || len(left) != 0 {
			t.Fatalf("linkifiers after removal: %v, %v", left, err)
		}
	})
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
