package chatcore

import (
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// FoldKey returns the key under which chatcore compares names case-insensitively
// (full names, e-mail addresses, channel and group names): NFKC normalisation
// followed by full Unicode case folding, so "Straße", "STRASSE" and "strasse"
// share one key, and so do compatibility variants such as "ｆｏｏ" and "foo".
// Topics are compared by [TopicKey] instead, which does not apply
// compatibility normalisation. SQLite's lower() and NOCASE fold only ASCII, so
// stores index this key instead. FoldKey is idempotent
// (FoldKey(FoldKey(s)) == FoldKey(s)) and safe for concurrent use.
func FoldKey(s string) string {
	// Repeat to a fixed point: on invalid UTF-8, NFKC leaves the characters
	// after a bad byte alone while Fold replaces the byte, so one round can
	// leave "\xf6ǅ" as "\ufffdǆ", whose own key is "\ufffddž".
	key := s
	for range maxKeyRounds {
		next := strings.Map(foldCherokee, cases.Fold().String(norm.NFKC.String(key))) // a Caser is stateful: one per call
		if next == key {
			break
		}
		key = next
	}
	return key
}

// TopicKey returns the key under which chatcore compares topics: full Unicode
// case folding (CaseFolding.txt statuses C and F) between NFC normalisations,
// repeated until the key no longer changes. Topics therefore match
// case-insensitively, as in Zulip: "Straße" and "STRASSE" share a key (full
// folding maps ß to "ss", and likewise the ligature "ﬁ" to "fi"), final and
// medial sigma share one, and canonically equivalent spellings ("é" composed
// or decomposed) share one. Unlike [FoldKey] there is no compatibility
// normalisation: "x²" and "x2", or fullwidth "ｆｏｏ" and "foo", are different
// topics. TopicKey is idempotent (TopicKey(TopicKey(s)) == TopicKey(s)),
// returns valid UTF-8 for valid UTF-8 input and is safe for concurrent use.
func TopicKey(topic string) string {
	key := topic
	// One round almost always reaches the fixed point; a few characters whose
	// folding leaves a decomposed form that NFC recomposes need a second.
	for range maxKeyRounds {
		next := norm.NFC.String(strings.Map(foldCherokee, cases.Fold().String(norm.NFC.String(key))))
		if next == key {
			break
		}
		key = next
	}
	return key
}

// maxKeyRounds bounds the rounds of FoldKey and TopicKey. Well-formed text
// needs one or two; a string needing more than maxKeyRounds would give a key
// that is not idempotent, which FuzzKeysIdempotent looks for.
const maxKeyRounds = 4

// foldCherokee maps Cherokee small letters to their capitals, as Unicode's
// CaseFolding.txt does. golang.org/x/text's Fold swaps the two cases of
// Cherokee instead (capitals become small letters), which would give "Ꮵ" and
// "ꮵ" different keys and make FoldKey not idempotent.
func foldCherokee(r rune) rune {
	switch {
	case r >= 0xAB70 && r <= 0xABBF: // Cherokee Supplement: small letters
		return r - 0xAB70 + 0x13A0
	case r >= 0x13F8 && r <= 0x13FD: // small ye ... small mv
		return r - 8
	}
	return r
}
