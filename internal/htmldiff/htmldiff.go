// Package htmldiff marks the differences between two renderings of a
// message, for the content_html_diff of Zulip's message edit history: the
// new HTML with inserted text wrapped in <span
// class="highlight_text_inserted"> and removed text, re-inserted where it
// was, in <span class="highlight_text_deleted">. Tags are kept as they are
// in the new HTML (a removed tag is dropped); text is compared word by word.
package htmldiff

import (
	"strings"
)

// maxCells bounds the comparison table; larger inputs are marked as a whole
// replacement instead of word by word.
const maxCells = 4 << 20

type token struct {
	s   string
	tag bool
}

// tokenize splits HTML into tags and text words (a word keeps its
// trailing spaces).
func tokenize(h string) []token {
	var out []token
	for len(h) > 0 {
		if h[0] == '<' {
			end := strings.IndexByte(h, '>')
			if end < 0 {
				end = len(h) - 1
			}
			out = append(out, token{s: h[:end+1], tag: true})
			h = h[end+1:]
			continue
		}
		i := 0
		for i < len(h) && h[i] != '<' && h[i] != ' ' && h[i] != '\n' {
			i++
		}
		for i < len(h) && (h[i] == ' ' || h[i] == '\n') {
			i++
		}
		if i == 0 {
			i = 1
		}
		out = append(out, token{s: h[:i]})
		h = h[i:]
	}
	return out
}

// Diff returns newHTML with the differences from oldHTML marked.
func Diff(oldHTML, newHTML string) string {
	if oldHTML == newHTML {
		return newHTML
	}
	a, b := tokenize(oldHTML), tokenize(newHTML)
	var sb strings.Builder
	if (len(a)+1)*(len(b)+1) > maxCells {
		writeSpan(&sb, "highlight_text_deleted", a)
		writeSpan(&sb, "highlight_text_inserted", b)
		return sb.String()
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:], b[j:].
	w := len(b) + 1
	lcs := make([]int32, (len(a)+1)*w)
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	var del, ins []token
	flush := func() {
		writeSpan(&sb, "highlight_text_deleted", del)
		writeSpan(&sb, "highlight_text_inserted", ins)
		del, ins = del[:0], ins[:0]
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			flush()
			sb.WriteString(b[j].s)
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i*w+j+1] >= lcs[(i+1)*w+j]):
			if b[j].tag {
				flush()
				sb.WriteString(b[j].s)
			} else {
				ins = append(ins, b[j])
			}
			j++
		default:
			if !a[i].tag {
				del = append(del, a[i])
			}
			i++
		}
	}
	flush()
	return sb.String()
}

// writeSpan writes the text of toks wrapped in a span of the class (tags
// are written outside it, as they are).
func writeSpan(sb *strings.Builder, class string, toks []token) {
	open := false
	for _, t := range toks {
		if t.tag {
			if open {
				sb.WriteString("</span>")
				open = false
			}
			sb.WriteString(t.s)
			continue
		}
		if !open {
			sb.WriteString(`<span class="` + class + `">`)
			open = true
		}
		sb.WriteString(t.s)
	}
	if open {
		sb.WriteString("</span>")
	}
}
