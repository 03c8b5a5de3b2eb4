package messages

// The unread state of POST /register (unread_msgs).

import (
	"cmp"
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore"
)

// MaxUnreadMessages is how many unread messages unread_msgs of
// package eventqueue's Register reports at most, newest first, as Zulip's
// MAX_UNREAD_MESSAGES; old_unreads_missing says when there are more.
const MaxUnreadMessages = 50000

// Unread is unread_msgs of POST /register, in Zulip's shape.
type Unread struct {
	Count             int                  `json:"count"`
	Pms               []UnreadDirect       `json:"pms"`
	Streams           []UnreadStreamTopic  `json:"streams"`
	Huddles           []UnreadHuddle       `json:"huddles"`
	Mentions          []chatcore.MessageID `json:"mentions"`
	OldUnreadsMissing bool                 `json:"old_unreads_missing"`
}

// UnreadDirect is the unread messages of one 1:1 conversation.
type UnreadDirect struct {
	OtherUserID chatcore.UserID `json:"other_user_id"`
	// SenderID is Zulip's deprecated name of OtherUserID.
	SenderID         chatcore.UserID      `json:"sender_id"`
	UnreadMessageIDs []chatcore.MessageID `json:"unread_message_ids"`
}

// UnreadStreamTopic is the unread messages of one channel topic.
type UnreadStreamTopic struct {
	StreamID         chatcore.StreamID    `json:"stream_id"`
	Topic            string               `json:"topic"`
	UnreadMessageIDs []chatcore.MessageID `json:"unread_message_ids"`
}

// UnreadHuddle is the unread messages of one group direct conversation.
type UnreadHuddle struct {
	UserIDsString    string               `json:"user_ids_string"`
	UnreadMessageIDs []chatcore.MessageID `json:"unread_message_ids"`
}

// UnreadState builds unread_msgs for u from the newest [MaxUnreadMessages]
// unread messages, as Zulip's get_raw_unread_data and aggregate_unread_data:
// the messages u muted (in a topic they muted, or in a channel they muted
// unless they unmuted or followed the topic) are listed but neither
// counted nor, for wildcard mentions, among the mentions; a channel's topics are grouped
// case-insensitively under the name of their oldest unread message; the
// empty topic is listed as Zulip's fallback name "general chat" unless
// allowEmptyTopic.
func UnreadState(ctx context.Context, tx chatcore.Tx, u *chatcore.User, allowEmptyTopic bool) (*Unread, error) {
	ums, err := tx.UnreadMessages(ctx, u.ID, MaxUnreadMessages)
	if err != nil {
		return nil, err
	}
	subs, err := tx.Subscriptions(ctx, 0, u.ID)
	if err != nil {
		return nil, err
	}
	muted := map[chatcore.StreamID]bool{}
	for _, sub := range subs {
		if sub.Active && sub.IsMuted {
			muted[sub.StreamID] = true
		}
	}
	policies, err := chatcore.TopicPolicies(ctx, tx, u.ID)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(ums, func(a, b chatcore.UserMessage) int { return cmp.Compare(a.ID, b.ID) }) // oldest first names the topics
	out := &Unread{Pms: []UnreadDirect{}, Streams: []UnreadStreamTopic{}, Huddles: []UnreadHuddle{},
		Mentions: []chatcore.MessageID{}, OldUnreadsMissing: len(ums) == MaxUnreadMessages}
	pms := map[chatcore.UserID][]chatcore.MessageID{}
	type topicKeyT struct {
		st    chatcore.StreamID
		topic string // lower-cased
	}
	topics := map[topicKeyT]*UnreadStreamTopic{}
	huddles := map[string][]chatcore.MessageID{}
	for _, um := range ums {
		mutedRow := um.Type == chatcore.MessageTypeStream && policies.Muted(um.StreamID, um.Topic, muted[um.StreamID])
		if !mutedRow {
			out.Count++
		}
		if um.Flags&chatcore.FlagMentioned != 0 || (um.Flags&chatcore.MentionFlags != 0 && !mutedRow) {
			out.Mentions = append(out.Mentions, um.ID)
		}
		switch {
		case um.Type == chatcore.MessageTypeStream:
			name := um.Topic
			if name == "" && !allowEmptyTopic {
				name = chatcore.DefaultEmptyTopicDisplayName
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
