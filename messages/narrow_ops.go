package messages

// Narrow operators beyond conversations: with, dm-including, is:<what> and
// has:<what>, as Zulip's NarrowBuilder reads them.

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore"
)

// ResolvedTopicPrefix is the prefix Zulip gives the topic of a resolved
// conversation; is:resolved selects channel messages whose topic starts
// with it.
const ResolvedTopicPrefix = "✔ "

// hasWhat is a set of has:<what> operands.
type hasWhat uint8

const (
	hasLink hasWhat = 1 << iota
	hasImage
	hasAttachment
	hasReaction
)

// stored returns the has: operands a message stores (Message.Has): all but
// reaction, which the store finds from the reactions.
func (w hasWhat) stored() chatcore.MessageHas {
	var h chatcore.MessageHas
	if w&hasLink != 0 {
		h |= chatcore.HasLink
	}
	if w&hasImage != 0 {
		h |= chatcore.HasImage
	}
	if w&hasAttachment != 0 {
		h |= chatcore.HasAttachment
	}
	return h
}

// stringOperand decodes a string operand; other JSON gives "" and false.
func stringOperand(raw json.RawMessage) (string, bool) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// parseIs applies is:<what> to spec; an unknown operand is Zulip's
// "unknown 'is' operand <what>".
func parseIs(spec *narrowSpec, raw json.RawMessage) error {
	what, ok := stringOperand(raw)
	if !ok {
		return errBadNarrow("unknown 'is' operand")
	}
	if spec.flags.addIs(what) {
		return nil // is:unread, is:starred, is:mentioned, is:alerted
	}
	switch what {
	case "dm", "private":
		spec.onlyDMs = true
	case "resolved":
		spec.resolved = true
	case "muted", "followed":
		// Like every is: term, they read only the messages the viewer
		// received (Zulip's ok_to_include_history).
		spec.flags.used = true
		if what == "followed" {
			spec.topics |= chatcore.TopicsFollowed
		} else {
			spec.topics |= chatcore.TopicsMuted
		}
	default:
		return errBadNarrow("unknown 'is' operand " + what)
	}
	return nil
}

// parseHas applies has:<what> to spec.
func parseHas(spec *narrowSpec, raw json.RawMessage) error {
	what, ok := stringOperand(raw)
	if !ok {
		return errBadNarrow("unknown 'has' operand")
	}
	switch what {
	case "link":
		spec.has |= hasLink
	case "image":
		spec.has |= hasImage
	case "attachment":
		spec.has |= hasAttachment
	case "reaction":
		spec.has |= hasReaction
	default:
		return errBadNarrow("unknown 'has' operand " + what)
	}
	return nil
}

// parseDMIncluding resolves the operand of dm-including, a user id or an
// e-mail, to a user of the viewer's realm; an unknown one gives "Invalid
// narrow operator: unknown user <operand>".
func parseDMIncluding(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, raw json.RawMessage) (chatcore.UserID, error) {
	var operand any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&operand); err != nil {
		return 0, errBadNarrow("unknown user")
	}
	var u *chatcore.User
	var err error
	var text string
	switch v := operand.(type) {
	case json.Number:
		text = v.String()
		n, perr := strconv.ParseInt(text, 10, 64)
		if perr != nil {
			return 0, errBadNarrow("unknown user " + text)
		}
		u, err = tx.User(ctx, chatcore.UserID(n))
	case string:
		text = v
		u, err = tx.UserByEmail(ctx, viewer.RealmID, strings.TrimSpace(v))
	default:
		return 0, errBadNarrow("unknown user")
	}
	if errors.Is(err, chatcore.ErrNotFound) || (err == nil && u.RealmID != viewer.RealmID) {
		return 0, errBadNarrow("unknown user " + text)
	}
	if err != nil {
		return 0, err
	}
	return u.ID, nil
}

// dmIncludingRecipients returns the direct conversations of viewer that
// include user: every one of viewer's when user is the viewer (as is:dm),
// otherwise those both take part in.
func dmIncludingRecipients(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, user chatcore.UserID) ([]chatcore.RecipientID, error) {
	mine, err := tx.DirectRecipients(ctx, viewer.ID)
	if err != nil || user == viewer.ID {
		return mine, err
	}
	theirs, err := tx.DirectRecipients(ctx, user)
	if err != nil {
		return nil, err
	}
	out := []chatcore.RecipientID{}
	for _, r := range mine {
		if _, found := slices.BinarySearch(theirs, r); found {
			out = append(out, r)
		}
	}
	return out, nil
}

// applyWith rewrites a narrow with a "with" term as Zulip does: the term names
// a message; when the viewer can read it, its conversation (channel and
// topic, or the direct conversation) replaces the channel, topic and dm terms
// of the narrow; otherwise the term is dropped and the rest of the narrow
// stays. Errors: "Duplicate 'with' operators." for two of them, "Invalid
// narrow operator: Invalid 'with' operator" for an operand that is not an
// integer.
func applyWith(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, terms []NarrowTerm) ([]NarrowTerm, error) {
	at := -1
	for i, t := range terms {
		if t.Operator != "with" {
			continue
		}
		if at >= 0 {
			return nil, chatcore.BadRequest("Duplicate 'with' operators.")
		}
		at = i
	}
	if at < 0 {
		return terms, nil
	}
	id, ok := withOperand(terms[at].Operand)
	if !ok {
		return nil, errBadNarrow("Invalid 'with' operator")
	}
	rest := slices.Delete(slices.Clone(terms), at, at+1)
	m, err := chatcore.AccessibleMessage(ctx, tx, viewer, chatcore.MessageID(id))
	if err != nil {
		return nil, err
	}
	if m == nil {
		return rest, nil
	}
	rest = slices.DeleteFunc(rest, func(t NarrowTerm) bool {
		switch t.Operator {
		case "stream", "channel", "topic", "dm", "pm-with":
			return true
		}
		return false
	})
	var conv []NarrowTerm
	if m.Type == chatcore.MessageTypeStream {
		topic, _ := json.Marshal(m.Topic)
		conv = []NarrowTerm{
			{Operator: "channel", Operand: json.RawMessage(strconv.FormatInt(int64(m.StreamID), 10))},
			{Operator: "topic", Operand: topic},
		}
	} else {
		members, _ := json.Marshal(m.DirectMembers)
		conv = []NarrowTerm{{Operator: "dm", Operand: members}}
	}
	return append(conv, rest...), nil
}

// withOperand parses the operand of "with": an integer, or a string holding
// one (surrounding spaces allowed).
func withOperand(raw json.RawMessage) (int64, bool) {
	text := strings.TrimSpace(string(raw))
	if s, ok := stringOperand(raw); ok {
		text = strings.TrimSpace(s)
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}
