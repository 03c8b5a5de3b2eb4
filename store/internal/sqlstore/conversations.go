package sqlstore

import (
	"cmp"
	"context"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// recentDirectSQL reads the user's direct conversations with the id of the
// newest message of each: one probe of messages_recipient per conversation
// (NULL for a conversation without messages). Every conversation of the
// user has to be probed to know which are newest, so the caller orders
// and cuts the rows (one per conversation, never per message) itself.
const recentDirectSQL = `SELECT rm.recipient_id,
	(SELECT max(m.id) FROM messages m WHERE m.recipient_id = rm.recipient_id)
FROM recipient_members rm WHERE rm.user_id = $1`

// RecentDirectConversations implements [store.ConversationStore] with two
// statements: the conversations, then their members.
func (x *Tx) RecentDirectConversations(ctx context.Context, user store.UserID, limit int) ([]store.DirectConversation, error) {
	out, err := scanAll(ctx, x, "recent direct conversations", func(r Row, c *store.DirectConversation) error {
		return r.Scan(Num(&c.RecipientID), ID(&c.MaxMessageID))
	}, recentDirectSQL, user)
	if err != nil {
		return nil, err
	}
	out = slices.DeleteFunc(out, func(c store.DirectConversation) bool { return c.MaxMessageID == 0 })
	if len(out) == 0 {
		return nil, nil
	}
	slices.SortFunc(out, func(a, b store.DirectConversation) int { return cmp.Compare(b.MaxMessageID, a.MaxMessageID) })
	out = out[:min(len(out), limit)]
	ids := make([]store.RecipientID, len(out))
	at := make(map[store.RecipientID]int, len(out))
	for i, c := range out {
		ids[i], at[c.RecipientID] = c.RecipientID, i
	}
	type member struct {
		recipient store.RecipientID
		user      store.UserID
	}
	members, err := scanAll(ctx, x, "direct conversation members", func(r Row, m *member) error {
		return r.Scan(Num(&m.recipient), Num(&m.user))
	}, "SELECT recipient_id, user_id FROM recipient_members WHERE "+x.d.In("recipient_id", "$1", "bigint")+" ORDER BY recipient_id, user_id", List(x.d, ids))
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		c := &out[at[m.recipient]]
		c.Members = append(c.Members, m.user)
	}
	for i := range out {
		slices.Sort(out[i].Members)
	}
	return out, nil
}
