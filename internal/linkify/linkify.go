// Package linkify compiles Zulip linkifiers (a pattern and a URL template)
// and finds their matches in text and in topics.
package linkify

import (
	"bytes"
	"net/url"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/chatcore/chatcore/internal/fifocache"
	"github.com/chatcore/chatcore/internal/urltemplate"
)

// Linkifier is a linkifier ready to apply: its pattern wrapped in Zulip's
// boundary rule and its parsed URL template. A *Linkifier is immutable and
// safe for concurrent use.
type Linkifier struct {
	re   *regexp.Regexp
	tmpl *urltemplate.Template
	// names holds the pattern's group names by index, "" for unnamed groups
	// and for every group but the leftmost of a repeated name (RE2 maps a
	// name to its leftmost group).
	names []string
	// required is a string every match of the pattern contains ("" when
	// none is known): text without it cannot match, so the regular
	// expression need not run.
	required []byte
}

// matchGroup names the wrapper group that holds the matched text.
const matchGroup = "chatcore_linkifier_match"

// Compile prepares the linkifier pattern → urlTemplate for matching. A match
// must start at the start of the text, after whitespace (or Unicode space) or
// after one of ' " ( , : <, and must not be followed by a letter or digit.
// Compile reports false for a linkifier that does not compile (callers skip
// it, as Zulip does). Results are cached by pattern and template, so that
// rendering does not recompile a realm's regular expressions for every
// message.
func Compile(pattern, urlTemplate string) (*Linkifier, bool) {
	key := pattern + "\x00" + urlTemplate
	if c, ok := cache.Get(key); ok {
		return c, c != nil
	}
	c := cache.Add(key, compileUncached(pattern, urlTemplate))
	return c, c != nil
}

// maxCached bounds cache, which forgets the oldest linkifiers first.
const maxCached = 4096

// cache keeps compiled linkifiers (nil for those that do not compile) by
// pattern and template.
var cache = fifocache.New[string, *Linkifier](maxCached)

func compileUncached(pattern, urlTemplate string) *Linkifier {
	re, err := regexp.Compile(`[\s\x{85}\pZ'"(,:<](?P<` + matchGroup + `>(?:` + pattern + `))(?:[^\pL\pN])`)
	if err != nil {
		return nil
	}
	tmpl, ok := urltemplate.Parse(urlTemplate)
	if !ok {
		return nil
	}
	names := slices.Clone(re.SubexpNames())
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" || n == matchGroup {
			names[i] = ""
			continue
		}
		if seen[n] {
			names[i] = ""
		}
		seen[n] = true
	}
	return &Linkifier{re: re, tmpl: tmpl, names: names, required: requiredLiteral(re.String())}
}

// requiredLiteral returns the longest case-sensitive literal that every match
// of expr's capture group 1 (the pattern) contains, or nil. expr compiled, so
// it parses with the flags regexp.Compile uses.
func requiredLiteral(expr string) []byte {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return nil
	}
	var group *syntax.Regexp
	var find func(re *syntax.Regexp)
	find = func(re *syntax.Regexp) {
		if group != nil {
			return
		}
		if re.Op == syntax.OpCapture && re.Cap == 1 {
			group = re
			return
		}
		for _, sub := range re.Sub {
			find(sub)
		}
	}
	find(re)
	if group == nil {
		return nil
	}
	var best []rune
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpLiteral:
			// A case-folded literal matches other spellings, and U+FFFD also
			// matches invalid UTF-8, which is not its encoding.
			if re.Flags&syntax.FoldCase != 0 {
				break
			}
			for _, lit := range splitRunes(re.Rune, utf8.RuneError) {
				if len(lit) > len(best) {
					best = lit
				}
			}
		case syntax.OpCapture, syntax.OpConcat, syntax.OpPlus:
			// Each sub-expression matches (at least once) inside the match.
			for _, sub := range re.Sub {
				walk(sub)
			}
		case syntax.OpRepeat:
			if re.Min >= 1 {
				walk(re.Sub[0])
			}
		}
	}
	walk(group)
	if len(best) == 0 {
		return nil
	}
	return []byte(string(best))
}

// splitRunes splits rs around each sep.
func splitRunes(rs []rune, sep rune) [][]rune {
	var out [][]rune
	for {
		i := slices.Index(rs, sep)
		if i < 0 {
			return append(out, rs)
		}
		out = append(out, rs[:i])
		rs = rs[i+1:]
	}
}

// MayMatch reports whether text may hold a match of l: false when text lacks
// a literal string every match contains, so that callers can skip work for
// text no match can come from. A match found by [Linkifier.Matches] or
// [Linkifier.AppendMatches] lies inside the text they are given, so when
// MayMatch is false for a text, it is false for each of its substrings and
// they have no match.
func (l *Linkifier) MayMatch(text []byte) bool {
	return len(l.required) == 0 || bytes.Contains(text, l.required)
}

// Match is one match of a linkifier in a text: text[Start:End] links to URL.
type Match struct {
	Start, End int
	URL        string
}

// Matches returns the non-overlapping matches of l in text, left to right.
// before and after are the characters that precede and follow text in its
// context: " " stands for a boundary (start or end of the text), anything
// else is taken literally.
func (l *Linkifier) Matches(text string, before, after string) []Match {
	var sc Scratch
	return l.AppendMatches(nil, &sc, []byte(text), before, after)
}

// Scratch is working memory that [Linkifier.AppendMatches] reuses from one
// call to the next. The zero value is ready to use; a Scratch must not be used
// by two goroutines at once.
type Scratch struct {
	buf []byte
}

// AppendMatches appends the matches of l in text to dst and returns the
// extended slice; it finds what [Linkifier.Matches] finds, but allocates
// only for matches (their URLs and the growth of dst): the text is examined
// in sc's buffer, and text that [Linkifier.MayMatch] rules out is not
// examined at all.
func (l *Linkifier) AppendMatches(dst []Match, sc *Scratch, text []byte, before, after string) []Match {
	if !l.MayMatch(text) {
		return dst
	}
	s := append(append(append(sc.buf[:0], before...), text...), after...)
	sc.buf = s
	pos := 0
	for pos < len(s) {
		loc := l.re.FindSubmatchIndex(s[pos:])
		if loc == nil {
			break
		}
		start, end := pos+loc[2], pos+loc[3]
		// Matches that reach into the context characters are dropped.
		if end > start && start >= len(before) && end <= len(before)+len(text) {
			vals := map[string]string{}
			for i, name := range l.names {
				if name == "" || loc[2*i] < 0 {
					continue // unnamed, shadowed by a leftmost namesake, or unmatched: undefined
				}
				vals[name] = string(s[pos+loc[2*i] : pos+loc[2*i+1]])
			}
			dst = append(dst, Match{Start: start - len(before), End: end - len(before), URL: l.tmpl.Expand(vals)})
		}
		// The next match may use the character after this one as its boundary.
		next := end
		if next <= pos+loc[0] {
			next = pos + loc[1]
		}
		pos = next
	}
	return dst
}

// TopicLink is one link of a topic: Text links to URL.
type TopicLink struct {
	Text string
	URL  string
}

// topicLinkSplitter splits a topic into the words that may be raw URLs.
var topicLinkSplitter = regexp.MustCompile(`[ !;),'"]`)

// topicURLPattern recognises a raw URL in a topic word: with a scheme, or a
// host name with a dot followed by an optional path.
var topicURLPattern = regexp.MustCompile(`^(?:(?:https?|ftp)://[^\s<>]+|(?:www\.)?[\pL\pN-]+(?:\.[\pL\pN-]+)*\.[\pL]{2,}(?:/[^\s<>]*)?)`)

// TopicLinks returns Zulip's topic_links of a topic: the matches of every
// linkifier plus raw URLs. Overlaps go to the earlier linkifier, then the
// earlier match, linkifiers before raw URLs; the result is ordered by
// position and never nil.
func TopicLinks(linkifiers []*Linkifier, topic string) []TopicLink {
	type found struct {
		start, end, prec int
		link             TopicLink
	}
	var all []found
	text := []byte(topic)
	var sc Scratch
	var ms []Match
	for prec, c := range linkifiers {
		ms = c.AppendMatches(ms[:0], &sc, text, " ", " ")
		for _, m := range ms {
			all = append(all, found{m.Start, m.End, prec, TopicLink{Text: topic[m.Start:m.End], URL: m.URL}})
		}
	}
	off := 0
	for _, loc := range topicLinkSplitter.FindAllStringIndex(topic+" ", -1) {
		word := topic[off:min(loc[0], len(topic))]
		if m := strings.TrimRight(topicURLPattern.FindString(word), ".,:?!"); m != "" {
			u := m
			if pu, err := url.Parse(m); err != nil || pu.Scheme == "" {
				u = "https://" + m
			}
			all = append(all, found{off, off + len(m), len(linkifiers), TopicLink{Text: m, URL: u}})
		}
		off = loc[1]
	}
	slices.SortStableFunc(all, func(a, b found) int {
		if a.prec != b.prec {
			return a.prec - b.prec
		}
		return a.start - b.start
	})
	var kept []found
	for _, f := range all {
		overlaps := slices.ContainsFunc(kept, func(k found) bool { return f.start < k.end && k.start < f.end })
		if !overlaps {
			kept = append(kept, f)
		}
	}
	slices.SortStableFunc(kept, func(a, b found) int { return a.start - b.start })
	out := make([]TopicLink, 0, len(kept))
	for _, k := range kept {
		out = append(out, k.link)
	}
	return out
}
