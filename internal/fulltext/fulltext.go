// Package fulltext is the text analysis of message search, shared by every
// store and by the highlighting of matches: words are runs of letters and
// digits, compared lower-cased and stemmed with the Snowball English
// stemmer (PostgreSQL's english configuration), English stop words left
// out. SQLite's and the memory store's index hold the lexemes this package
// produces; PostgreSQL's english configuration produces the same ones for
// ordinary words.
package fulltext

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"

	"github.com/chatcore/chatcore/internal/fifocache"
)

// MaxWordLen is the longest word indexed or searched, in bytes (PostgreSQL
// skips words over 2047 bytes; a shorter bound keeps stemming cheap).
const MaxWordLen = 255

// Stem returns the lexeme of one lower-cased word: its Snowball English
// stem, or "" for a stop word or an over-long word.
func Stem(word string) string {
	if len(word) > MaxWordLen || stopWords[word] {
		return ""
	}
	if l, ok := stems.Get(word); ok {
		return l
	}
	env := snowball.NewEnv(word)
	english.Stem(env)
	return stems.Add(strings.Clone(word), env.Current())
}

// stems holds the stems of the words seen last: a chat's words repeat,
// and stemming is most of the cost of indexing a message.
var stems = fifocache.New[string, string](1 << 14)

// isWordRune reports whether r is part of a word.
func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// words calls f with each word of text and its byte offset: a run of
// letters and digits, or, like PostgreSQL's parser reads a host name, such
// runs joined by single dots ("google.com"; dotted is then true, and the
// word is not stemmed). A run followed by "://" is a URL's protocol, which
// is not a word.
func words(text string, f func(word string, at int, dotted bool)) {
	i := 0
	for i < len(text) {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		start, dotted := i, false
		for {
			for i < len(text) {
				r, n := utf8.DecodeRuneInString(text[i:])
				if !isWordRune(r) {
					break
				}
				i += n
			}
			if i+1 < len(text) && text[i] == '.' {
				if r, _ := utf8.DecodeRuneInString(text[i+1:]); isWordRune(r) {
					i++
					dotted = true
					continue
				}
			}
			break
		}
		if !dotted && strings.HasPrefix(text[i:], "://") {
			i += 3
			continue
		}
		f(text[start:i], start, dotted)
	}
}

// lexeme returns the lexeme of a word words found ("" for none).
func lexeme(w string, dotted bool) string {
	w = strings.ToLower(w)
	if dotted {
		if len(w) > MaxWordLen {
			return ""
		}
		return w
	}
	return Stem(w)
}

// Lexemes returns the lexemes of the words of text, in order, without
// stop words.
func Lexemes(text string) []string {
	var out []string
	words(text, func(w string, _ int, dotted bool) {
		if l := lexeme(w, dotted); l != "" {
			out = append(out, l)
		}
	})
	return out
}

// Text returns the text of rendered message HTML: tags left out (a link's
// address is not text, its label is), entities decoded.
func Text(rendered string) string {
	var b strings.Builder
	b.Grow(len(rendered))
	for len(rendered) > 0 {
		i := strings.IndexByte(rendered, '<')
		if i < 0 {
			b.WriteString(html.UnescapeString(rendered))
			break
		}
		b.WriteString(html.UnescapeString(rendered[:i]))
		b.WriteByte(' ')
		j := strings.IndexByte(rendered[i:], '>')
		if j < 0 {
			break
		}
		rendered = rendered[i+j+1:]
	}
	return b.String()
}

// Document returns what the index holds for a message: the lexemes of its
// topic and of the text of its rendered content, separated by spaces.
func Document(topic, rendered string) string {
	return strings.Join(append(Lexemes(topic), Lexemes(Text(rendered))...), " ")
}

// Query is a parsed search operand.
type Query struct {
	// Text is the words of the operand that are not stop words, lower-cased
	// and separated by spaces: what PostgreSQL parses with plainto_tsquery.
	Text string
	// Lexemes are the lexemes every matching message holds: those of
	// every word of the operand, quoted or not, without repeats. Empty
	// when the operand has only stop words: such a search matches nothing.
	Lexemes []string
	// Phrases are the quoted parts of the operand: a matching message's
	// raw content or topic contains each, ignoring case.
	Phrases []string
}

// Parse parses a search operand as Zulip does: every word counts, and a
// part in double quotes must also appear as written.
func Parse(operand string) Query {
	var q Query
	seen := map[string]bool{}
	var kept []string
	words(operand, func(w string, _ int, dotted bool) {
		l := lexeme(w, dotted)
		if l == "" {
			return
		}
		kept = append(kept, strings.ToLower(w))
		if !seen[l] {
			seen[l] = true
			q.Lexemes = append(q.Lexemes, l)
		}
	})
	q.Text = strings.Join(kept, " ")
	rest := operand
	for {
		i := strings.IndexByte(rest, '"')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], '"')
		if j < 0 {
			break
		}
		if j > 0 {
			q.Phrases = append(q.Phrases, rest[i+1:i+1+j])
		}
		rest = rest[i+1+j+1:]
	}
	return q
}

// Matches reports whether a message with this topic, raw content and
// rendered content matches q (the memory store's matcher).
func (q Query) Matches(topic, content, rendered string) bool {
	if len(q.Lexemes) == 0 {
		return false
	}
	have := map[string]bool{}
	for _, l := range strings.Fields(Document(topic, rendered)) {
		have[l] = true
	}
	for _, l := range q.Lexemes {
		if !have[l] {
			return false
		}
	}
	lc, lt := strings.ToLower(content), strings.ToLower(topic)
	for _, p := range q.Phrases {
		p = strings.ToLower(p)
		if !strings.Contains(lc, p) && !strings.Contains(lt, p) {
			return false
		}
	}
	return true
}

const (
	highlightStart = `<span class="highlight">`
	highlightStop  = `</span>`
)

// Highlight returns the HTML h with every word outside tags whose lexeme
// is one of lexemes wrapped in <span class="highlight">, as Zulip's
// match_content and match_subject (of the HTML-escaped topic) show them.
func Highlight(h string, lexemes []string) string {
	if len(lexemes) == 0 {
		return h
	}
	want := make(map[string]bool, len(lexemes))
	for _, l := range lexemes {
		want[l] = true
	}
	var b strings.Builder
	b.Grow(len(h) + 32)
	for len(h) > 0 {
		i := strings.IndexAny(h, "<&")
		text := h
		if i >= 0 {
			text = h[:i]
		}
		last := 0
		words(text, func(w string, at int, dotted bool) {
			if want[lexeme(w, dotted)] {
				b.WriteString(text[last:at])
				b.WriteString(highlightStart)
				b.WriteString(w)
				b.WriteString(highlightStop)
				last = at + len(w)
			}
		})
		b.WriteString(text[last:])
		if i < 0 {
			break
		}
		h = h[i:]
		end := ">"
		if h[0] == '&' {
			end = ";"
		}
		j := strings.Index(h, end)
		if j < 0 || (h[0] == '&' && j > 12) {
			// Not a tag or entity: the character is text.
			_, n := utf8.DecodeRuneInString(h)
			b.WriteString(h[:n])
			h = h[n:]
			continue
		}
		b.WriteString(h[:j+1])
		h = h[j+1:]
	}
	return b.String()
}

// stopWords are Zulip's English stop words (zulip_english.stop: the
// Snowball list PostgreSQL's english configuration has, and the single
// letters), which no query holds.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours ourselves you your yours yourself yourselves
	he him his himself she her hers herself it its itself they them their theirs themselves what which who
	whom this that these those am is are was were be been being have has had having do does did doing a an
	the and but if or because as until while of at by for with about against between into through during
	before after above below to from up down in out on off over under again further then once here there
	when where why how all any both each few more most other some such no nor not only own same so than too
	very s t can will just don should now b c d e f g h j k l m n o p q r u v w x y z`) {
		m[w] = true
	}
	return m
}()
