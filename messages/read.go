package messages

// Reading messages: One and Get.

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
	"github.com/chatcore/chatcore/store"
)

// OneRequest holds the parameters of GET /messages/{message_id}.
type OneRequest struct {
	// ApplyMarkdown false gives the raw Markdown in content (content_type
	// text/x-markdown); nil or true gives the rendered HTML (text/html), as
	// in Zulip.
	ApplyMarkdown *bool `json:"apply_markdown"`
	// AllowEmptyTopicName true shows an empty channel topic as "" (clients
	// with the empty_topic_name capability ask for it); otherwise it is the
	// realm's empty-topic display name, as in Zulip.
	AllowEmptyTopicName *bool `json:"allow_empty_topic_name"`
}

// One returns one message as actor sees it, in the format req asks
// for, and its raw Markdown. A missing message, one of another realm, or one
// the actor may not read gives BAD_REQUEST "Invalid message(s)". An empty
// channel topic is shown as the realm's empty-topic display name in subject,
// or as "" when req.AllowEmptyTopicName is true.
func One(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.MessageID, req OneRequest) (chatcore.MessageView, string, error) {
	applyMarkdown := req.ApplyMarkdown == nil || *req.ApplyMarkdown
	var view chatcore.MessageView
	var raw string
	err := svc.View(ctx, func(tx chatcore.Tx) error {
		viewer, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := chatcore.ReadableMessage(ctx, tx, viewer, id)
		if err != nil {
			return err
		}
		c := chatcore.NewViewCache()
		view, err = svc.BuildMessageView(ctx, tx, c, m, applyMarkdown)
		if err != nil {
			return err
		}
		views := []chatcore.MessageView{view}
		if err := attachFlags(ctx, tx, viewer.ID, views); err != nil {
			return err
		}
		view = views[0]
		allowEmpty := req.AllowEmptyTopicName != nil && *req.AllowEmptyTopicName
		if view.Type == chatcore.MessageTypeStream && view.Subject == "" && !allowEmpty {
			r, err := c.Realm(ctx, tx, viewer.RealmID)
			if err != nil {
				return err
			}
			view.Subject = chatcore.DisplayedEmptyTopic(r)
		}
		raw = m.Content
		return nil
	})
	return view, raw, err
}

// largerThanMaxMessageID is the anchor Zulip reports for anchor=newest.
const largerThanMaxMessageID chatcore.MessageID = 10000000000000000

// Request holds the parameters of GET /messages. Nil fields take
// Zulip's defaults: anchor "newest", num_before and num_after 0, no narrow,
// apply_markdown true, allow_empty_topic_name false.
type Request struct {
	// Anchor is "newest", "oldest", "first_unread" (the oldest unread
	// message of the narrow, else "newest"), "date" (with AnchorDate) or a
	// message id (a negative one is 0, one beyond 10^16 is "newest").
	Anchor *string `json:"anchor"`
	// AnchorDate is the ISO 8601 date ("2005-04-18", midnight UTC) or date
	// and time ("2005-04-18T12:34:56Z"; UTC without an offset) of
	// anchor=date: the anchor is the first message of the narrow sent at or
	// after it.
	AnchorDate *string `json:"anchor_date"`
	NumBefore  *int    `json:"num_before"`
	NumAfter   *int    `json:"num_after"`
	// MessageIDs, when non-nil, fetches these messages (those the caller
	// can read that match the narrow, by id) instead of a range around an
	// anchor; it excludes Anchor, NumBefore, NumAfter and
	// UseFirstUnreadAnchor.
	MessageIDs []chatcore.MessageID `json:"message_ids"`
	// Narrow holds terms built by Go callers; NarrowJSON is the wire
	// parameter "narrow", a JSON list whose elements are either objects
	// {"operator", "operand", "negated"} or legacy [operator, operand] string
	// pairs (null or [] is no narrow). When both are set, all their terms
	// apply. A malformed NarrowJSON gives BAD_REQUEST with Zulip's texts:
	// "narrow is not a list", "Invalid narrow[i]: Value error, element is not
	// a string pair" (a list that is not two strings), "... operand is
	// missing", "... operator is missing", "... dict or list required",
	// `narrow[i]["operator"] is not a string`, `narrow[i]["negated"] is not a
	// boolean`.
	Narrow     []NarrowTerm    `json:"-"`
	NarrowJSON json.RawMessage `json:"narrow"`
	// IncludeAnchor, when false, leaves the anchor message out.
	IncludeAnchor *bool `json:"include_anchor"`
	// ApplyMarkdown false gives raw Markdown in content.
	ApplyMarkdown *bool `json:"apply_markdown"`
	// AllowEmptyTopicName true keeps the empty topic as "" in subject instead
	// of the realm's empty-topic display name.
	AllowEmptyTopicName *bool `json:"allow_empty_topic_name"`
	// ClientGravatar is accepted for compatibility; avatar_url is always set.
	ClientGravatar *bool `json:"client_gravatar"`
	// UseFirstUnreadAnchor is the legacy spelling of anchor=first_unread.
	UseFirstUnreadAnchor *bool `json:"use_first_unread_anchor"`
}

// Result is the answer of GET /messages. When the request named its
// messages by id (ByMessageIDs), the found flags are false and the JSON form
// has no anchor, as in Zulip.
type Result struct {
	Messages    []chatcore.MessageView `json:"messages"`
	FoundAnchor bool                   `json:"found_anchor"`
	FoundOldest bool                   `json:"found_oldest"`
	FoundNewest bool                   `json:"found_newest"`
	// HistoryLimited reports that older matching messages exist that the
	// realm's plan hides; chatcore has no such limit, so it is false.
	HistoryLimited bool               `json:"history_limited"`
	Anchor         chatcore.MessageID `json:"anchor"`
	ByMessageIDs   bool               `json:"-"`
	// highlight holds the lexemes of the narrow's search terms (nil
	// without one): the views get match_content and match_subject.
	highlight []string
}

// resultWire is Result without its MarshalJSON.
type resultWire Result

// MarshalJSON encodes r as Zulip does: without "anchor" when the request named
// its messages by id.
func (r Result) MarshalJSON() ([]byte, error) {
	var anchor *chatcore.MessageID
	if !r.ByMessageIDs {
		anchor = &r.Anchor
	}
	return json.Marshal(struct {
		resultWire
		Anchor *chatcore.MessageID `json:"anchor,omitempty"`
	}{resultWire(r), anchor})
}

// Get returns the messages actor may see that match req's narrow, around
// the anchor (or those of req.MessageIDs), in the message-list format, with
// Zulip's found_anchor, found_oldest, found_newest and history_limited rules.
// As in Zulip, only a narrow to one channel whose history the actor may read
// (and with no is:<flag> term) reaches messages the actor never received; the
// combined feed and every other narrow keep to the actor's received messages.
// Errors: "Unsupported parameter combination: num_before, num_after, anchor,
// message_ids, include_anchor, use_first_unread_anchor"
// (INCOMPATIBLE_PARAMETERS) for message_ids with an anchor or a non-zero
// num_*; BAD_REQUEST "Invalid anchor", "Missing 'anchor_date' argument"
// (REQUEST_VARIABLE_MISSING) and "Invalid anchor_date" for anchor=date,
// "num_before is too small" / "num_after is too small", "Too many messages
// requested (maximum 1000)." over [chatcore.MaxMessagesPerFetch] on either side, "Too
// many messages requested (maximum 5000)." over [chatcore.MaxMessageIDs] ids, "The
// anchor can only be excluded at an end of the range", "Invalid narrow
// operator: <why>" for unknown operators, channels (also those of other
// realms) or users; "narrow is too long (limit: 100 items)" over
// [chatcore.MaxNarrowTerms] terms and `narrow[i]["operand"] is too long (limit: 1000
// items)` for a dm or sender operand over [chatcore.MaxDirectRecipients] users. Every
// length is checked before any store access. Narrow operators: channel
// (stream), topic (subject), dm (pm-with), dm-including, with, sender,
// is:dm (is:private), is:resolved, has:link, has:image, has:attachment,
// has:reaction.
func Get(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req Request) (Result, error) {
	var res Result
	f, err := checkMessagesRequest(&req)
	if err != nil {
		return res, err
	}
	applyMarkdown := req.ApplyMarkdown == nil || *req.ApplyMarkdown
	allowEmptyTopic := req.AllowEmptyTopicName != nil && *req.AllowEmptyTopicName

	err = svc.View(ctx, func(tx chatcore.Tx) error {
		viewer, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		// What the viewer may read goes with the realm's read; the direct
		// conversations too when there is no narrow, which reads them.
		ann := chatcore.Prefetch{Realms: []chatcore.RealmID{viewer.RealmID},
			RealmStreams: []chatcore.RealmID{viewer.RealmID}, UserSubscriptions: []chatcore.UserID{viewer.ID}}
		if len(f.terms) == 0 {
			ann.DirectRecipients = []chatcore.UserID{viewer.ID}
		}
		store.Announce(tx, ann)
		c := chatcore.NewViewCache()
		realm, err := c.Realm(ctx, tx, viewer.RealmID)
		if err != nil {
			return err
		}
		rows, err := selectMessages(ctx, tx, viewer, realm, c, f, &res)
		if err != nil {
			return err
		}
		// The viewer's flags (attachFlags) go with the senders' read.
		ids := make([]chatcore.MessageID, len(rows))
		for i := range rows {
			ids[i] = rows[i].ID
		}
		store.Announce(tx, chatcore.Prefetch{UserMessages: chatcore.UserMessagesRead{User: viewer.ID, IDs: ids}})
		if err := c.LoadUsers(ctx, tx, rows); err != nil {
			return err
		}
		res.Messages = make([]chatcore.MessageView, 0, len(rows))
		for i := range rows {
			v, err := svc.BuildMessageView(ctx, tx, c, &rows[i], applyMarkdown)
			if err != nil {
				return err
			}
			if !allowEmptyTopic && v.Type == chatcore.MessageTypeStream && v.Subject == "" {
				v.Subject = chatcore.DisplayedEmptyTopic(realm)
			}
			res.Messages = append(res.Messages, v)
		}
		if res.highlight != nil {
			highlight(res.Messages, res.highlight)
		}
		return attachFlags(ctx, tx, viewer.ID, res.Messages)
	})
	return res, err
}

// messageFetch is the selection of a GET /messages request, checked before
// any store access.
type messageFetch struct {
	terms               []NarrowTerm
	byIDs               bool
	ids                 []chatcore.MessageID
	anchor              anchorSpec
	numBefore, numAfter int
	includeAnchor       bool
	// anchorGiven is set when the request names its anchor (else a near
	// term's message is the anchor).
	anchorGiven bool
	// received keeps the selection to messages the viewer received
	// (matches_narrow), whatever the narrow.
	received bool
}

// checkMessagesRequest checks req as [Get] documents, in Zulip's
// order, without reading the store.
func checkMessagesRequest(req *Request) (messageFetch, error) {
	var f messageFetch
	if req.NumBefore != nil {
		f.numBefore = *req.NumBefore
	}
	if req.NumAfter != nil {
		f.numAfter = *req.NumAfter
	}
	switch {
	case f.numBefore < 0:
		return f, chatcore.BadRequest("num_before is too small")
	case f.numAfter < 0:
		return f, chatcore.BadRequest("num_after is too small")
	}
	// Zulip checks the narrow's shape with the other parameters, before the
	// checks of its view body.
	terms, err := narrowTerms(req.NarrowJSON)
	if err != nil {
		return f, err
	}
	f.terms = slices.Concat(req.Narrow, terms)
	if len(f.terms) > chatcore.MaxNarrowTerms {
		return f, chatcore.TooLongError("narrow", chatcore.MaxNarrowTerms)
	}
	if err := checkNarrowOperands(f.terms); err != nil {
		return f, err
	}
	f.byIDs = req.MessageIDs != nil
	useFirstUnread := req.UseFirstUnreadAnchor != nil && *req.UseFirstUnreadAnchor
	if f.byIDs && (f.numBefore > 0 || f.numAfter > 0 || req.Anchor != nil || useFirstUnread) {
		return f, errIncompatible("num_before", "num_after", "anchor", "message_ids", "include_anchor", "use_first_unread_anchor")
	}
	f.includeAnchor = req.IncludeAnchor == nil || *req.IncludeAnchor
	if f.byIDs {
		f.includeAnchor = false
	} else if f.anchor, err = parseAnchor(req); err != nil {
		return f, err
	}
	if f.byIDs && len(req.MessageIDs) > chatcore.MaxMessageIDs {
		return f, chatcore.BadRequestf("Too many messages requested (maximum %d).", chatcore.MaxMessageIDs)
	}
	if f.numBefore > chatcore.MaxMessagesPerFetch || f.numAfter > chatcore.MaxMessagesPerFetch {
		return f, chatcore.BadRequestf("Too many messages requested (maximum %d).", chatcore.MaxMessagesPerFetch)
	}
	if f.numBefore > 0 && f.numAfter > 0 && !f.includeAnchor {
		return f, chatcore.BadRequest("The anchor can only be excluded at an end of the range")
	}
	f.ids = req.MessageIDs
	f.anchorGiven = req.Anchor != nil || useFirstUnread
	return f, nil
}

// selectMessages returns the messages f selects for viewer, oldest first,
// and fills in res's range fields (anchor, found_*, history_limited) or
// ByMessageIDs. The realm's channels it reads go to c, for building the
// messages' views.
func selectMessages(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, realm *chatcore.Realm, c *chatcore.ViewCache, f messageFetch, res *Result) ([]chatcore.Message, error) {
	terms, err := applyWith(ctx, tx, viewer, f.terms)
	if err != nil {
		return nil, err
	}
	spec, err := parseNarrow(ctx, tx, viewer, realm, terms)
	if err != nil {
		return nil, err
	}
	q, visible, err := narrowQuery(ctx, tx, viewer, c, spec)
	if err != nil {
		return nil, err
	}
	spec.flags.apply(&q, viewer.ID)
	if f.received {
		q.FlagUser = viewer.ID
	}
	res.highlight = spec.searchLexemes()
	if f.byIDs {
		ids := slicex.Unique(f.ids)
		if q.IDs != nil {
			ids = slices.DeleteFunc(ids, func(id chatcore.MessageID) bool { return !slices.Contains(q.IDs, id) })
		}
		q.IDs = ids
		res.ByMessageIDs = true
		return chatcore.FetchVisible(ctx, tx, q, len(q.IDs), visible)
	}
	anchor := f.anchor
	if spec.near != 0 && !f.anchorGiven {
		anchor = anchorSpec{id: spec.near}
	}
	id, err := resolveAnchor(ctx, tx, anchor, q, viewer.ID, visible)
	if err != nil {
		return nil, err
	}
	r, err := fetchRange(ctx, tx, q, visible, messageRange{
		anchor: id, numBefore: f.numBefore, numAfter: f.numAfter, includeAnchor: f.includeAnchor,
	})
	if err != nil {
		return nil, err
	}
	res.Anchor, res.FoundAnchor, res.FoundOldest, res.FoundNewest = id, r.foundAnchor, r.foundOldest, r.foundNewest
	res.HistoryLimited = r.historyLimited
	return r.rows, nil
}

// narrowQuery turns a parsed narrow into the store query of the messages
// viewer may read and the check every returned message must pass (access). Only a narrow to one
// channel with readable history reaches messages the viewer did not receive.
// The realm's channels it reads go to c.
func narrowQuery(ctx context.Context, tx chatcore.Tx, viewer *chatcore.User, c *chatcore.ViewCache, spec narrowSpec) (chatcore.MessageQuery, func(*chatcore.Message) bool, error) {
	access, streams, err := chatcore.StreamAccessMap(ctx, tx, viewer)
	if err != nil {
		return chatcore.MessageQuery{}, nil, err
	}
	c.KeepStreams(streams)
	q := chatcore.MessageQuery{RealmID: viewer.RealmID, TopicKey: spec.topicKey, Recipients: []chatcore.RecipientID{}}
	switch {
	case spec.dm != nil && spec.stream != nil:
	case spec.dm != nil:
		// A View finds the conversation but cannot create it: one that
		// does not exist yet has no messages.
		rid, err := tx.DirectRecipient(ctx, viewer.RealmID, spec.dm)
		switch {
		case err == nil:
			q.Recipients = append(q.Recipients, rid)
		case !errors.Is(err, chatcore.ErrNotFound):
			return q, nil, err
		}
	case spec.stream != nil && spec.onlyDMs:
	case spec.onlyDMs:
		dms, err := tx.DirectRecipients(ctx, viewer.ID)
		if err != nil {
			return q, nil, err
		}
		q.Recipients = append(q.Recipients, dms...)
	case spec.stream != nil:
		if access[spec.stream.ID].OK {
			q.Recipients = append(q.Recipients, spec.stream.RecipientID)
			if spec.topicKey != nil {
				// The channel's id lets a SQL store read the topic
				// through its channel+topic index (see MessageQuery).
				q.StreamID = spec.stream.ID
			}
		}
	default:
		for _, st := range streams {
			if access[st.ID].OK {
				q.Recipients = append(q.Recipients, st.RecipientID)
			}
		}
		if spec.topicKey == nil {
			dms, err := tx.DirectRecipients(ctx, viewer.ID)
			if err != nil {
				return q, nil, err
			}
			q.Recipients = append(q.Recipients, dms...)
		}
	}
	if spec.dmIncluding != 0 {
		allowed, err := dmIncludingRecipients(ctx, tx, viewer, spec.dmIncluding)
		if err != nil {
			return q, nil, err
		}
		q.Recipients = slices.DeleteFunc(q.Recipients, func(r chatcore.RecipientID) bool { return !slices.Contains(allowed, r) })
	}
	// Zulip reads a channel's history (messages the viewer never received)
	// only when the narrow names one channel whose history the viewer may
	// read and filters on no personal flag; every other narrow (the
	// combined feed included) keeps to the messages the viewer received.
	history := spec.stream != nil && access[spec.stream.ID].OK && spec.stream.HistoryPublicToSubscribers && !spec.flags.used
	if !history && !spec.publicChannels(viewer) {
		q.FlagUser = viewer.ID
	}
	if err := applyExtra(ctx, tx, viewer, streams, &spec, &q); err != nil {
		return q, nil, err
	}
	// Every operator is a condition the store answers through its indexes;
	// what is left to check here is access, which the store cannot know
	// (a channel whose history the viewer may no longer read).
	q.SenderID = spec.sender
	q.Has = spec.has.stored()
	q.HasReaction = spec.has&hasReaction != 0
	if spec.resolved {
		q.TopicPrefix = ResolvedTopicPrefix
	}
	applyTopicFilter(&q, viewer, spec)
	visible := func(m *chatcore.Message) bool { return chatcore.Readable(viewer, access, m) }
	return q, visible, nil
}
