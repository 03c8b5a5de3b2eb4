package sqlstore

import (
	"crypto/sha256"
	"encoding/binary"

	"github.com/chatcore/chatcore/store"
)

// AudienceHash identifies a set of users, the audience of event-log
// entries: the SHA-256 of their ids (sorted, without duplicates) as 8-byte
// big-endian numbers. Both stores key their event_audiences rows by it.
func AudienceHash(users []store.UserID) [sha256.Size]byte {
	b := make([]byte, 0, 8*len(users))
	for _, u := range users {
		b = binary.BigEndian.AppendUint64(b, uint64(u))
	}
	return sha256.Sum256(b)
}
