package messages

// Message flags operations: POST /messages/flags, POST /messages/flags/narrow,
// flags on message views and the flag operators of narrows.

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/slicex"
	"github.com/chatcore/chatcore/store"
)

// MaxFlagMessages bounds the messages list of [UpdateFlags], as
// Zulip bounds one flag update (MAX_MESSAGES_PER_UPDATE).
const MaxFlagMessages = 5000

// UpdateFlagsRequest holds the parameters of POST /messages/flags.
type UpdateFlagsRequest struct {
	// Messages are the message ids, a JSON list on the wire.
	Messages []chatcore.MessageID `json:"messages" wire:"required"`
	// Op is "add" or "remove".
	Op string `json:"op" wire:"required"`
	// Flag is the flag's wire name.
	Flag string `json:"flag" wire:"required"`
}

// UpdateFlagsResult is the answer of POST /messages/flags.
type UpdateFlagsResult struct {
	// Messages echoes the request's ids, as Zulip does.
	Messages []chatcore.MessageID `json:"messages"`
	// Updated are the ids whose flag changed, ascending (not on the wire).
	Updated []chatcore.MessageID `json:"-"`
	// IgnoredBecauseNotSubscribedChannels lists, ascending, the channels
	// whose messages were left read when marking unread, because the actor
	// is not subscribed to them (Zulip keeps unread messages to subscribed
	// channels); empty otherwise (Zulip feature level 355).
	IgnoredBecauseNotSubscribedChannels []chatcore.StreamID `json:"ignored_because_not_subscribed_channels"`
}

// checkFlagOp validates flag and op as Zulip does, in its order.
func checkFlagOp(flag, op string) (chatcore.MessageFlags, error) {
	f, ok := chatcore.ParseMessageFlag(flag)
	if !ok {
		return 0, chatcore.BadRequestf("Invalid flag: '%s'", flag)
	}
	if f&chatcore.EditableFlags == 0 {
		return 0, chatcore.BadRequestf("Flag not editable: '%s'", flag)
	}
	if op != "add" && op != "remove" {
		return 0, chatcore.BadRequestf("Invalid message flag operation: '%s'", op)
	}
	return f, nil
}

// UpdateFlags adds or removes one of the actor's flags on the messages,
// as Zulip's do_update_message_flags: only read, starred and collapsed can
// change; removing read ignores channel messages of channels the actor is not
// subscribed to; a change on a message the actor can read but never received
// (read and historical by default) creates it historical; ids already in the
// wanted state are skipped. One update_message_flags event lists the changed
// ids (with message_details when marking unread).
//
// Errors (BAD_REQUEST): "messages is too long (limit: 5000 items)" over
// [MaxFlagMessages], before any store access; "Invalid flag: 'x'", "Flag not
// editable: 'x'", "Invalid message flag operation: 'x'"; "Invalid message(s)"
// when a message to create historical is missing or not readable by the actor.
func UpdateFlags(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req UpdateFlagsRequest) (UpdateFlagsResult, error) {
	res := UpdateFlagsResult{Messages: slicex.OrEmpty(req.Messages), IgnoredBecauseNotSubscribedChannels: []chatcore.StreamID{}}
	if len(req.Messages) > MaxFlagMessages {
		return res, chatcore.TooLongError("messages", MaxFlagMessages)
	}
	return updateFlags(ctx, svc, actorID, req)
}

// updateFlags is [UpdateFlags] without the bound on the number of messages.
func updateFlags(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req UpdateFlagsRequest) (UpdateFlagsResult, error) {
	res := UpdateFlagsResult{Messages: slicex.OrEmpty(req.Messages), IgnoredBecauseNotSubscribedChannels: []chatcore.StreamID{}}
	flag, err := checkFlagOp(req.Flag, req.Op)
	if err != nil {
		return res, err
	}
	ids := slicex.Unique(req.Messages)
	err = svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		store.Announce(tx, chatcore.Prefetch{UserMessages: chatcore.UserMessagesRead{User: actorID, IDs: ids}})
		u, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		updated, details, ignored, err := updateFlagsInTx(ctx, tx, u, ids, flag, req.Op == "add")
		if err != nil {
			return err
		}
		res.Updated = updated
		res.IgnoredBecauseNotSubscribedChannels = ignored
		ev := map[string]any{"type": "update_message_flags", "op": req.Op, "operation": req.Op,
			"flag": req.Flag, "messages": slicex.OrEmpty(updated), "all": false}
		if details != nil {
			ev["message_details"] = details
		}
		fx.Event(u.RealmID, []chatcore.UserID{u.ID}, ev)
		return nil
	})
	return res, err
}

// updateFlagsInTx applies one flag change for u to the messages ids (no id
// twice) and returns the changed ids, ascending, for marking unread the
// message_details of the event, and the channels (ascending, never nil)
// whose messages were left read because u is not subscribed to them.
func updateFlagsInTx(ctx context.Context, tx chatcore.Tx, u *chatcore.User, ids []chatcore.MessageID, flag chatcore.MessageFlags, add bool) ([]chatcore.MessageID, map[string]any, []chatcore.StreamID, error) {
	ignored := []chatcore.StreamID{}
	ums, err := tx.UserMessages(ctx, u.ID, ids)
	if err != nil {
		return nil, nil, nil, err
	}
	markUnread := flag == chatcore.FlagRead && !add
	var subscribedTo map[chatcore.StreamID]bool
	if markUnread {
		subs, err := tx.Subscriptions(ctx, 0, u.ID)
		if err != nil {
			return nil, nil, nil, err
		}
		subscribedTo = map[chatcore.StreamID]bool{}
		for _, sub := range subs {
			subscribedTo[sub.StreamID] = sub.Active
		}
	}
	byID := map[chatcore.MessageID]chatcore.UserMessage{}
	for _, um := range ums {
		byID[um.ID] = um
	}
	target := chatcore.MessageFlags(0)
	if add {
		target = flag
	}
	// The changed rows, each with the user's whole flags: the flags read
	// above, in this transaction, with the bit set or cleared.
	var rows []chatcore.UserMessageFlags
	var changed, historical []chatcore.MessageID
	for _, id := range ids {
		um, ok := byID[id]
		if markUnread && ok && um.Type == chatcore.MessageTypeStream && !subscribedTo[um.StreamID] {
			if !slices.Contains(ignored, um.StreamID) {
				ignored = append(ignored, um.StreamID)
			}
			continue
		}
		flags := chatcore.HistoricalFlags
		if ok && um.Received {
			flags = um.Flags
		}
		if flags&flag == target {
			continue
		}
		changed = append(changed, id)
		if ok && um.Received {
			rows = append(rows, chatcore.UserMessageFlags{UserID: u.ID, MessageID: id, Flags: flags&^flag | target})
		} else {
			historical = append(historical, id)
		}
	}
	if len(historical) > 0 {
		// Zulip creates rows for messages the user can read but never
		// received, and refuses the whole request when one is not readable.
		c := chatcore.NewAccessCache()
		for _, id := range historical {
			um, ok := byID[id]
			if !ok || um.RealmID != u.RealmID {
				return nil, nil, nil, chatcore.InvalidMessageError()
			}
			m := &chatcore.Message{ID: um.ID, RealmID: um.RealmID, Type: um.Type, StreamID: um.StreamID, DirectMembers: um.DirectMembers}
			readable, err := c.CanSee(ctx, tx, u, m)
			if err != nil {
				return nil, nil, nil, err
			}
			if !readable {
				return nil, nil, nil, chatcore.InvalidMessageError()
			}
			rows = append(rows, chatcore.UserMessageFlags{UserID: u.ID, MessageID: id, Flags: chatcore.HistoricalFlags&^flag | target})
		}
	}
	if err := tx.PutUserMessageFlags(ctx, rows); err != nil {
		return nil, nil, nil, err
	}
	var details map[string]any
	if markUnread {
		// Every changed id was read above, and marking unread changes none
		// of what a detail shows (type, channel, topic, members, mentions).
		details = map[string]any{}
		for _, id := range changed {
			details[strconv.FormatInt(int64(id), 10)] = unreadDetail(u.ID, byID[id])
		}
	}
	slices.Sort(ignored)
	slices.Sort(changed) // Zulip reads the changed rows ordered by message id
	return changed, details, ignored, nil
}

// unreadDetail is one entry of message_details in an update_message_flags
// event that marks messages unread.
func unreadDetail(viewer chatcore.UserID, um chatcore.UserMessage) map[string]any {
	d := map[string]any{}
	if um.Type == chatcore.MessageTypeStream {
		d["type"], d["stream_id"], d["topic"], d["unmuted_stream_msg"] = "stream", um.StreamID, um.Topic, true
	} else {
		d["type"] = "private"
		others := []chatcore.UserID{}
		for _, id := range um.DirectMembers {
			if id != viewer {
				others = append(others, id)
			}
		}
		d["user_ids"] = others
	}
	if um.Flags&chatcore.MentionFlags != 0 {
		d["mentioned"] = true
	}
	return d
}

// attachFlags sets Flags on views for viewer with one store query: a message
// the viewer did not receive shows Zulip's ["read", "historical"].
func attachFlags(ctx context.Context, tx chatcore.Tx, viewer chatcore.UserID, views []chatcore.MessageView) error {
	ids := make([]chatcore.MessageID, len(views))
	for i, v := range views {
		ids[i] = v.ID
	}
	ums, err := tx.UserMessages(ctx, viewer, ids)
	if err != nil {
		return err
	}
	flags := make(map[chatcore.MessageID]chatcore.MessageFlags, len(ums))
	for _, um := range ums {
		if um.Received {
			flags[um.ID] = um.Flags
		}
	}
	for i := range views {
		f, ok := flags[views[i].ID]
		if !ok {
			f = chatcore.HistoricalFlags
		}
		views[i].Flags = f.Names()
	}
	return nil
}

// flagNarrow holds the flag terms of a narrow (is:unread, is:starred,
// is:mentioned, is:alerted).
type flagNarrow struct {
	all, anyOf, none chatcore.MessageFlags
	used             bool
}

// addIs records the operand of an is: term and reports whether it is a flag
// operand.
func (fn *flagNarrow) addIs(what string) bool {
	switch what {
	case "unread":
		fn.none |= chatcore.FlagRead
	case "starred":
		fn.all |= chatcore.FlagStarred
	case "mentioned":
		fn.anyOf |= chatcore.MentionFlags
	case "alerted":
		fn.all |= chatcore.FlagHasAlertWord
	default:
		return false
	}
	fn.used = true
	return true
}

// apply restricts q to the viewer's messages matching the flag terms.
func (fn flagNarrow) apply(q *chatcore.MessageQuery, viewer chatcore.UserID) {
	if !fn.used {
		return
	}
	q.FlagUser, q.AllFlags, q.AnyFlags, q.NoFlags = viewer, fn.all, fn.anyOf, fn.none
}

// withinFetch returns n (nil stays nil) bounded by [chatcore.MaxMessagesPerFetch].
func withinFetch(n *int) *int {
	if n == nil {
		return nil
	}
	return new(min(*n, chatcore.MaxMessagesPerFetch))
}

// firstUnread returns the oldest message of q (already narrowed) the viewer
// has not read and may see, or 0 when there is none.
func firstUnread(ctx context.Context, tx chatcore.Tx, q chatcore.MessageQuery, viewer chatcore.UserID, ok func(*chatcore.Message) bool) (chatcore.MessageID, error) {
	q.FlagUser, q.NoFlags = viewer, q.NoFlags|chatcore.FlagRead
	q.Newest = false
	got, err := chatcore.FetchVisible(ctx, tx, q, 1, ok)
	if err != nil || len(got) == 0 {
		return 0, err
	}
	return got[0].ID, nil
}

// UpdateFlagsForNarrowRequest holds the parameters of POST
// /messages/flags/narrow.
type UpdateFlagsForNarrowRequest struct {
	Anchor        *string         `json:"anchor" wire:"required"`
	IncludeAnchor *bool           `json:"include_anchor"`
	NumBefore     *int            `json:"num_before" wire:"required"`
	NumAfter      *int            `json:"num_after" wire:"required"`
	Narrow        json.RawMessage `json:"narrow" wire:"required"`
	Op            string          `json:"op" wire:"required"`
	Flag          string          `json:"flag" wire:"required"`
}

// UpdateFlagsForNarrowResult is the answer of POST /messages/flags/narrow.
type UpdateFlagsForNarrowResult struct {
	ProcessedCount   int                 `json:"processed_count"`
	UpdatedCount     int                 `json:"updated_count"`
	FirstProcessedID *chatcore.MessageID `json:"first_processed_id"`
	LastProcessedID  *chatcore.MessageID `json:"last_processed_id"`
	FoundOldest      bool                `json:"found_oldest"`
	FoundNewest      bool                `json:"found_newest"`
	// IgnoredBecauseNotSubscribedChannels is as in [UpdateFlagsResult].
	IgnoredBecauseNotSubscribedChannels []chatcore.StreamID `json:"ignored_because_not_subscribed_channels"`
}

// UpdateFlagsForNarrow selects messages as [Get] does
// (anchor, include_anchor, num_before, num_after, narrow; same errors) and
// applies the flag change of [UpdateFlags] to them, as Zulip's
// update_message_flags_for_narrow. Unlike Get it never refuses a range for
// its size: as Zulip does, it clamps num_before + num_after to
// [MaxFlagMessages] (5000), num_before keeping at most
// max(5000 - num_after, 2500) and num_after what is left, the anchor coming
// on top (so at most 5001 messages), and found_oldest and found_newest
// describe the clamped range. Further errors (BAD_REQUEST): "The anchor can
// only be excluded at an end of the range" when num_before and num_after are
// both positive and include_anchor is false; the flag and op errors of
// UpdateFlags, before any store access.
func UpdateFlagsForNarrow(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, req UpdateFlagsForNarrowRequest) (UpdateFlagsForNarrowResult, error) {
	res := UpdateFlagsForNarrowResult{IgnoredBecauseNotSubscribedChannels: []chatcore.StreamID{}}
	nb, na := 0, 0
	if req.NumBefore != nil {
		nb = *req.NumBefore
	}
	if req.NumAfter != nil {
		na = *req.NumAfter
	}
	if nb > 0 && na > 0 && req.IncludeAnchor != nil && !*req.IncludeAnchor {
		return res, chatcore.BadRequest("The anchor can only be excluded at an end of the range")
	}
	if _, err := checkFlagOp(req.Flag, req.Op); err != nil {
		return res, err
	}
	// The selection of GET /messages, without building message views, and
	// without its bound of 1000 per side: the sides are checked within that
	// bound (negative ones are refused as there), then clamped as Zulip does.
	f, err := checkMessagesRequest(&Request{Anchor: req.Anchor, NumBefore: withinFetch(req.NumBefore), NumAfter: withinFetch(req.NumAfter),
		NarrowJSON: req.Narrow, IncludeAnchor: req.IncludeAnchor})
	if err != nil {
		return res, err
	}
	f.numBefore = min(nb, max(MaxFlagMessages-na, MaxFlagMessages/2))
	f.numAfter = min(na, MaxFlagMessages-f.numBefore)
	var got Result
	var ids []chatcore.MessageID
	err = svc.View(ctx, func(tx chatcore.Tx) error {
		viewer, err := chatcore.Actor(ctx, tx, actorID)
		if err != nil {
			return err
		}
		realm, err := tx.Realm(ctx, viewer.RealmID)
		if err != nil {
			return err
		}
		rows, err := selectMessages(ctx, tx, viewer, realm, chatcore.NewViewCache(), f, &got)
		ids = make([]chatcore.MessageID, len(rows))
		for i := range rows {
			ids[i] = rows[i].ID
		}
		return err
	})
	if err != nil {
		return res, err
	}
	// The anchor on top of the clamped range can make one more than
	// UpdateFlags' bound, which Zulip's flag update does not apply here.
	up, err := updateFlags(ctx, svc, actorID, UpdateFlagsRequest{Messages: ids, Op: req.Op, Flag: req.Flag})
	if err != nil {
		return res, err
	}
	res.ProcessedCount, res.UpdatedCount = len(ids), len(up.Updated)
	if len(ids) > 0 {
		res.FirstProcessedID, res.LastProcessedID = &ids[0], &ids[len(ids)-1]
	}
	res.FoundOldest, res.FoundNewest = got.FoundOldest, got.FoundNewest
	res.IgnoredBecauseNotSubscribedChannels = up.IgnoredBecauseNotSubscribedChannels
	return res, nil
}
