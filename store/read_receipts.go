package store

import "context"

// ReadReceiptStore answers whose reads a message's read receipts may show.
type ReadReceiptStore interface {
	// SharingReadReceipts returns those of ids that are active users (or
	// bots) of the realm whose send_read_receipts setting is on, ascending
	// and without duplicates, in one read that loads no user row. Unknown
	// ids and ids of other realms are left out.
	SharingReadReceipts(ctx context.Context, realm RealmID, ids []UserID) ([]UserID, error)
}
