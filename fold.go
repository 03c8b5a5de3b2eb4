package chatcore

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// FoldKey returns the key under which chatcore compares names case-insensitively
// (topics, full names, e-mail addresses): NFKC normalisation followed by full
// Unicode case folding, so "Straße", "STRASSE" and "strasse" share one key.
// SQLite's lower() and NOCASE fold only ASCII, so stores index this key instead.
// FoldKey is idempotent (FoldKey(FoldKey(s)) == FoldKey(s)) and safe for
// concurrent use.
func FoldKey(s string) string {
	folded := cases.Fold().String(norm.NFKC.String(s)) // a Caser is stateful: one per call
	return strings.Map(foldCherokee, folded)
}

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

// HashAPIKey returns the form in which an API key is stored: the hex SHA-256 of
// the key. API keys are 32 random characters, so a fast hash is enough; the
// adapter compares hashes in constant time.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
