package filestore

import (
	"crypto/rand"
	"encoding/hex"
	"strings"
)

// randomName returns 16 random hex digits.
func randomName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// hasSegmentPrefix reports whether a '/'-separated segment of key starts
// with prefix.
func hasSegmentPrefix(key, prefix string) bool {
	for _, seg := range strings.Split(key, "/") {
		if strings.HasPrefix(seg, prefix) {
			return true
		}
	}
	return false
}
