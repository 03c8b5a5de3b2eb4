package store

import (
	"context"
	"slices"
	"strings"
)

// UserMessage is one user's view of one message: whether they received it
// and their flags on it, with the message fields unread counts need.
type UserMessage struct {
	ID       MessageID
	RealmID  RealmID
	Type     MessageType
	StreamID StreamID
	// Topic is the topic as stored; "" for direct messages.
	Topic    string
	SenderID UserID
	// DirectMembers are the participants of a direct message, sorted.
	DirectMembers []UserID
	// Received reports whether the user received the message: a participant
	// of a direct message, subscribed to the channel when it was sent (an
	// active subscription whose SinceMessageID is not above the message id),
	// or holding a flag row for it.
	Received bool
	// Flags are the user's flags: the flag row when there is one, otherwise,
	// when Received, the message's DefaultFlags with FlagRead added when the
	// user sent it or their read mark of its channel or conversation covers
	// it (see [FlagStore.MarkReadThrough]), otherwise zero.
	Flags MessageFlags
}

// UserMessageFlags is an explicit flag row: the user's complete flags on
// one message. A row makes the message received by the user.
type UserMessageFlags struct {
	UserID    UserID
	MessageID MessageID
	Flags     MessageFlags
}

// FlagStore persists per-user message flags.
//
// Flags are stored only where they differ from what can be derived: a user
// who received a message (see [UserMessage.Received]) and has no row for it
// has the message's DefaultFlags, plus FlagRead when they sent it or their
// read mark of the message's channel or conversation (the highest id up to
// which they have read it) covers it. Sending a message to a channel
// therefore writes no row per subscriber, nor one for a sender who reads
// their own message, and every method here is one set-based query. Rows go with
// their message when it is deleted (DeleteMessages).
type FlagStore interface {
	// UserMessages returns the user's view of each existing message among ids,
	// ordered by id; unknown ids are left out.
	UserMessages(ctx context.Context, user UserID, ids []MessageID) ([]UserMessage, error)
	// PutUserMessageFlags inserts or replaces the rows.
	PutUserMessageFlags(ctx context.Context, rows []UserMessageFlags) error
	// UpdateUserMessageFlags sets (add) or clears the flag bits of flag on the
	// messages among ids that the user received, in one statement, and returns
	// the ids whose flags changed, ascending. Messages the user did not
	// receive are left alone. A row of the user's own message that comes
	// back to what is derived for it (read, the DefaultFlags) is deleted.
	// Marking messages read may move the user's read marks (see
	// MarkReadThrough) over messages that are then read; what any
	// message's flags are is never changed by that.
	UpdateUserMessageFlags(ctx context.Context, user UserID, ids []MessageID, flag MessageFlags, add bool) ([]MessageID, error)
	// MarkReadThrough records that the user has read every message they
	// received of the recipient (a channel or direct conversation) with id
	// <= through: their read mark of it rises to through (it never falls)
	// and their rows among those messages get FlagRead. Other flags, and
	// messages above through, are left alone.
	MarkReadThrough(ctx context.Context, user UserID, recipient RecipientID, through MessageID) error
	// UnreadMessages returns the messages the user received and has not read
	// (no FlagRead), newest first, at most limit of them (limit > 0).
	UnreadMessages(ctx context.Context, user UserID, limit int) ([]UserMessage, error)
	// MessageFlagRows returns, ordered by user, the flags of every user who
	// received the message with flags other than its DefaultFlags: their
	// row, or DefaultFlags|FlagRead when they sent it or their read mark
	// covers it. Users
	// who received it with exactly its DefaultFlags are not listed, so a
	// caller that gives them DefaultFlags knows every receiver's flags.
	MessageFlagRows(ctx context.Context, msg MessageID) ([]UserMessageFlags, error)
	// FlaggedMessageIDs returns the ids of the messages on which the user has
	// every bit of flag, ascending.
	FlaggedMessageIDs(ctx context.Context, user UserID, flag MessageFlags) ([]MessageID, error)
}

// MessageFlags is a set of per-user message flags. The bits are in Zulip's
// order, which is also the order of flag lists on the wire.
type MessageFlags uint16

// The message flags.
const (
	FlagRead MessageFlags = 1 << iota
	FlagStarred
	FlagCollapsed
	FlagMentioned
	FlagStreamWildcardMentioned
	FlagTopicWildcardMentioned
	// FlagHasAlertWord is never set: alert words are not modelled.
	FlagHasAlertWord
	// FlagHistorical marks a message the user did not receive when it was sent
	// but added to their history later (by starring it, for instance).
	FlagHistorical
)

// flagNames are the wire names of the flags, bit 0 first.
var flagNames = []string{
	"read", "starred", "collapsed", "mentioned", "stream_wildcard_mentioned",
	"topic_wildcard_mentioned", "has_alert_word", "historical",
}

// MentionFlags are the flags that put a message under is:mentioned.
const MentionFlags = FlagMentioned | FlagStreamWildcardMentioned | FlagTopicWildcardMentioned

// HistoricalFlags are the flags of a message the user can read but never
// received: Zulip shows it read and historical.
const HistoricalFlags = FlagRead | FlagHistorical

// Names returns the wire names of the flags in f, in Zulip's order; never nil.
func (f MessageFlags) Names() []string {
	out := []string{}
	for i, name := range flagNames {
		if f&(1<<i) != 0 {
			out = append(out, name)
		}
	}
	return out
}

// String returns the names of f joined with "|".
func (f MessageFlags) String() string { return strings.Join(f.Names(), "|") }

// ParseMessageFlag returns the flag with the wire name, or false.
func ParseMessageFlag(name string) (MessageFlags, bool) {
	i := slices.Index(flagNames, name)
	if i < 0 {
		return 0, false
	}
	return 1 << i, true
}

// EditableFlags are the flags users may change, as in Zulip (the others are
// set once, when the message is sent or becomes historical).
const EditableFlags = FlagRead | FlagStarred | FlagCollapsed
