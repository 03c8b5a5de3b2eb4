package sqlstore

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// recentDirectSQL reads the user's direct conversations with the id of the
// newest message of each (one probe of messages_recipient per
// conversation), newest first.
const recentDirectSQL = `SELECT c.recipient_id, c.max_id FROM (
	SELECT rm.recipient_id, (SELECT max(m.id) FROM messages m WHERE m.recipient_id = rm.recipient_id) AS max_id
	FROM recipient_members rm WHERE rm.user_id = $1) c
WHERE c.max_id IS NOT NULL ORDER BY c.max_id DESC LIMIT $2`

// RecentDirectConversations implements [store.ConversationStore] with two
// statements: the conversations, then their members.
func (x *Tx) RecentDirectConversations(ctx context.Context, user store.UserID, limit int) ([]store.DirectConversation, error) {
	out, err := scanAll(ctx, x, "recent direct conversations", func(r Row, c *store.DirectConversation) error {
		return r.Scan(Num(&c.RecipientID), Num(&c.MaxMessageID))
	}, recentDirectSQL, user, limit)
	if err != nil || len(out) == 0 {
		return out, err
	}
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
