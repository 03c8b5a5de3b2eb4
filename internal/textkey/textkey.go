// Package textkey computes the keys under which chatcore compares text
// case-insensitively: [Name] for names and e-mail addresses, [Topic] for
// topics.
package textkey

import (
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Name returns the key of a name (full names, e-mail addresses, channel and
// group names): NFKC normalisation followed by full Unicode case folding, so
// "Straße", "STRASSE" and "strasse" share one key, and so do compatibility
// variants such as "ｆｏｏ" and "foo". Name is idempotent
// (Name(Name(s)) == Name(s)) and safe for concurrent use.
func Name(s string) string {
	// Repeat to a fixed point: on invalid UTF-8, NFKC leaves the characters
	// after a bad byte alone while Fold replaces the byte, so one round can
	// leave "\xf6ǅ" as "\ufffdǆ", whose own key is "\ufffddž".
	key := s
	for range maxRounds {
		next := strings.Map(foldCherokee, cases.Fold().String(norm.NFKC.String(key))) // a Caser is stateful: one per call
		if next == key {
			break
		}
		key = next
	}
	return key
}

// Topic returns the key of a topic: full Unicode case folding (CaseFolding.txt
// statuses C and F) between NFC normalisations, repeated until the key no
// longer changes. "Straße" and "STRASSE" share a key (full folding maps ß to
// "ss", and likewise the ligature "ﬁ" to "fi"), final and medial sigma share
// one, and canonically equivalent spellings ("é" composed or decomposed) share
// one. Unlike [Name] there is no compatibility normalisation: "x²" and "x2",
// or fullwidth "ｆｏｏ" and "foo", have different keys. Topic is idempotent
// (Topic(Topic(s)) == Topic(s)), returns valid UTF-8 for valid UTF-8 input
// and is safe for concurrent use.
func Topic(topic string) string {
	key := topic
	// One round almost always reaches the fixed point; a few characters whose
	// folding leaves a decomposed form that NFC recomposes need a second.
	for range maxRounds {
		next := norm.NFC.String(strings.Map(foldCherokee, cases.Fold().String(norm.NFC.String(key))))
		if next == key {
			break
		}
		key = next
	}
	return key
}

// maxRounds bounds the rounds of Name and Topic. Well-formed text needs one
// or two; a string needing more than maxRounds would give a key that is not
// idempotent, which FuzzIdempotent looks for.
const maxRounds = 4

// foldCherokee maps Cherokee small letters to their capitals, as Unicode's
// CaseFolding.txt does. golang.org/x/text's Fold swaps the two cases of
// Cherokee instead (capitals become small letters), which would give "Ꮵ" and
// "ꮵ" different keys and make Name not idempotent.
func foldCherokee(r rune) rune {
	switch {
	case r >= 0xAB70 && r <= 0xABBF: // Cherokee Supplement: small letters
		return r - 0xAB70 + 0x13A0
	case r >= 0x13F8 && r <= 0x13FD: // small ye ... small mv
		return r - 8
	}
	return r
}
