package messages

// Narrows of GET /messages: the wire form and its resolution against a realm.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
)

// NarrowTerm is one element of a narrow: {"operator": ..., "operand": ...}
// (or, in the legacy form, ["operator", "operand"]). Operand is raw JSON: a
// channel id or name, a topic string, or for dm a list of user ids (or
// e-mails, or a comma-separated e-mail string).
type NarrowTerm struct {
	Operator string          `json:"operator"`
	Operand  json.RawMessage `json:"operand"`
	Negated  bool            `json:"negated"`
}

// narrowSpec is a parsed narrow.
type narrowSpec struct {
	stream   *chatcore.Stream
	topicKey *string
	dm       []chatcore.UserID // participants, viewer included, sorted; nil: no dm term
	sender   chatcore.UserID   // only messages from this user, when non-zero
	onlyDMs  bool              // is:dm
	// dmIncluding, when non-zero, keeps the viewer's direct conversations
	// that include this user (dm-including).
	dmIncluding chatcore.UserID
	resolved    bool       // is:resolved
	has         hasWhat    // has:<what> terms, all required
	flags       flagNarrow // is:unread, is:starred, is:mentioned, is:alerted
	// topics is the filter of is:muted, is:followed and in:home (for in:home
	// with a channel term, narrowQuery keeps only the topic mutes).
	topics      chatcore.TopicFilter
	narrowExtra // search, id, near, in, channels and negated terms
}

// errBadNarrow is Zulip's BadNarrowOperatorError.
func errBadNarrow(desc string) *chatcore.Error {
	return &chatcore.Error{Code: chatcore.CodeBadNarrow, Kind: chatcore.KindInvalid, Msg: "Invalid narrow operator: " + desc,
		Data: map[string]any{"desc": desc}}
}

// narrowTerms decodes the wire form of a narrow (see
// [Request.NarrowJSON]) into terms.
func narrowTerms(raw json.RawMessage) ([]NarrowTerm, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var elems []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &elems) != nil {
		if !json.Valid(raw) {
			return nil, chatcore.BadRequest("narrow is not valid JSON")
		}
		return nil, chatcore.BadRequest("narrow is not a list")
	}
	if len(elems) > chatcore.MaxNarrowTerms {
		return nil, chatcore.TooLongError("narrow", chatcore.MaxNarrowTerms)
	}
	terms := make([]NarrowTerm, 0, len(elems))
	for i, elem := range elems {
		valueError := func(msg string) error {
			return chatcore.BadRequestf("Invalid narrow[%d]: Value error, %s", i, msg)
		}
		switch elem[0] {
		case '[':
			var pair []json.RawMessage
			if err := json.Unmarshal(elem, &pair); err != nil {
				return nil, err // cannot happen: elem is valid JSON
			}
			var op string
			if len(pair) != 2 || !isJSONString(pair[0]) || !isJSONString(pair[1]) || json.Unmarshal(pair[0], &op) != nil {
				return nil, valueError("element is not a string pair")
			}
			terms = append(terms, NarrowTerm{Operator: op, Operand: pair[1]})
		case '{':
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(elem, &obj); err != nil {
				return nil, err // cannot happen: elem is valid JSON
			}
			operand, ok := obj["operand"]
			if !ok || string(operand) == "null" {
				return nil, valueError("operand is missing")
			}
			opRaw, ok := obj["operator"]
			if !ok || string(opRaw) == "null" {
				return nil, valueError("operator is missing")
			}
			t := NarrowTerm{Operand: operand}
			if !isJSONString(opRaw) || json.Unmarshal(opRaw, &t.Operator) != nil {
				return nil, chatcore.BadRequestf(`narrow[%d]["operator"] is not a string`, i)
			}
			if neg, ok := obj["negated"]; ok && (string(neg) == "null" || json.Unmarshal(neg, &t.Negated) != nil) {
				return nil, chatcore.BadRequestf(`narrow[%d]["negated"] is not a boolean`, i)
			}
			terms = append(terms, t)
		default:
			return nil, valueError("dict or list required")
		}
	}
	return terms, nil
}

// isJSONString reports whether raw, a valid JSON value, is a string.
func isJSONString(raw json.RawMessage) bool { return len(raw) > 0 && raw[0] == '"' }

// parseNarrow checks the narrow terms against the viewer's realm.
func parseNarrow(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, realm *chatcore.Realm, terms []NarrowTerm) (narrowSpec, error) {
	var spec narrowSpec
	for i, t := range terms {
		if handled, err := parseExtra(ctx, tx, viewer, realm, &spec, i, t); handled || err != nil {
			if err != nil {
				return spec, err
			}
			continue
		}
		switch t.Operator {
		case "channel", "stream":
			st, err := narrowChannel(ctx, tx, viewer, t.Operand)
			if err != nil {
				return spec, err
			}
			spec.stream = st
		case "topic", "subject":
			key, err := narrowTopicKey(realm, t.Operand)
			if err != nil {
				return spec, err
			}
			spec.topicKey = &key
		case "dm", "pm-with":
			ids, err := dmOperand(ctx, tx, viewer.RealmID, i, t.Operand)
			if err != nil {
				return spec, err
			}
			spec.dm = dmMembers(viewer, ids)
		case "sender":
			id, err := senderOperand(ctx, tx, viewer, i, t.Operand)
			if err != nil {
				return spec, err
			}
			spec.sender = id
		case "dm-including":
			id, err := parseDMIncluding(ctx, tx, viewer, t.Operand)
			if err != nil {
				return spec, err
			}
			spec.dmIncluding = id
		case "is":
			if err := parseIs(&spec, t.Operand); err != nil {
				return spec, err
			}
		case "has":
			if err := parseHas(&spec, t.Operand); err != nil {
				return spec, err
			}
		case "in":
			if err := parseIn(&spec, t.Operand); err != nil {
				return spec, err
			}
		default:
			return spec, errBadNarrow("unknown operator " + t.Operator)
		}
	}
	return spec, nil
}

// narrowChannel resolves the operand of a channel term (an id, a string
// holding one, or a name) to a channel of the viewer's realm, with Zulip's
// "unknown channel".
func narrowChannel(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, raw json.RawMessage) (*chatcore.Stream, error) {
	var operand any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&operand); err != nil {
		return nil, errBadNarrow("unknown channel")
	}
	var st *chatcore.Stream
	var err error
	switch v := operand.(type) {
	case json.Number:
		n, perr := strconv.ParseInt(v.String(), 10, 64)
		if perr != nil {
			return nil, errBadNarrow("unknown channel")
		}
		st, err = chatcore.StreamInRealm(ctx, tx, viewer.RealmID, chatcore.StreamID(n))
	case string:
		if id, ok := chatcore.ParseID[chatcore.StreamID](v); ok {
			st, err = chatcore.StreamInRealm(ctx, tx, viewer.RealmID, id)
		} else {
			st, err = tx.StreamByName(ctx, viewer.RealmID, v)
			if err == nil && st.RealmID != viewer.RealmID {
				err = chatcore.ErrNotFound
			}
		}
	default:
		return nil, errBadNarrow("unknown channel")
	}
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, errBadNarrow("unknown channel")
	}
	return st, err
}

// narrowTopicKey returns the TopicKey of the operand of a topic term (the
// realm's display name of the empty topic is the empty topic).
func narrowTopicKey(realm *chatcore.Realm, raw json.RawMessage) (string, error) {
	var topic string
	if err := json.Unmarshal(raw, &topic); err != nil {
		return "", errBadNarrow("invalid topic")
	}
	topic = strings.TrimSpace(topic)
	if topic == chatcore.DisplayedEmptyTopic(realm) {
		topic = ""
	}
	return chatcore.TopicKey(topic), nil
}

// dmMembers returns the participants of a dm term: ids and the viewer,
// sorted, without repeats.
func dmMembers(viewer *chatcore.User, ids []chatcore.UserID) []chatcore.UserID {
	members := append(ids, viewer.ID)
	slices.Sort(members)
	return slices.Compact(members)
}

// senderOperand resolves the operand of sender term i to one user.
func senderOperand(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, i int, raw json.RawMessage) (chatcore.UserID, error) {
	ids, err := dmOperand(ctx, tx, viewer.RealmID, i, raw)
	if err != nil || len(ids) != 1 {
		return 0, errBadNarrow("unknown user")
	}
	return ids[0], nil
}

// userOperandItem is one user of a dm or sender operand: an id, or an
// e-mail when email is set.
type userOperandItem struct {
	id    chatcore.UserID
	email string
}

// userOperandItems parses the operand of a dm or sender narrow without store
// access: a user id, a list of user ids and e-mails, or comma-separated
// e-mails. More than [chatcore.MaxDirectRecipients] items give
// `narrow[i]["operand"] is too long (limit: N items)`.
func userOperandItems(i int, raw json.RawMessage) ([]userOperandItem, error) {
	var operand any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&operand); err != nil {
		return nil, errBadNarrow("invalid user list")
	}
	var list []any
	switch v := operand.(type) {
	case string:
		for e := range strings.SplitSeq(v, ",") {
			list = append(list, e)
		}
	case json.Number:
		list = []any{v}
	case []any:
		list = v
	default:
		return nil, errBadNarrow("invalid user list")
	}
	if len(list) > chatcore.MaxDirectRecipients {
		return nil, chatcore.TooLongError(fmt.Sprintf(`narrow[%d]["operand"]`, i), chatcore.MaxDirectRecipients)
	}
	items := make([]userOperandItem, 0, len(list))
	for _, item := range list {
		switch x := item.(type) {
		case json.Number:
			n, err := strconv.ParseInt(x.String(), 10, 64)
			if err != nil {
				return nil, errBadNarrow("invalid user ID")
			}
			items = append(items, userOperandItem{id: chatcore.UserID(n)})
		case string:
			if email := strings.TrimSpace(x); email != "" {
				items = append(items, userOperandItem{email: email})
			}
		default:
			return nil, errBadNarrow("invalid user list")
		}
	}
	if len(items) == 0 {
		return nil, errBadNarrow("invalid user list")
	}
	return slicex.Unique(items), nil
}

// checkNarrowOperands parses the user operands of terms before any store
// access, so that an oversized or malformed one is refused first.
func checkNarrowOperands(terms []NarrowTerm) error {
	for i, t := range terms {
		switch t.Operator {
		case "dm", "pm-with", "sender":
			if _, err := userOperandItems(i, t.Operand); err != nil {
				return err
			}
		case "search":
			if err := checkSearchOperand(i, t.Operand); err != nil {
				return err
			}
		}
	}
	return nil
}

// dmOperand resolves the operand of term i, a dm or sender narrow, to users
// of the realm: the ids in one query, the e-mails one by one (at most
// MaxDirectRecipients). Unknown users give "Invalid narrow operator: unknown
// user ID n" / "unknown user x", for the first in the operand's order.
func dmOperand(ctx context.Context, tx chatcore.Tx, realm chatcore.RealmID, i int, raw json.RawMessage) ([]chatcore.UserID, error) {
	items, err := userOperandItems(i, raw)
	if err != nil {
		return nil, err
	}
	var ids []chatcore.UserID
	for _, it := range items {
		if it.email == "" {
			ids = append(ids, it.id)
		}
	}
	known := map[chatcore.UserID]bool{}
	if len(ids) > 0 {
		users, err := tx.Users(ctx, chatcore.UserFilter{RealmID: realm, IDs: ids})
		if err != nil {
			return nil, err
		}
		for _, u := range users {
			known[u.ID] = u.RealmID == realm
		}
	}
	out := make([]chatcore.UserID, 0, len(items))
	for _, it := range items {
		if it.email == "" {
			if !known[it.id] {
				return nil, errBadNarrow(fmt.Sprintf("unknown user ID %d", it.id))
			}
			out = append(out, it.id)
			continue
		}
		u, err := tx.UserByEmail(ctx, realm, it.email)
		if errors.Is(err, chatcore.ErrNotFound) || (err == nil && u.RealmID != realm) {
			return nil, errBadNarrow("unknown user " + it.email)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, u.ID)
	}
	return out, nil
}
