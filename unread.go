package chatcore

// The unread state and the flag sections of POST /register.

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/internal/slicex"
)

// MaxUnreadMessages is how many unread messages unread_msgs of
// [Service.Register] reports at most, newest first, as Zulip's
// MAX_UNREAD_MESSAGES; old_unreads_missing says when there are more.
const MaxUnreadMessages = 50000

// UnreadMsgs is unread_msgs of POST /register, in Zulip's shape.
type UnreadMsgs struct {
	Count             int                 `json:"count"`
	Pms               []UnreadDirect      `json:"pms"`
	Streams           []UnreadStreamTopic `json:"streams"`
	Huddles           []UnreadHuddle      `json:"huddles"`
	Mentions          []MessageID         `json:"mentions"`
	OldUnreadsMissing bool                `json:"old_unreads_missing"`
}

// UnreadDirect is the unread messages of one 1:1 conversation.
type UnreadDirect struct {
	OtherUserID UserID `json:"other_user_id"`
	// SenderID is Zulip's deprecated name of OtherUserID.
	SenderID         UserID      `json:"sender_id"`
	UnreadMessageIDs []MessageID `json:"unread_message_ids"`
}

// UnreadStreamTopic is the unread messages of one channel topic.
type UnreadStreamTopic struct {
	StreamID         StreamID    `json:"stream_id"`
	Topic            string      `json:"topic"`
	UnreadMessageIDs []MessageID `json:"unread_message_ids"`
}

// UnreadHuddle is the unread messages of one group direct conversation.
type UnreadHuddle struct {
	UserIDsString    string      `json:"user_ids_string"`
	UnreadMessageIDs []MessageID `json:"unread_message_ids"`
}

// unreadMsgs builds unread_msgs for u from the newest [MaxUnreadMessages]
// unread messages, as Zulip's get_raw_unread_data and aggregate_unread_data:
// the messages of a channel u muted are listed but neither counted nor, for
// wildcard mentions, among the mentions; a channel's topics are grouped
// case-insensitively under the name of their oldest unread message; the
// empty topic is listed as Zulip's fallback name "general chat" unless
// allowEmptyTopic.
func unreadMsgs(ctx context.Context, tx Tx, u *User, allowEmptyTopic bool) (*UnreadMsgs, error) {
	ums, err := tx.UnreadMessages(ctx, u.ID, MaxUnreadMessages)
	if err != nil {
		return nil, err
	}
	subs, err := tx.Subscriptions(ctx, 0, u.ID)
	if err != nil {
		return nil, err
	}
	muted := map[StreamID]bool{}
	for _, sub := range subs {
		if sub.Active && sub.IsMuted {
			muted[sub.StreamID] = true
		}
	}
	slices.SortFunc(ums, func(a, b UserMessage) int { return cmp.Compare(a.ID, b.ID) }) // oldest first names the topics
	out := &UnreadMsgs{Pms: []UnreadDirect{}, Streams: []UnreadStreamTopic{}, Huddles: []UnreadHuddle{},
		Mentions: []MessageID{}, OldUnreadsMissing: len(ums) == MaxUnreadMessages}
	pms := map[UserID][]MessageID{}
	type topicKeyT struct {
		st    StreamID
		topic string // lower-cased
	}
	topics := map[topicKeyT]*UnreadStreamTopic{}
	huddles := map[string][]MessageID{}
	for _, um := range ums {
		mutedRow := um.Type == MessageTypeStream && muted[um.StreamID]
		if !mutedRow {
			out.Count++
		}
		if um.Flags&FlagMentioned != 0 || (um.Flags&MentionFlags != 0 && !mutedRow) {
			out.Mentions = append(out.Mentions, um.ID)
		}
		switch {
		case um.Type == MessageTypeStream:
			name := um.Topic
			if name == "" && !allowEmptyTopic {
				name = DefaultEmptyTopicDisplayName
			}
			k := topicKeyT{um.StreamID, strings.ToLower(name)}
			if topics[k] == nil {
				topics[k] = &UnreadStreamTopic{StreamID: um.StreamID, Topic: name}
			}
			topics[k].UnreadMessageIDs = append(topics[k].UnreadMessageIDs, um.ID)
		case len(um.DirectMembers) <= 2:
			other := u.ID
			for _, id := range um.DirectMembers {
				if id != u.ID {
					other = id
				}
			}
			pms[other] = append(pms[other], um.ID)
		default:
			parts := make([]string, len(um.DirectMembers))
			for i, id := range um.DirectMembers {
				parts[i] = strconv.FormatInt(int64(id), 10)
			}
			k := strings.Join(parts, ",")
			huddles[k] = append(huddles[k], um.ID)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(pms)) {
		out.Pms = append(out.Pms, UnreadDirect{OtherUserID: k, SenderID: k, UnreadMessageIDs: pms[k]})
	}
	tk := slices.Collect(maps.Keys(topics))
	slices.SortFunc(tk, func(a, b topicKeyT) int { return cmp.Or(cmp.Compare(a.st, b.st), cmp.Compare(a.topic, b.topic)) })
	for _, k := range tk {
		out.Streams = append(out.Streams, *topics[k])
	}
	for _, k := range slices.Sorted(maps.Keys(huddles)) {
		out.Huddles = append(out.Huddles, UnreadHuddle{UserIDsString: k, UnreadMessageIDs: huddles[k]})
	}
	return out, nil
}

// RegisterFlags fills the flag sections of POST /register for u: unread_msgs
// (when both message and update_message_flags are wanted, as Zulip's
// fetch_initial_state_data), max_message_id (message) and starred_messages.
func RegisterFlags(ctx context.Context, tx Tx, u *User, want func(string) bool, allowEmptyTopic bool, st *RegisterState) error {
	if want("message") {
		id, err := maxReadableMessageID(ctx, tx, u)
		if err != nil {
			return err
		}
		if id == 0 {
			id = -1 // Zulip's value when the user has no message
		}
		st.MaxMessageID = &id
	}
	if want("message") && want("update_message_flags") {
		unread, err := unreadMsgs(ctx, tx, u, allowEmptyTopic)
		if err != nil {
			return err
		}
		st.Unread = unread
	}
	if want("starred_messages") {
		ids, err := tx.FlaggedMessageIDs(ctx, u.ID, FlagStarred)
		if err != nil {
			return err
		}
		st.StarredMessages = slicex.OrEmpty(ids)
	}
	return nil
}

// maxReadableMessageID returns the largest id of a message u may read, as
// Zulip's max_message_id (the newest message in the user's history: the
// newest message GET /messages gives with no narrow), 0 when there is none.
func maxReadableMessageID(ctx context.Context, tx Tx, u *User) (MessageID, error) {
	access, streams, err := StreamAccessMap(ctx, tx, u)
	if err != nil {
		return 0, err
	}
	q := MessageQuery{RealmID: u.RealmID, Recipients: []RecipientID{}, FlagUser: u.ID, Newest: true, Limit: 1}
	for _, st := range streams {
		if access[st.ID].OK {
			q.Recipients = append(q.Recipients, st.RecipientID)
		}
	}
	dms, err := tx.DirectRecipients(ctx, u.ID)
	if err != nil {
		return 0, err
	}
	q.Recipients = append(q.Recipients, dms...)
	for {
		batch, err := tx.Messages(ctx, q)
		if err != nil || len(batch) == 0 {
			return 0, err
		}
		m := &batch[0]
		if m.Type == MessageTypePrivate && slices.Contains(m.DirectMembers, u.ID) ||
			m.Type != MessageTypePrivate && access[m.StreamID].Allows(m.ID) {
			return m.ID, nil
		}
		q.BeforeID = m.ID
	}
}
