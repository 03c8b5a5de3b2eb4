package chatcore

// Reading messages: Message and Messages.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// MessageRequest holds the parameters of GET /messages/{message_id}.
type MessageRequest struct {
	// ApplyMarkdown false gives the raw Markdown in content (content_type
	// text/x-markdown); nil or true gives the rendered HTML (text/html), as
	// in Zulip.
	ApplyMarkdown *bool `json:"apply_markdown"`
}

// Message returns one message as actor sees it (content rendered as HTML) and
// its raw Markdown: [Service.GetMessage] with Zulip's defaults.
func (s *Service) Message(ctx context.Context, actorID UserID, id MessageID) (MessageView, string, error) {
	return s.GetMessage(ctx, actorID, id, MessageRequest{})
}

// GetMessage returns one message as actor sees it, in the format req asks
// for, and its raw Markdown. A missing message, one of another realm, or one
// the actor may not read gives BAD_REQUEST "Invalid message(s)". An empty
// channel topic is shown as the realm's empty-topic display name in subject.
func (s *Service) GetMessage(ctx context.Context, actorID UserID, id MessageID, req MessageRequest) (MessageView, string, error) {
	applyMarkdown := req.ApplyMarkdown == nil || *req.ApplyMarkdown
	var view MessageView
	var raw string
	err := s.view(ctx, func(tx Tx) error {
		viewer, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		m, err := tx.Message(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return errInvalidMessage()
		}
		if err != nil {
			return err
		}
		ok, err := canSee(ctx, tx, viewer, m)
		if err != nil {
			return err
		}
		if !ok {
			return errInvalidMessage()
		}
		c := newViewCache()
		view, err = s.buildView(ctx, tx, c, m, viewer, applyMarkdown)
		if err != nil {
			return err
		}
		views := []MessageView{view}
		if err := attachFlags(ctx, tx, viewer.ID, views); err != nil {
			return err
		}
		view = views[0]
		if view.Type == MessageTypeStream && view.Subject == "" {
			r, err := c.realm(ctx, tx, viewer.RealmID)
			if err != nil {
				return err
			}
			view.Subject = emptyTopicDisplayName(r)
		}
		raw = m.Content
		return nil
	})
	return view, raw, err
}

// largerThanMaxMessageID is the anchor Zulip reports for anchor=newest.
const largerThanMaxMessageID MessageID = 10000000000000000

// MessagesRequest holds the parameters of GET /messages. Nil fields take
// Zulip's defaults: anchor "newest", num_before and num_after 0, no narrow,
// apply_markdown true, allow_empty_topic_name false.
type MessagesRequest struct {
	// Anchor is "newest", "oldest", "first_unread" (the oldest unread
	// message of the narrow, else "newest") or a message id.
	Anchor    *string `json:"anchor"`
	NumBefore *int    `json:"num_before"`
	NumAfter  *int    `json:"num_after"`
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

// MessagesResult is the answer of GET /messages.
type MessagesResult struct {
	Messages    []MessageView `json:"messages"`
	FoundAnchor bool          `json:"found_anchor"`
	FoundOldest bool          `json:"found_oldest"`
	FoundNewest bool          `json:"found_newest"`
	Anchor      MessageID     `json:"anchor"`
}

// streamAccessMap returns the viewer's read access to every channel of the realm.
func streamAccessMap(ctx context.Context, tx Tx, viewer *User) (map[StreamID]streamAccess, []Stream, error) {
	streams, err := tx.Streams(ctx, viewer.RealmID)
	if err != nil {
		return nil, nil, err
	}
	subs, err := tx.Subscriptions(ctx, 0, viewer.ID)
	if err != nil {
		return nil, nil, err
	}
	active := map[StreamID]Subscription{}
	for _, sub := range subs {
		if sub.Active {
			active[sub.StreamID] = sub
		}
	}
	acc := make(map[StreamID]streamAccess, len(streams))
	for _, st := range streams {
		switch sub, ok := active[st.ID]; {
		case !st.InviteOnly && viewer.Role != RoleGuest:
			acc[st.ID] = streamAccess{ok: true}
		case ok && st.HistoryPublicToSubscribers:
			acc[st.ID] = streamAccess{ok: true}
		case ok:
			acc[st.ID] = streamAccess{ok: true, minID: sub.FirstVisibleMessageID}
		}
	}
	return acc, streams, nil
}

// Messages returns the messages actor may see that match req's narrow, around
// the anchor, in the message-list format, with Zulip's found_anchor,
// found_oldest and found_newest rules. Errors (BAD_REQUEST): "Invalid anchor",
// "num_before is too small" / "num_after is too small", "Too many messages
// requested (maximum 1000).", "Invalid narrow operator: <why>" for unknown
// operators, channels (also those of other realms) or users; "narrow is too
// long (limit: 100 items)" over [MaxNarrowTerms] terms and
// `narrow[i]["operand"] is too long (limit: 1000 items)` for a dm or sender
// operand over [MaxDirectRecipients] users, both before any store access.
// Narrow operators: channel (stream), topic (subject), dm (pm-with), sender,
// is:dm (is:private).
func (s *Service) Messages(ctx context.Context, actorID UserID, req MessagesRequest) (MessagesResult, error) {
	var res MessagesResult
	numBefore, numAfter := 0, 0
	if req.NumBefore != nil {
		numBefore = *req.NumBefore
	}
	if req.NumAfter != nil {
		numAfter = *req.NumAfter
	}
	switch {
	case numBefore < 0:
		return res, BadRequest("num_before is too small")
	case numAfter < 0:
		return res, BadRequest("num_after is too small")
	}
	// Zulip checks the narrow's shape with the other parameters, before the
	// checks of its view body.
	terms, err := narrowTerms(req.NarrowJSON)
	if err != nil {
		return res, err
	}
	terms = slices.Concat(req.Narrow, terms)
	if len(terms) > MaxNarrowTerms {
		return res, errTooLong("narrow", MaxNarrowTerms)
	}
	if err := checkNarrowOperands(terms); err != nil {
		return res, err
	}
	if numBefore > MaxMessagesPerFetch || numAfter > MaxMessagesPerFetch {
		return res, BadRequestf("Too many messages requested (maximum %d).", MaxMessagesPerFetch)
	}
	anchor := largerThanMaxMessageID
	anchoredLeft, anchoredRight := false, true
	// Zulip: use_first_unread_anchor=true overrides anchor.
	wantFirstUnread := req.UseFirstUnreadAnchor != nil && *req.UseFirstUnreadAnchor
	if req.Anchor != nil && !wantFirstUnread {
		switch a := strings.TrimSpace(*req.Anchor); a {
		case "first_unread":
			wantFirstUnread = true
		case "newest":
		case "oldest":
			anchor, anchoredLeft, anchoredRight = 0, true, false
		default:
			n, err := strconv.ParseInt(a, 10, 64)
			if err != nil || n < 0 {
				return res, BadRequest("Invalid anchor")
			}
			anchor, anchoredRight = MessageID(n), false
			if anchor >= largerThanMaxMessageID {
				anchor, anchoredRight = largerThanMaxMessageID, true
			}
		}
	}
	includeAnchor := req.IncludeAnchor == nil || *req.IncludeAnchor
	applyMarkdown := req.ApplyMarkdown == nil || *req.ApplyMarkdown
	allowEmptyTopic := req.AllowEmptyTopicName != nil && *req.AllowEmptyTopicName

	err = s.view(ctx, func(tx Tx) error {
		viewer, err := actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		c := newViewCache()
		realm, err := c.realm(ctx, tx, viewer.RealmID)
		if err != nil {
			return err
		}
		spec, err := parseNarrow(ctx, tx, viewer, realm, terms)
		if err != nil {
			return err
		}
		access, streams, err := streamAccessMap(ctx, tx, viewer)
		if err != nil {
			return err
		}
		q := MessageQuery{RealmID: viewer.RealmID, TopicKey: spec.topicKey}
		switch {
		case spec.dm != nil && spec.stream != nil:
			q.Recipients = []RecipientID{}
		case spec.dm != nil:
			// A View finds the conversation but cannot create it: one that
			// does not exist yet has no messages.
			q.Recipients = []RecipientID{}
			rid, err := tx.DirectRecipient(ctx, viewer.RealmID, spec.dm)
			switch {
			case err == nil:
				q.Recipients = append(q.Recipients, rid)
			case !errors.Is(err, ErrNotFound):
				return err
			}
		case spec.stream != nil && spec.onlyDMs:
			q.Recipients = []RecipientID{}
		case spec.onlyDMs:
			dms, err := tx.DirectRecipients(ctx, viewer.ID)
			if err != nil {
				return err
			}
			q.Recipients = append([]RecipientID{}, dms...)
		case spec.stream != nil:
			q.Recipients = []RecipientID{}
			if access[spec.stream.ID].ok {
				q.Recipients = append(q.Recipients, spec.stream.RecipientID)
			}
		default:
			q.Recipients = []RecipientID{}
			for _, st := range streams {
				if access[st.ID].ok {
					q.Recipients = append(q.Recipients, st.RecipientID)
				}
			}
			if spec.topicKey == nil {
				dms, err := tx.DirectRecipients(ctx, viewer.ID)
				if err != nil {
					return err
				}
				q.Recipients = append(q.Recipients, dms...)
			}
		}
		visible := func(m *Message) bool {
			if spec.sender != 0 && m.SenderID != spec.sender {
				return false
			}
			if m.Type == MessageTypePrivate {
				return slices.Contains(m.DirectMembers, viewer.ID)
			}
			return access[m.StreamID].allows(m.ID)
		}

		spec.flags.apply(&q, viewer.ID)
		if wantFirstUnread {
			// As Zulip: the oldest unread message of the narrow, else newest.
			if id, err := firstUnread(ctx, tx, q, viewer.ID, visible); err != nil {
				return err
			} else if id != 0 {
				anchor, anchoredRight = id, false
			}
		}
		var rows []Message
		needBefore := !anchoredLeft && numBefore > 0
		needAfter := !anchoredRight && numAfter > 0
		if needBefore {
			bq := q
			bq.Newest = true
			limit := numBefore
			if !anchoredRight {
				bq.BeforeID = anchor + 1
				limit++
			}
			got, err := fetchVisible(ctx, tx, bq, limit, visible)
			if err != nil {
				return err
			}
			slices.Reverse(got)
			rows = append(rows, got...)
		}
		if needAfter {
			aq := q
			if anchor > 1 {
				aq.AfterID = anchor - 1
			}
			got, err := fetchVisible(ctx, tx, aq, numAfter+1, visible)
			if err != nil {
				return err
			}
			rows = append(rows, got...)
		}
		if !needBefore && !needAfter && !anchoredLeft && !anchoredRight {
			oq := q
			oq.AfterID, oq.BeforeID = anchor-1, anchor+1
			got, err := fetchVisible(ctx, tx, oq, 1, visible)
			if err != nil {
				return err
			}
			rows = append(rows, got...)
		}
		slices.SortFunc(rows, func(a, b Message) int { return cmp.Compare(a.ID, b.ID) })
		rows = slices.CompactFunc(rows, func(a, b Message) bool { return a.ID == b.ID })

		var before, anchorRows, after []Message
		for _, m := range rows {
			switch {
			case anchoredRight || m.ID < anchor:
				before = append(before, m)
			case m.ID == anchor:
				anchorRows = append(anchorRows, m)
			default:
				after = append(after, m)
			}
		}
		if numBefore > 0 && len(before) > numBefore {
			before = before[len(before)-numBefore:]
		}
		if numAfter > 0 && len(after) > numAfter {
			after = after[:numAfter]
		}
		res.FoundAnchor = includeAnchor && len(anchorRows) == 1
		res.FoundOldest = anchoredLeft || len(before) < numBefore
		res.FoundNewest = anchoredRight || len(after) < numAfter
		res.Anchor = anchor
		if !includeAnchor {
			anchorRows = nil
		}
		final := slices.Concat(before, anchorRows, after)
		res.Messages = make([]MessageView, 0, len(final))
		for i := range final {
			v, err := s.buildView(ctx, tx, c, &final[i], viewer, applyMarkdown)
			if err != nil {
				return err
			}
			if !allowEmptyTopic && v.Type == MessageTypeStream && v.Subject == "" {
				v.Subject = emptyTopicDisplayName(realm)
			}
			res.Messages = append(res.Messages, v)
		}
		return attachFlags(ctx, tx, viewer.ID, res.Messages)
	})
	return res, err
}

// fetchVisible returns up to limit messages of q that ok accepts, in q's
// order, reading in batches so that hidden messages do not shorten the result.
func fetchVisible(ctx context.Context, tx Tx, q MessageQuery, limit int, ok func(*Message) bool) ([]Message, error) {
	var out []Message
	for len(out) < limit {
		q.Limit = limit - len(out)
		batch, err := tx.Messages(ctx, q)
		if err != nil {
			return nil, err
		}
		for i := range batch {
			if ok(&batch[i]) {
				out = append(out, batch[i])
				if len(out) == limit {
					break
				}
			}
		}
		if len(batch) < q.Limit {
			break
		}
		last := batch[len(batch)-1].ID
		if q.Newest {
			q.BeforeID = last
		} else {
			q.AfterID = last
		}
	}
	return out, nil
}
