package emoji

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Emoji characters in text: how Zulip's renderer finds them (its
// POSSIBLE_EMOJI_RE, from Unicode's emoji regular expression in UTS #51)
// and which of them it shows as emoji.

// SequenceLen returns the length in bytes of the possible emoji sequence
// that starts s, or 0 when none does: a pair of regional indicators, or an
// Emoji character with an optional modifier, presentation selector (and
// keycap) or tag sequence, joined to more such elements by ZWJs.
func SequenceLen(s string) int {
	n := elementLen(s)
	if n == 0 {
		return 0
	}
	for strings.HasPrefix(s[n:], "\u200d") {
		m := elementLen(s[n+len("\u200d"):])
		if m == 0 {
			break
		}
		n += len("\u200d") + m
	}
	return n
}

// elementLen is SequenceLen for one element, without ZWJs.
func elementLen(s string) int {
	r, size := utf8.DecodeRuneInString(s)
	if isRegionalIndicator(r) {
		if r2, size2 := utf8.DecodeRuneInString(s[size:]); isRegionalIndicator(r2) {
			return size + size2
		}
	}
	if r == utf8.RuneError || !unicode.Is(emojiTable, r) {
		return 0
	}
	n := size
	next, nsize := utf8.DecodeRuneInString(s[n:])
	switch {
	case isModifier(next):
		n += nsize
	case next == 0xFE0F:
		n += nsize
		if strings.HasPrefix(s[n:], "\u20e3") {
			n += len("\u20e3")
		}
	case isTag(next):
		m := n
		for {
			t, tsize := utf8.DecodeRuneInString(s[m:])
			if !isTag(t) {
				break
			}
			m += tsize
		}
		if strings.HasPrefix(s[m:], "\U000E007F") {
			n = m + len("\U000E007F")
		}
	}
	return n
}

func isRegionalIndicator(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }
func isModifier(r rune) bool          { return r >= 0x1F3FB && r <= 0x1F3FF }
func isTag(r rune) bool               { return r >= 0xE0020 && r <= 0xE007E }

// FromSequence returns the code and canonical name of the emoji a sequence
// found by SequenceLen shows, as Zulip's renderer does: none for a single
// character of text presentation (optionally with a keycap), else the code
// of its characters without presentation selectors, when Zulip has a name
// for it (the code is that unqualified form).
func FromSequence(seq string) (code, name string, ok bool) {
	r, size := utf8.DecodeRuneInString(seq)
	if rest := seq[size:]; (rest == "" || rest == "\u20e3") && !unicode.Is(presentationTable, r) {
		return "", "", false
	}
	b := make([]byte, 0, 2*len(seq))
	for _, c := range seq {
		if c == 0xFE0F {
			continue
		}
		if len(b) > 0 {
			b = append(b, '-')
		}
		for pad := 0x1000; pad > 1 && int(c) < pad; pad >>= 4 {
			b = append(b, '0') // at least four hex digits
		}
		b = strconv.AppendUint(b, uint64(c), 16)
	}
	code = string(b)
	if name, ok = Name(code); !ok {
		name, ok = load().unqualified[code]
	}
	return code, name, ok
}
