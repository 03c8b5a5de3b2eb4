package chatcore

// Per-user message flags: the flag set, its wire names and the rules that
// set flags when a message is sent.
//
// Storage design. Zulip writes one UserMessage row per recipient at send
// time, so a message to a channel with 10,000 subscribers costs 10,000 row
// inserts. chatcore derives what is common instead:
//
//   - Whether a user received a message is derived: a participant of a direct
//     message received it; a user received a channel message when they had
//     an active subscription covering it (Subscription.SinceMessageID, the
//     first message id a subscription covers, is set when it starts).
//   - What every receiver has in common is one attribute of the message,
//     Message.DefaultFlags (stream_wildcard_mentioned for @**all**).
//   - A receiver who sent the message has it read: the common case of a
//     send from Zulip's own apps writes no row for the sender.
//   - Rows (UserMessageFlags) hold a user's flags only where they differ
//     from the derived ones: the sender's own message left unread
//     (read_by_sender false), users mentioned by name, topic participants
//     of an @**topic** mention, and every later change (read, starred,
//     collapsed) a user makes.
//
// A send thus writes rows bounded by its content (mentions) and the topic's
// participants, never by the channel's size; marking any set of messages
// read or unread is one upsert over that set (FlagStore).

import (
	"context"
	"maps"
	"slices"
	"strings"
)

// zulipUIClients are the sending clients Zulip treats as its own
// applications (Client.default_read_by_sender): their messages are read for
// the sender unless the request says otherwise.
var zulipUIClients = []string{
	"zulipandroid", "zulipios", "zulipdesktop", "zulipmobile", "zulipelectron",
	"zulipterminal", "snipe", "website", "ios", "android",
}

// defaultReadBySender reports whether a message sent by the named client is
// read for its sender when the request has no read_by_sender: as Zulip's
// Client.default_read_by_sender, for its own apps (compared in lower case,
// and any client whose name contains "desktop app").
func defaultReadBySender(client string) bool {
	c := strings.ToLower(client)
	return slices.Contains(zulipUIClients, c) || strings.Contains(c, "desktop app")
}

// sendFlags holds the flags a send gives: the message's DefaultFlags and the
// rows for the receivers whose flags differ from them.
type sendFlags struct {
	defaults MessageFlags
	rows     map[UserID]MessageFlags
	// mutedBy are the receivers who muted the sender, ascending.
	mutedBy []UserID
	// sender is the message's sender; their entry in rows, when they
	// receive it, is written only when it differs from what is derived for
	// them (the defaults with read).
	sender UserID
}

// sendFlagRules computes the flags of a message as Zulip's
// create_user_messages does, for the users who receive it (receivers):
// every receiver gets stream_wildcard_mentioned for a non-silent @**all**
// (@**everyone**, @**channel**, @**stream**); the sender gets read when
// readBySender; each mentioned receiver gets mentioned; receivers among
// topicParticipants get topic_wildcard_mentioned for a non-silent
// @**topic**.
func sendFlagRules(sender UserID, receivers func(UserID) bool, readBySender bool, mentioned []UserID,
	streamWildcard, topicWildcard bool, topicParticipants []UserID) sendFlags {
	var sf sendFlags
	if streamWildcard {
		sf.defaults |= FlagStreamWildcardMentioned
	}
	sf.rows = map[UserID]MessageFlags{}
	set := func(u UserID, f MessageFlags) {
		if !receivers(u) {
			return
		}
		cur, ok := sf.rows[u]
		if !ok {
			cur = sf.defaults
		}
		sf.rows[u] = cur | f
	}
	sf.sender = sender
	if readBySender {
		set(sender, FlagRead)
	} else {
		set(sender, 0) // a row: unread is not what is derived for the sender
	}
	for _, u := range mentioned {
		set(u, FlagMentioned)
	}
	if topicWildcard {
		for _, u := range topicParticipants {
			set(u, FlagTopicWildcardMentioned)
		}
	}
	return sf
}

// flagsAtSend computes the flags of m, about to be created, for its
// receivers (sorted), sets m.DefaultFlags and returns the rows to write.
// The topic's participants are those a topic wildcard mention reaches
// (see wildcardParticipants).
func (s *Service) flagsAtSend(ctx context.Context, tx Tx, m *Message, receivers []UserID, dest Destination, r Rendered, participants []UserID) (sendFlags, error) {
	read := defaultReadBySender(m.Client)
	if dest.ReadBySender != nil {
		read = *dest.ReadBySender
	}
	sorted := slices.IsSorted(receivers)
	isReceiver := func(u UserID) bool {
		if sorted {
			_, ok := slices.BinarySearch(receivers, u)
			return ok
		}
		return slices.Contains(receivers, u)
	}
	sf := sendFlagRules(m.SenderID, isReceiver, read, r.Mentioned, r.StreamWildcard, r.TopicWildcard, participants)
	if err := personalFlagsAtSend(ctx, tx, m, isReceiver, &sf); err != nil {
		return sendFlags{}, err
	}
	m.DefaultFlags = sf.defaults
	return sf, nil
}

// putSendFlags writes the rows of sf for message id.
func putSendFlags(ctx context.Context, tx Tx, id MessageID, sf sendFlags) error {
	if len(sf.rows) == 0 {
		return nil
	}
	rows := make([]UserMessageFlags, 0, len(sf.rows))
	for u, f := range sf.rows {
		if u == sf.sender && f == sf.defaults|FlagRead {
			continue // derived
		}
		rows = append(rows, UserMessageFlags{UserID: u, MessageID: id, Flags: f})
	}
	if len(rows) == 0 {
		return nil
	}
	slices.SortFunc(rows, func(a, b UserMessageFlags) int { return int(a.UserID - b.UserID) })
	return tx.PutUserMessageFlags(ctx, rows)
}

// flagGroup is the users of a "message" event who share flags.
type flagGroup struct {
	users []UserID
	flags MessageFlags
}

// eventGroups splits users by their flags on the sent message: one group
// with the default flags, then one per distinct row value, by flags.
func (sf sendFlags) eventGroups(users []UserID) []flagGroup {
	byFlags := map[MessageFlags][]UserID{}
	var defaults []UserID
	for _, u := range users {
		if f, ok := sf.rows[u]; ok && f != sf.defaults {
			byFlags[f] = append(byFlags[f], u)
			continue
		}
		defaults = append(defaults, u)
	}
	var out []flagGroup
	if len(defaults) > 0 || len(byFlags) == 0 {
		out = append(out, flagGroup{users: defaults, flags: sf.defaults})
	}
	for _, f := range slices.Sorted(maps.Keys(byFlags)) {
		out = append(out, flagGroup{users: byFlags[f], flags: f})
	}
	return out
}
