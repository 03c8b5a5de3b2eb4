package messages

// A typed builder of narrow terms for Go callers: messages.Request{Narrow:
// []messages.NarrowTerm{messages.ChannelTerm(id), messages.SearchTerm("lunch"),
// messages.SenderTerm(bot).Not()}} needs no JSON.

import (
	"encoding/json"
	"strconv"

	"github.com/chatcore/chatcore"
)

// IsOperand is an operand of the is operator.
type IsOperand string

// The operands of is: Zulip knows (followed and muted come with user topics).
const (
	IsUnread    IsOperand = "unread"
	IsStarred   IsOperand = "starred"
	IsMentioned IsOperand = "mentioned"
	IsAlerted   IsOperand = "alerted"
	IsDM        IsOperand = "dm"
	IsResolved  IsOperand = "resolved"
	IsFollowed  IsOperand = "followed"
	IsMuted     IsOperand = "muted"
)

// HasOperand is an operand of the has operator.
type HasOperand string

// The operands of has:.
const (
	HasLink       HasOperand = "link"
	HasImage      HasOperand = "image"
	HasAttachment HasOperand = "attachment"
	HasReaction   HasOperand = "reaction"
)

// InOperand is an operand of the in operator.
type InOperand string

// The operands of in:.
const (
	InAll  InOperand = "all"
	InHome InOperand = "home"
)

// ChannelsOperand is an operand of the channels operator.
type ChannelsOperand string

// The operands of channels:.
const (
	ChannelsPublic    ChannelsOperand = "public"
	ChannelsWebPublic ChannelsOperand = "web-public"
)

// Not returns t negated: the narrow keeps the messages t would leave out.
func (t NarrowTerm) Not() NarrowTerm {
	t.Negated = !t.Negated
	return t
}

// stringTerm returns the term operator:s.
func stringTerm(op, s string) NarrowTerm {
	raw, _ := json.Marshal(s) // a string always marshals
	return NarrowTerm{Operator: op, Operand: raw}
}

// idTerm returns the term operator:id.
func idTerm[T ~int64](op string, id T) NarrowTerm {
	return NarrowTerm{Operator: op, Operand: json.RawMessage(strconv.FormatInt(int64(id), 10))}
}

// ChannelTerm is the narrow to one channel.
func ChannelTerm(id chatcore.StreamID) NarrowTerm { return idTerm("channel", id) }

// ChannelNameTerm is the narrow to the channel of that name.
func ChannelNameTerm(name string) NarrowTerm { return stringTerm("channel", name) }

// TopicTerm is the narrow to a topic (of any channel, unless with a
// channel term).
func TopicTerm(topic string) NarrowTerm { return stringTerm("topic", topic) }

// DMTerm is the narrow to the direct conversation of the caller with these
// users.
func DMTerm(users ...chatcore.UserID) NarrowTerm {
	raw, _ := json.Marshal(users) // ids always marshal
	if users == nil {
		raw = json.RawMessage("[]")
	}
	return NarrowTerm{Operator: "dm", Operand: raw}
}

// DMIncludingTerm is the narrow to the caller's direct conversations that
// include user.
func DMIncludingTerm(user chatcore.UserID) NarrowTerm { return idTerm("dm-including", user) }

// SenderTerm is the narrow to the messages user sent.
func SenderTerm(user chatcore.UserID) NarrowTerm { return idTerm("sender", user) }

// SearchTerm is a full-text search: every word, stemmed, in the content or
// topic; a part in double quotes as written.
func SearchTerm(text string) NarrowTerm { return stringTerm("search", text) }

// IDTerm is the narrow to one message.
func IDTerm(id chatcore.MessageID) NarrowTerm { return idTerm("id", id) }

// NearTerm names the message a client centres on: it selects nothing, and
// is the anchor of a request without one.
func NearTerm(id chatcore.MessageID) NarrowTerm { return idTerm("near", id) }

// WithTerm is the narrow to the conversation of a message, wherever it
// moved.
func WithTerm(id chatcore.MessageID) NarrowTerm { return idTerm("with", id) }

// IsTerm is is:<what>.
func IsTerm(what IsOperand) NarrowTerm { return stringTerm("is", string(what)) }

// HasTerm is has:<what>.
func HasTerm(what HasOperand) NarrowTerm { return stringTerm("has", string(what)) }

// InTerm is in:<what>.
func InTerm(what InOperand) NarrowTerm { return stringTerm("in", string(what)) }

// ChannelsTerm is channels:<what>.
func ChannelsTerm(what ChannelsOperand) NarrowTerm { return stringTerm("channels", string(what)) }
