package htmldiff

import "testing"

func TestDiff(t *testing.T) {
	cases := []struct{ old, new, want string }{
		{"<p>same</p>", "<p>same</p>", "<p>same</p>"},
		{"<p>hello world</p>", "<p>hello there world</p>",
			`<p>hello <span class="highlight_text_inserted">there </span>world</p>`},
		{"<p>hello old world</p>", "<p>hello world</p>",
			`<p>hello <span class="highlight_text_deleted">old </span>world</p>`},
		{"<p>a</p>", "<p>b</p>",
			`<p><span class="highlight_text_deleted">a</span><span class="highlight_text_inserted">b</span></p>`},
	}
	for _, c := range cases {
		if got := Diff(c.old, c.new); got != c.want {
			t.Errorf("Diff(%q, %q) = %q, want %q", c.old, c.new, got, c.want)
		}
	}
}
