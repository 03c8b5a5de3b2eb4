package memory

import (
	"cmp"
	"context"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// RecentDirectConversations implements store.ConversationStore.
func (t *tx) RecentDirectConversations(_ context.Context, user store.UserID, limit int) ([]store.DirectConversation, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.DirectConversation
	for rid := range t.d.directByUser[user].all() {
		for id := range t.d.msgByRecipient[rid].between(0, 0, true) {
			out = append(out, store.DirectConversation{RecipientID: rid,
				Members: slices.Clone(t.d.recipients[rid].members), MaxMessageID: id})
			break
		}
	}
	slices.SortFunc(out, func(a, b store.DirectConversation) int { return cmp.Compare(b.MaxMessageID, a.MaxMessageID) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}
