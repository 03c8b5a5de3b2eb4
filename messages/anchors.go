package messages

// Anchors and ranges of GET /messages: parsing the anchor, resolving it
// against the narrow, fetching the rows around it and computing found_anchor,
// found_oldest, found_newest and history_limited, all as Zulip does.

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/isotime"
)

// errIncompatible is Zulip's IncompatibleParametersError: the message names
// every parameter of the conflicting group, and "parameters" repeats them.
func errIncompatible(params ...string) *chatcore.Error {
	list := strings.Join(params, ", ")
	return &chatcore.Error{
		Code: chatcore.CodeIncompatibleParameters, Kind: chatcore.KindInvalid,
		Msg:  "Unsupported parameter combination: " + list,
		Data: map[string]any{"parameters": list},
	}
}

// anchorKind is how a request names its anchor.
type anchorKind int

const (
	anchorID     anchorKind = iota // a message id (clamped to [0, largerThanMaxMessageID])
	anchorNewest                   // "newest"
	anchorOldest                   // "oldest"
	anchorDate                     // "date" with anchor_date
	// anchorFirstUnread is "first_unread" (or use_first_unread_anchor): the
	// oldest unread message of the narrow, else like "newest".
	anchorFirstUnread
)

// anchorSpec is a parsed anchor, before resolution against the narrow.
type anchorSpec struct {
	kind anchorKind
	id   chatcore.MessageID // anchorID
	date time.Time          // anchorDate
}

// parseAnchor reads the anchor parameters of req as Zulip's
// parse_anchor_value does: "newest", "oldest", "first_unread", "date" (which
// needs anchor_date), or an integer; a negative integer is 0 and one beyond
// largerThanMaxMessageID is that value. No anchor means "newest".
func parseAnchor(req *Request) (anchorSpec, error) {
	if req.UseFirstUnreadAnchor != nil && *req.UseFirstUnreadAnchor {
		return anchorSpec{kind: anchorFirstUnread}, nil
	}
	if req.Anchor == nil {
		return anchorSpec{kind: anchorNewest}, nil
	}
	switch a := strings.TrimSpace(*req.Anchor); a {
	case "newest":
		return anchorSpec{kind: anchorNewest}, nil
	case "oldest":
		return anchorSpec{kind: anchorOldest}, nil
	case "first_unread":
		return anchorSpec{kind: anchorFirstUnread}, nil
	case "date":
		if req.AnchorDate == nil {
			return anchorSpec{}, chatcore.MissingArgument("anchor_date")
		}
		t, ok := isotime.Parse(*req.AnchorDate)
		if !ok {
			return anchorSpec{}, chatcore.BadRequest("Invalid anchor_date")
		}
		return anchorSpec{kind: anchorDate, date: t}, nil
	default:
		n, err := strconv.ParseInt(a, 10, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return anchorSpec{}, chatcore.BadRequest("Invalid anchor")
		}
		// Out of int64's range, n is its nearest end, which clamps below.
		switch {
		case n < 0:
			n = 0
		case n > int64(largerThanMaxMessageID):
			n = int64(largerThanMaxMessageID)
		}
		return anchorSpec{kind: anchorID, id: chatcore.MessageID(n)}, nil
	}
}

// resolveAnchor turns a parsed anchor into Zulip's numeric anchor. A date
// anchor is the first message (lowest id) of the narrow sent at or after the
// date; with none, it is largerThanMaxMessageID, as for "newest". The first
// unread anchor is the oldest message of the narrow unread by viewer, with the
// same fallback.
func resolveAnchor(ctx context.Context, tx chatcore.Tx, a anchorSpec, q chatcore.MessageQuery, viewer chatcore.UserID, ok func(*chatcore.Message) bool) (chatcore.MessageID, error) {
	switch a.kind {
	case anchorID:
		return a.id, nil
	case anchorOldest:
		return 0, nil
	case anchorDate:
		got, err := chatcore.FetchVisible(ctx, tx, q, 1, func(m *chatcore.Message) bool {
			return !m.SentAt.Before(a.date) && ok(m)
		})
		if err != nil || len(got) == 0 {
			return largerThanMaxMessageID, err
		}
		return got[0].ID, nil
	case anchorFirstUnread:
		id, err := firstUnread(ctx, tx, q, viewer, ok)
		if err != nil || id == 0 {
			return largerThanMaxMessageID, err
		}
		return id, nil
	default: // anchorNewest
		return largerThanMaxMessageID, nil
	}
}

// messageRange is the part of a narrow GET /messages returns: up to
// numBefore messages before the anchor, the anchor when includeAnchor, and up
// to numAfter after it.
type messageRange struct {
	anchor              chatcore.MessageID
	numBefore, numAfter int
	includeAnchor       bool
}

// anchoredLeft and anchoredRight are Zulip's anchored_to_left and
// anchored_to_right: an anchor of 0 starts at the oldest message, one of
// largerThanMaxMessageID ends at the newest.
func (r messageRange) anchoredLeft() bool  { return r.anchor == 0 }
func (r messageRange) anchoredRight() bool { return r.anchor >= largerThanMaxMessageID }

// rangeResult is the rows of a range and Zulip's flags about them.
type rangeResult struct {
	rows                                                  []chatcore.Message
	foundAnchor, foundOldest, foundNewest, historyLimited bool
}

// fetchRange reads the messages of r from q (filtered by ok) the way Zulip's
// limit_query_to_range builds its queries, then post-processes them as its
// post_process_limited_query does.
func fetchRange(ctx context.Context, tx chatcore.Tx, q chatcore.MessageQuery, ok func(*chatcore.Message) bool, r messageRange) (rangeResult, error) {
	left, right := r.anchoredLeft(), r.anchoredRight()
	numAfter := r.numAfter
	if right {
		numAfter = 0
	}
	needBefore := !left && r.numBefore > 0
	needAfter := !right && numAfter > 0
	// Inclusive id bounds, as in Zulip's queries.
	var beforeMax, afterMin chatcore.MessageID
	var beforeLimit, afterLimit int
	switch {
	case needBefore && needAfter:
		beforeMax, beforeLimit = r.anchor-1, r.numBefore
		afterMin, afterLimit = r.anchor, numAfter+1
	case needBefore:
		beforeMax, beforeLimit = r.anchor, r.numBefore
		if !r.includeAnchor {
			beforeMax--
		}
		if !right && r.includeAnchor {
			beforeLimit++
		}
	case needAfter:
		afterMin, afterLimit = r.anchor, numAfter
		if !r.includeAnchor {
			afterMin++
		}
		if r.includeAnchor {
			afterLimit++
		}
	}
	var rows []chatcore.Message
	if needBefore {
		bq := q
		bq.Newest = true
		if !right {
			bq.BeforeID = beforeMax + 1
		}
		got, err := chatcore.FetchVisible(ctx, tx, bq, beforeLimit, ok)
		if err != nil {
			return rangeResult{}, err
		}
		for i := len(got) - 1; i >= 0; i-- {
			rows = append(rows, got[i])
		}
	}
	if needAfter {
		aq := q
		if !left && afterMin > 1 {
			aq.AfterID = afterMin - 1
		}
		got, err := chatcore.FetchVisible(ctx, tx, aq, afterLimit, ok)
		if err != nil {
			return rangeResult{}, err
		}
		rows = append(rows, got...)
	}
	if !needBefore && !needAfter {
		// Zulip then looks up the anchor id alone, whatever include_anchor says.
		oq := q
		oq.AfterID, oq.BeforeID = max(r.anchor-1, 0), r.anchor+1
		got, err := chatcore.FetchVisible(ctx, tx, oq, 1, ok)
		if err != nil {
			return rangeResult{}, err
		}
		rows = got
	}
	return postProcess(rows, r.anchor, r.numBefore, numAfter, left, right), nil
}

// postProcess is Zulip's post_process_limited_query over rows sorted by id.
// history_limited is set when rows were hidden by a realm-wide limit on
// visible history and the result reaches the oldest message; chatcore has no
// such limit (protected channel history hides messages per user, which Zulip
// does not report), so it is always false.
func postProcess(rows []chatcore.Message, anchor chatcore.MessageID, numBefore, numAfter int, left, right bool) rangeResult {
	var before, anchorRows, after []chatcore.Message
	for _, m := range rows {
		switch {
		case right || m.ID < anchor:
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
	const rowsLimited = false // no realm-wide first visible message id
	res := rangeResult{
		rows:        append(append(before, anchorRows...), after...),
		foundAnchor: len(anchorRows) == 1,
		foundOldest: left || len(before) < numBefore,
		foundNewest: right || len(after) < numAfter,
	}
	res.historyLimited = rowsLimited && res.foundOldest
	return res
}
