package fulltext

import (
	"slices"
	"testing"
)

func TestLexemes(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"Running runs RUN", []string{"run", "run", "run"}},
		{"the cat and the hat", []string{"cat", "hat"}},
		{"see https://google.com today", []string{"see", "google.com", "today"}},
		{"end. Next", []string{"end", "next"}},
		{"can't won't", []string{"won"}},
		{"Zürich café", []string{"zürich", "café"}},
	} {
		if got := Lexemes(c.text); !slices.Equal(got, c.want) {
			t.Errorf("Lexemes(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestText(t *testing.T) {
	got := Text(`<p>a <a href="https://x.test/pizza">docs</a> &amp; <code>x&lt;y</code></p>`)
	if want := " a  docs  &  x<y  "; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}

func TestParse(t *testing.T) {
	q := Parse(`"Running late" tomorrow the running`)
	if !slices.Equal(q.Lexemes, []string{"run", "late", "tomorrow"}) || !slices.Equal(q.Phrases, []string{"Running late"}) {
		t.Errorf("Parse = %+v", q)
	}
	if q := Parse("the and"); len(q.Lexemes) != 0 {
		t.Errorf("stop words: %+v", q)
	}
}

func TestHighlight(t *testing.T) {
	for _, c := range []struct{ html, query, want string }{
		{"<p>discuss lunch after lunch</p>", "lunch",
			`<p>discuss <span class="highlight">lunch</span> after <span class="highlight">lunch</span></p>`},
		{"<p>I am hungry!</p>", "lunch", "<p>I am hungry!</p>"},
		{`<p><a href="https://google.com">https://google.com</a></p>`, "https://google.com",
			`<p><a href="https://google.com">https://<span class="highlight">google.com</span></a></p>`},
		{`<p><a href="https://x.test/pizza">docs</a> &amp; pizzas</p>`, "pizza",
			`<p><a href="https://x.test/pizza">docs</a> &amp; <span class="highlight">pizzas</span></p>`},
		{"lunch plans", "Lunches", `<span class="highlight">lunch</span> plans`},
		{"a & b lunch", "lunch", `a & b <span class="highlight">lunch</span>`},
	} {
		if got := Highlight(c.html, Parse(c.query).Lexemes); got != c.want {
			t.Errorf("Highlight(%q, %q) =\n %s\nwant\n %s", c.html, c.query, got, c.want)
		}
	}
}

func TestMatches(t *testing.T) {
	q := Parse(`"late run" pizza`)
	if q.Matches("pizza", "we run late", "<p>we run late</p>") {
		t.Error("phrase must be contained")
	}
	if !q.Matches("Pizza", "LATE RUN", "<p>LATE RUN</p>") {
		t.Error("case-insensitive phrase, topic word")
	}
	if (Query{}).Matches("a", "b", "c") {
		t.Error("an empty query matches nothing")
	}
}
