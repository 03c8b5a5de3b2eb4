package sqlstore

import (
	"context"

	"github.com/chatcore/chatcore/store"
)

// SharingReadReceipts implements [store.ReadReceiptStore] with one
// statement over the users' primary key.
func (x *Tx) SharingReadReceipts(ctx context.Context, realm store.RealmID, ids []store.UserID) ([]store.UserID, error) {
	if len(ids) == 0 {
		return []store.UserID{}, nil
	}
	out, err := scanAll(ctx, x, "users", func(r Row, id *store.UserID) error { return r.Scan(Num(id)) },
		"SELECT id FROM users WHERE "+x.d.In("id", "$2", "bigint")+
			" AND +realm_id = $1 AND is_active AND send_read_receipts ORDER BY id", realm, List(x.d, ids))
	if out == nil && err == nil {
		out = []store.UserID{}
	}
	return out, err
}
