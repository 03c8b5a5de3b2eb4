package store

import (
	"github.com/chatcore/chatcore/internal/textkey"
)

// FoldKey returns the key under which chatcore compares names case-insensitively
// (full names, e-mail addresses, channel and group names): NFKC normalisation
// followed by full Unicode case folding, so "Straße", "STRASSE" and "strasse"
// share one key, and so do compatibility variants such as "ｆｏｏ" and "foo".
// Topics are compared by [TopicKey] instead, which does not apply
// compatibility normalisation. SQLite's lower() and NOCASE fold only ASCII, so
// stores index this key instead. FoldKey is idempotent
// (FoldKey(FoldKey(s)) == FoldKey(s)) and safe for concurrent use.
func FoldKey(s string) string { return textkey.Name(s) }

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
func TopicKey(topic string) string { return textkey.Topic(topic) }
