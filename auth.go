package chatcore

import (
	"crypto/sha256"
	"encoding/hex"
)

// HashAPIKey returns the form in which an API key is stored: the hex SHA-256 of
// the key. API keys are 32 random characters, so a fast hash is enough.
// [Service.Authenticate] looks users up by this hash and compares it in
// constant time.
func HashAPIKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}
