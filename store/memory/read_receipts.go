package memory

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// SharingReadReceipts implements store.ReadReceiptStore.
func (t *tx) SharingReadReceipts(_ context.Context, realm store.RealmID, ids []store.UserID) ([]store.UserID, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []store.UserID{}
	for _, id := range ids {
		u, ok := t.d.users[id]
		if ok && u.RealmID == realm && u.IsActive && u.Settings.SendReadReceipts {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
