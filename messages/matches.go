package messages

// GET /messages/matches_narrow: which of some messages match a narrow.

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/fulltext"
)

// MatchesNarrowRequest holds the parameters of GET /messages/matches_narrow.
type MatchesNarrowRequest struct {
	// MsgIDs are the messages to check (at most [chatcore.MaxMessageIDs]).
	MsgIDs []chatcore.MessageID `json:"msg_ids" wire:"required"`
	// Narrow holds terms built by Go callers; NarrowJSON is the wire
	// parameter, as in [Request]. When both are set, all their terms apply.
	Narrow     []NarrowTerm    `json:"-"`
	NarrowJSON json.RawMessage `json:"narrow" wire:"required"`
}

// MatchFields are a message's match_content and match_subject.
type MatchFields struct {
	MatchContent string `json:"match_content"`
	MatchSubject string `json:"match_subject"`
}

// MatchesNarrowResult is the answer of GET /messages/matches_narrow: the
// messages of the request that match, by id.
type MatchesNarrowResult struct {
	Messages map[chatcore.MessageID]MatchFields `json:"messages"`
}

// MatchesNarrow returns which of req.MsgIDs the actor received and match
// the narrow, as Zulip's messages_in_narrow does (clients re-check new
// messages against a search with it): each with its rendered content and
// HTML-escaped topic, the matching words highlighted when the narrow has a
// search term. The narrow's errors are those of [Get]; more than
// [chatcore.MaxMessageIDs] ids give "Too many messages requested (maximum
// 5000).".
func MatchesNarrow(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req MatchesNarrowRequest) (MatchesNarrowResult, error) {
	res := MatchesNarrowResult{Messages: map[chatcore.MessageID]MatchFields{}}
	if len(req.MsgIDs) > chatcore.MaxMessageIDs {
		return res, chatcore.BadRequestf("Too many messages requested (maximum %d).", chatcore.MaxMessageIDs)
	}
	f, err := checkMessagesRequest(&Request{Narrow: req.Narrow, NarrowJSON: req.NarrowJSON, MessageIDs: slices.Clip(nonNilIDs(req.MsgIDs))})
	if err != nil {
		return res, err
	}
	f.received = true
	err = svc.View(ctx, func(tx chatcore.Tx) error {
		viewer, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		c := chatcore.NewViewCache()
		realm, err := c.Realm(ctx, tx, viewer.RealmID)
		if err != nil {
			return err
		}
		var got Result
		rows, err := selectMessages(ctx, tx, viewer, realm, c, f, &got)
		if err != nil {
			return err
		}
		for _, m := range rows {
			content, subject := m.RenderedContent, escapeHTML.Replace(m.Topic)
			if got.highlight != nil {
				content, subject = fulltext.Highlight(content, got.highlight), fulltext.Highlight(subject, got.highlight)
			}
			res.Messages[m.ID] = MatchFields{MatchContent: content, MatchSubject: subject}
		}
		return nil
	})
	return res, err
}

// nonNilIDs returns ids, or an empty list for nil (no message to check).
func nonNilIDs(ids []chatcore.MessageID) []chatcore.MessageID {
	if ids == nil {
		return []chatcore.MessageID{}
	}
	return ids
}
