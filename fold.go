package chatcore

import (
	"crypto/sha256"
	"encoding/hex"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// FoldKey returns the key under which chatcore compares names case-insensitively
// (topics, full names, e-mail addresses): NFKC normalisation followed by full
// Unicode case folding, so "Straße", "STRASSE" and "strasse" share one key.
// SQLite's lower() and NOCASE fold only ASCII, so stores index this key instead.
// FoldKey is safe for concurrent use.
func FoldKey(s string) string {
	return cases.Fold().String(norm.NFKC.String(s)) // a Caser is stateful: one per call
}

// HashAPIKey returns the form in which an API key is stored: the hex SHA-256 of
// the key. API keys are 32 random characters, so a fast hash is enough; the
// adapter compares hashes in constant time.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
