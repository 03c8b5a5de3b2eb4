package chatcore

// Where a send goes: the type and "to" parameters of POST /messages checked
// (sendTo) and resolved to a Destination, a channel by name or id or direct
// recipients by ids or e-mails.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore/internal/slicex"
)

// Destination says where [Service.SendInTx] delivers a message: a channel and topic when
// StreamID is set, otherwise a direct message to To (the sender need not be
// listed).
type Destination struct {
	StreamID StreamID
	Topic    string
	To       []UserID
	// SkipAccessCheck sends to a channel without checking that the sender may
	// post there (outgoing-webhook replies). The channel must still exist in the
	// sender's realm.
	SkipAccessCheck bool
	// ReadBySender, when non-nil, says whether the message is read for its
	// sender; nil applies Zulip's default for the sending client.
	ReadBySender *bool
	// SenderQueueID and LocalID, both non-empty, ask for Zulip's local echo:
	// the message event delivered to the sender's event queue SenderQueueID
	// carries local_message_id LocalID (the client's id of its unsent copy).
	// Other queues, the sender's included, get the event without it.
	SenderQueueID, LocalID string
}

// sendTo is the type and "to" of a SendMessageRequest with their syntax
// checked, before anything is looked up: a channel by name or id, or direct
// recipients by ids or by e-mails (deduplicated, at most
// [MaxDirectRecipients] given).
type sendTo struct {
	isChannel   bool
	channelName string
	channelID   StreamID // the channel's id when byID
	byID        bool
	userIDs     []UserID
	emails      []string
}

// MaxLocalEchoIDLength bounds local_id and queue_id of POST /messages, in
// bytes (Zulip sets none): they are logged with the message event, and a
// client's ids are a few characters, a queue id 32.
const MaxLocalEchoIDLength = 100

// parseSendTo checks the type/to parameters of req without store access.
func parseSendTo(req SendMessageRequest) (sendTo, error) {
	var to sendTo
	for i, v := range []*string{req.LocalID, req.QueueID} {
		if v != nil && len(*v) > MaxLocalEchoIDLength {
			return to, BadRequestf("%s is too long (limit: %d characters)", [...]string{"local_id", "queue_id"}[i], MaxLocalEchoIDLength)
		}
	}
	switch req.Type {
	case "stream", "channel":
		if req.To == nil {
			return to, BadRequest("Missing channel")
		}
		to.isChannel = true
		return to, parseChannelIndicator(*req.To, &to)
	case "private", "direct":
		if req.To == nil {
			return to, BadRequest("Message must have recipients")
		}
		return to, parseDirectRecipients(*req.To, &to)
	case "":
		return to, MissingArgument("type")
	default:
		return to, BadRequest("Invalid type: Value error, Not in the list of possible values")
	}
}

// resolveDestination turns the parsed type/to/topic parameters into a
// Destination, looking the channel or the recipients' e-mails up in the
// sender's realm; it also returns the channel it read (nil for direct
// messages).
func resolveDestination(ctx context.Context, tx Tx, sender *User, req SendMessageRequest, to sendTo) (Destination, *Stream, error) {
	var dest Destination
	if to.isChannel {
		var st *Stream
		var err error
		if to.byID {
			st, err = StreamInRealm(ctx, tx, sender.RealmID, to.channelID)
			if errors.Is(err, ErrNotFound) {
				return dest, nil, ChannelIDDoesNotExistError(to.channelID)
			}
		} else {
			st, err = streamByNameForSend(ctx, tx, sender.RealmID, to.channelName)
		}
		if err != nil {
			return dest, nil, err
		}
		if req.Topic == nil {
			return dest, nil, BadRequest("Missing topic")
		}
		dest.StreamID = st.ID
		dest.Topic = *req.Topic
		return dest, st, nil
	}
	ids := to.userIDs
	for _, email := range to.emails {
		// At most MaxDirectRecipients lookups: the store has no lookup of
		// many e-mails at once.
		u, err := tx.UserByEmail(ctx, sender.RealmID, email)
		if errors.Is(err, ErrNotFound) || (err == nil && u.RealmID != sender.RealmID) {
			return dest, nil, BadRequestf("Invalid email '%s'", email)
		}
		if err != nil {
			return dest, nil, err
		}
		ids = append(ids, u.ID)
	}
	if len(ids) == 0 {
		return dest, nil, BadRequest("Message must have recipients")
	}
	dest.To = ids
	return dest, nil, nil
}

// parseChannelIndicator parses Zulip's "to" of a channel message into to: a
// raw name, a JSON string, a JSON integer id, or a one-element JSON list of
// either.
func parseChannelIndicator(raw string, to *sendTo) error {
	var data any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil || dec.More() {
		to.channelName = raw
		return nil
	}
	if list, ok := data.([]any); ok {
		if len(list) != 1 {
			return BadRequest("Expected exactly one channel")
		}
		data = list[0]
	}
	switch v := data.(type) {
	case string:
		to.channelName = v
		return nil
	case json.Number:
		n, err := strconv.ParseInt(v.String(), 10, 64)
		if err != nil {
			return BadRequest("Invalid data type for channel")
		}
		to.channelID, to.byID = StreamID(n), true
		return nil
	}
	return BadRequest("Invalid data type for channel")
}

func streamByNameForSend(ctx context.Context, tx Tx, realm RealmID, name string) (*Stream, error) {
	name = strings.TrimSpace(name)
	st, err := tx.StreamByName(ctx, realm, name)
	if errors.Is(err, ErrNotFound) || (err == nil && st.RealmID != realm) {
		// Zulip HTML-escapes the name it echoes (django.utils.html.escape).
		escaped := djangoEscaper.Replace(name)
		return nil, &Error{Code: CodeStreamDoesNotExist, Kind: KindInvalid,
			Msg: fmt.Sprintf("Channel '%s' does not exist", escaped), Data: map[string]any{"stream": escaped}}
	}
	return st, err
}

// djangoEscaper escapes text as django.utils.html.escape does.
var djangoEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

// ChannelIDDoesNotExistError is Zulip's STREAM_DOES_NOT_EXIST error for a
// channel id that names no channel of the realm: "Channel with ID 'n' does
// not exist", with the id in its data.
func ChannelIDDoesNotExistError(id StreamID) *Error {
	return &Error{Code: CodeStreamDoesNotExist, Kind: KindInvalid,
		Msg: fmt.Sprintf("Channel with ID '%d' does not exist", id), Data: map[string]any{"stream_id": int64(id)}}
}

// parseDirectRecipients parses the "to" of a direct message into to: a JSON
// list of user ids or of e-mails, or comma-separated e-mails. More than
// MaxDirectRecipients entries give "to is too long (limit: N items)"; the
// result is deduplicated.
func parseDirectRecipients(raw string, to *sendTo) error {
	var data any
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil || dec.More() {
		data = raw
	}
	if s, ok := data.(string); ok {
		parts := strings.Split(s, ",")
		list := make([]any, 0, len(parts))
		for _, p := range parts {
			list = append(list, p)
		}
		data = list
	}
	list, ok := data.([]any)
	if !ok {
		return BadRequest("Invalid data type for recipients")
	}
	if len(list) > MaxDirectRecipients {
		return TooLongError("to", MaxDirectRecipients)
	}
	if len(list) == 0 {
		return nil
	}
	mixed := BadRequest("Recipient lists may contain emails or user IDs, but not both.")
	switch list[0].(type) {
	case string:
		for _, item := range list {
			email, ok := item.(string)
			if !ok {
				return mixed
			}
			if email = strings.TrimSpace(email); email != "" {
				to.emails = append(to.emails, email)
			}
		}
		to.emails = slicex.Unique(to.emails)
	case json.Number:
		for _, item := range list {
			n, ok := item.(json.Number)
			if !ok {
				return mixed
			}
			v, err := strconv.ParseInt(n.String(), 10, 64)
			if err != nil {
				return BadRequest("Invalid data type for recipients")
			}
			to.userIDs = append(to.userIDs, UserID(v))
		}
		to.userIDs = slicex.Unique(to.userIDs)
	default:
		return BadRequest("Invalid data type for recipients")
	}
	return nil
}
