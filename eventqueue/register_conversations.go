package eventqueue

import (
	"context"
	"slices"

	"github.com/chatcore/chatcore"
)

// MaxRecentConversations bounds recent_private_conversations: Zulip's
// RECENT_CONVERSATIONS_LIMIT, 1000. (Zulip takes the conversations of the
// user's 1000 newest direct messages, which are at most 1000; chatcore
// takes the 1000 conversations with the newest messages, never fewer.)
const MaxRecentConversations = 1000

// RecentConversation is one entry of POST /register's
// recent_private_conversations: a direct conversation of the user and the
// id of its newest message. UserIDs are the other participants, ascending
// (empty for the conversation with oneself).
type RecentConversation struct {
	MaxMessageID chatcore.MessageID `json:"max_message_id"`
	UserIDs      []chatcore.UserID  `json:"user_ids"`
}

// registerMore fills the section Zulip's mobile app needs beyond those of
// registerState: recent_private_conversations.
func registerMore(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, u *chatcore.User, want func(string) bool, st *State) error {
	if want("recent_private_conversations") {
		convs, err := tx.RecentDirectConversations(ctx, u.ID, MaxRecentConversations)
		if err != nil {
			return err
		}
		st.RecentConversations = make([]RecentConversation, len(convs))
		for i, c := range convs {
			others := slices.DeleteFunc(slices.Clone(c.Members), func(id chatcore.UserID) bool { return id == u.ID })
			if others == nil {
				others = []chatcore.UserID{}
			}
			st.RecentConversations[i] = RecentConversation{MaxMessageID: c.MaxMessageID, UserIDs: others}
		}
	}
	return nil
}
