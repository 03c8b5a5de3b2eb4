package messages

// Narrow operators of search: search (full text), id, near, in, channels,
// and the negated form of every term Zulip negates, all answered by the
// store's query (store.NarrowConds and the recipients of the query).

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/fulltext"
	"github.com/chatcore/chatcore/store"
)

// MaxSearchOperandLen bounds the length of a search operand, in bytes.
const MaxSearchOperandLen = 1000

// narrowExtra is the part of a parsed narrow the search operators and
// negated terms add.
type narrowExtra struct {
	conds store.NarrowConds
	// searchOperand is the operands of the search terms that are not
	// negated, joined by spaces.
	searchOperand string
	// ids holds the id of every id term; more than one distinct selects
	// nothing.
	ids []chatcore.MessageID
	// near is the operand of the last near term, 0 for none.
	near chatcore.MessageID
	// channels is the operand of a channels term ("public" or
	// "web-public"), notChannels those of negated ones.
	channels    string
	notChannels []string
	// Negated conversation terms: their recipients leave the query's.
	notStreams     []*chatcore.Stream
	notDMs         [][]chatcore.UserID
	notOnlyDMs     bool
	notDMIncluding []chatcore.UserID
}

// searchLexemes returns the lexemes of the narrow's search terms, for
// highlighting; nil when the narrow has no search term.
func (x *narrowExtra) searchLexemes() []string {
	var out []string
	for _, t := range x.conds.Search {
		out = append(out, t.Lexemes...)
	}
	if len(x.conds.Search) > 0 && out == nil {
		out = []string{}
	}
	return out
}

// checkSearchOperand checks the operand of a search term before any store
// access: a non-empty string of at most MaxSearchOperandLen bytes.
func checkSearchOperand(i int, raw json.RawMessage) error {
	s, ok := stringOperand(raw)
	switch {
	case !ok:
		return chatcore.BadRequestf(`narrow[%d]["operand"] is not a string`, i)
	case strings.TrimSpace(s) == "":
		return chatcore.BadRequest("operand cannot be blank.")
	case len(s) > MaxSearchOperandLen:
		return chatcore.BadRequestf(`narrow[%d]["operand"] is too long (limit: %d characters)`, i, MaxSearchOperandLen)
	}
	return nil
}

// parseExtra applies term i to spec when it is a search operator or a
// negated term, and reports whether it did.
func parseExtra(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, realm *chatcore.Realm, spec *narrowSpec, i int, t NarrowTerm) (bool, error) {
	x := &spec.narrowExtra
	switch t.Operator {
	case "search":
		s, _ := stringOperand(t.Operand) // checked by checkSearchOperand
		if !t.Negated {
			// As in Zulip, the search terms of a narrow are one search
			// of all their words.
			if x.searchOperand != "" {
				s = x.searchOperand + " " + s
			}
			x.searchOperand = s
			x.conds.Search = slices.DeleteFunc(x.conds.Search, func(st store.SearchTerm) bool { return !st.Negated })
		}
		p := fulltext.Parse(s)
		x.conds.Search = append(x.conds.Search, store.SearchTerm{Text: p.Text, Lexemes: p.Lexemes, Phrases: p.Phrases, Negated: t.Negated})
		return true, nil
	case "id":
		id, ok := idOperand(t.Operand)
		if !ok {
			return true, errBadNarrow("Invalid message ID")
		}
		if t.Negated {
			x.conds.NotIDs = append(x.conds.NotIDs, id)
		} else {
			x.ids = append(x.ids, id)
		}
		return true, nil
	case "near":
		// As in Zulip, near selects nothing: it names the message the
		// client centres on, which becomes the anchor when the request
		// gives none.
		if id, ok := idOperand(t.Operand); ok && !t.Negated {
			x.near = id
		}
		return true, nil
	case "in":
		if !t.Negated {
			return false, nil // parseIn
		}
		what, _ := stringOperand(t.Operand)
		switch what {
		case "all":
			return true, nil // as in Zulip, in:all selects everything negated or not
		case "home":
			// What in:home leaves out: the muted channels and topics.
			spec.topics |= chatcore.TopicsMuted
			return true, nil
		}
		return true, errBadNarrow("unknown 'in' operand " + what)
	case "channels", "streams":
		what, _ := stringOperand(t.Operand)
		if what != "public" && what != "web-public" {
			return true, errBadNarrow("unknown channels operand " + what)
		}
		if t.Negated {
			x.notChannels = append(x.notChannels, what)
		} else {
			x.channels = what
		}
		return true, nil
	}
	if !t.Negated {
		return false, nil
	}
	switch t.Operator {
	case "channel", "stream":
		st, err := narrowChannel(ctx, tx, viewer, t.Operand)
		if err != nil {
			return true, err
		}
		x.notStreams = append(x.notStreams, st)
	case "topic", "subject":
		key, err := narrowTopicKey(realm, t.Operand)
		if err != nil {
			return true, err
		}
		x.conds.NotTopicKeys = append(x.conds.NotTopicKeys, key)
	case "dm", "pm-with":
		ids, err := dmOperand(ctx, tx, viewer.RealmID, i, t.Operand)
		if err != nil {
			return true, err
		}
		x.notDMs = append(x.notDMs, dmMembers(viewer, ids))
	case "sender":
		id, err := senderOperand(ctx, tx, viewer, i, t.Operand)
		if err != nil {
			return true, err
		}
		x.conds.NotSenderIDs = append(x.conds.NotSenderIDs, id)
	case "dm-including":
		id, err := parseDMIncluding(ctx, tx, viewer, t.Operand)
		if err != nil {
			return true, err
		}
		x.notDMIncluding = append(x.notDMIncluding, id)
	case "is":
		return true, parseNotIs(spec, t.Operand)
	case "has":
		return true, parseNotHas(spec, t.Operand)
	case "with":
		return true, errBadNarrow("Invalid 'with' operator")
	default:
		return true, errBadNarrow("unknown operator " + t.Operator)
	}
	return true, nil
}

// idOperand parses a message id operand: a non-negative integer, or a
// string of digits.
func idOperand(raw json.RawMessage) (chatcore.MessageID, bool) {
	text := string(raw)
	if s, ok := stringOperand(raw); ok {
		text = s
	}
	if text == "" || strings.TrimLeft(text, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return chatcore.MessageID(n), err == nil
}

// parseNotIs applies a negated is:<what> term.
func parseNotIs(spec *narrowSpec, raw json.RawMessage) error {
	what, ok := stringOperand(raw)
	if !ok {
		return errBadNarrow("unknown 'is' operand")
	}
	fn := &spec.flags
	switch what {
	case "unread":
		fn.all |= chatcore.FlagRead
	case "starred":
		fn.none |= chatcore.FlagStarred
	case "mentioned":
		fn.none |= chatcore.MentionFlags
	case "alerted":
		fn.none |= chatcore.FlagHasAlertWord
	case "dm", "private":
		spec.notOnlyDMs = true
		return nil
	case "resolved":
		spec.conds.NotTopicPrefix = ResolvedTopicPrefix
		return nil
	case "muted":
		// What is:muted leaves out is what in:home keeps.
		spec.topics |= chatcore.TopicsInHome
		return nil
	case "followed":
		return errBadNarrow("negated is:followed is not supported")
	default:
		return errBadNarrow("unknown 'is' operand " + what)
	}
	fn.used = true
	return nil
}

// parseNotHas applies a negated has:<what> term.
func parseNotHas(spec *narrowSpec, raw json.RawMessage) error {
	what, ok := stringOperand(raw)
	if !ok {
		return errBadNarrow("unknown 'has' operand")
	}
	switch what {
	case "link":
		spec.conds.NotHas |= chatcore.HasLink
	case "image":
		spec.conds.NotHas |= chatcore.HasImage
	case "attachment":
		spec.conds.NotHas |= chatcore.HasAttachment
	case "reaction":
		spec.conds.NoReaction = true
	default:
		return errBadNarrow("unknown 'has' operand " + what)
	}
	return nil
}

// publicChannels reports whether a channels:public term lets the viewer
// read the history of every public channel (Zulip's ok_to_include_history:
// not for guests, nor with an is: term).
func (spec *narrowSpec) publicChannels(viewer *chatcore.User) bool {
	return spec.channels == "public" && viewer.Role != chatcore.RoleGuest && !spec.flags.used
}

// applyExtra narrows q by the search operators and negated terms of spec:
// recipients leave q.Recipients (always a list here), the rest goes to the
// store as q.NarrowConds and q.IDs.
func applyExtra(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, streams []chatcore.Stream, spec *narrowSpec, q *chatcore.MessageQuery) error {
	x := &spec.narrowExtra
	q.NarrowConds = x.conds
	if len(x.ids) > 0 {
		ids := slices.Compact(slices.Sorted(slices.Values(x.ids)))
		if len(ids) > 1 {
			ids = []chatcore.MessageID{}
		}
		q.IDs = ids
	}
	drop := map[chatcore.RecipientID]bool{}
	keep := func(ok func(chatcore.RecipientID) bool) {
		q.Recipients = slices.DeleteFunc(q.Recipients, func(r chatcore.RecipientID) bool { return !ok(r) })
	}
	// Zulip's public channels: active ones anybody in the realm may join;
	// chatcore has no web-public channels, so web-public selects none.
	public := map[chatcore.RecipientID]bool{}
	for _, st := range streams {
		if !st.InviteOnly {
			public[st.RecipientID] = true
		}
	}
	switch x.channels {
	case "public":
		keep(func(r chatcore.RecipientID) bool { return public[r] })
	case "web-public":
		keep(func(chatcore.RecipientID) bool { return false })
	}
	for _, what := range x.notChannels {
		if what == "public" {
			for r := range public {
				drop[r] = true
			}
		}
	}
	for _, st := range x.notStreams {
		drop[st.RecipientID] = true
	}
	for _, members := range x.notDMs {
		rid, err := tx.DirectRecipient(ctx, viewer.RealmID, members)
		switch {
		case err == nil:
			drop[rid] = true
		case !errors.Is(err, chatcore.ErrNotFound):
			return err
		}
	}
	if x.notOnlyDMs {
		dms, err := tx.DirectRecipients(ctx, viewer.ID)
		if err != nil {
			return err
		}
		for _, r := range dms {
			drop[r] = true
		}
	}
	for _, u := range x.notDMIncluding {
		rs, err := dmIncludingRecipients(ctx, tx, viewer, u)
		if err != nil {
			return err
		}
		for _, r := range rs {
			drop[r] = true
		}
	}
	if len(drop) > 0 {
		keep(func(r chatcore.RecipientID) bool { return !drop[r] })
	}
	return nil
}

// highlight adds match_content and match_subject to views, as Zulip's
// search answers show them: the rendered content and the HTML-escaped
// topic with the words matching lexemes wrapped in <span
// class="highlight">.
func highlight(views []chatcore.MessageView, lexemes []string) {
	for i := range views {
		v := &views[i]
		content := fulltext.Highlight(v.RenderedContent, lexemes)
		subject := fulltext.Highlight(escapeHTML.Replace(v.Subject), lexemes)
		v.MatchContent, v.MatchSubject = &content, &subject
	}
}

// escapeHTML escapes a topic as Zulip's escape_html does.
var escapeHTML = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#39;")
