package edits

// Moving messages between topics and channels: who hears of an edit or a
// move, the batches of a topic move (change_later, change_all), change_all's
// time limit and the notification bot's messages about a move.

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/internal/narrowlink"
)

// editAudience is who hears of an edit of one message: users with their
// flags on it (update_message), and the users who lose access to it in a
// move to another channel (delete_message).
type editAudience struct {
	flags  map[chatcore.UserID]chatcore.MessageFlags
	losing []chatcore.UserID
}

// editAudienceOf computes the audience of an edit of orig (as it was before
// the edit) as Zulip does: the users who received it, with their flags; for
// a channel with shared history also the target channel's active
// subscribers (and, in a move, the old channel's) as read. In a move to
// another channel, the users with no active subscription to it lose their
// flags, and lose the message (delete_message) when they cannot read the
// new channel: everyone of them for a private channel, guests for a public
// one. oldSubs are the subscriptions of from (nil for a direct message).
func editAudienceOf(ctx context.Context, tx chatcore.Tx, orig *chatcore.Message, from *chatcore.Stream, oldSubs []chatcore.Subscription, to *chatcore.Stream) (*editAudience, error) {
	a := &editAudience{flags: map[chatcore.UserID]chatcore.MessageFlags{}}
	rows, err := tx.MessageFlagRows(ctx, orig.ID)
	if err != nil {
		return nil, err
	}
	if orig.Type != chatcore.MessageTypeStream {
		for _, u := range orig.DirectMembers {
			a.flags[u] = orig.DefaultFlags
		}
		for _, r := range rows {
			a.flags[r.UserID] = r.Flags
		}
		return a, nil
	}
	for _, sub := range oldSubs {
		if sub.Active && sub.SinceMessageID <= orig.ID {
			a.flags[sub.UserID] = orig.DefaultFlags
		}
	}
	for _, r := range rows {
		a.flags[r.UserID] = r.Flags
	}
	oldActive := map[chatcore.UserID]bool{}
	for _, sub := range oldSubs {
		if sub.Active {
			oldActive[sub.UserID] = true
		}
	}
	target := from
	losing := map[chatcore.UserID]bool{}
	newActive := oldActive
	if to != nil {
		target = to
		newSubs, err := tx.ActiveSubscriberIDs(ctx, to.ID)
		if err != nil {
			return nil, err
		}
		newActive = map[chatcore.UserID]bool{}
		for _, u := range newSubs {
			newActive[u] = true
		}
		var leaving []chatcore.UserID
		for _, sub := range oldSubs {
			if !newActive[sub.UserID] {
				leaving = append(leaving, sub.UserID)
			}
		}
		for u := range a.flags {
			if !newActive[u] {
				leaving = append(leaving, u)
			}
		}
		slices.Sort(leaving)
		leaving = slices.Compact(leaving)
		for _, u := range leaving {
			delete(a.flags, u) // their flags go (MoveMessages)
		}
		if to.InviteOnly {
			a.losing = leaving
		} else if len(leaving) > 0 {
			guests, err := tx.Users(ctx, chatcore.UserFilter{RealmID: orig.RealmID, IDs: leaving, Roles: []chatcore.Role{chatcore.RoleGuest}})
			if err != nil {
				return nil, err
			}
			for _, g := range guests {
				a.losing = append(a.losing, g.ID)
			}
		}
		for _, u := range a.losing {
			losing[u] = true
		}
	}
	if !from.HistoryPublicToSubscribers {
		return a, nil
	}
	extra := slices.Collect(maps.Keys(newActive))
	if to != nil {
		for u := range oldActive {
			if !newActive[u] {
				extra = append(extra, u)
			}
		}
		// New-channel guests who were not in the old channel are left out:
		// they have no copy of the messages to update.
		var newcomers []chatcore.UserID
		for u := range newActive {
			if !oldActive[u] {
				newcomers = append(newcomers, u)
			}
		}
		if len(newcomers) > 0 {
			guests, err := tx.Users(ctx, chatcore.UserFilter{RealmID: orig.RealmID, IDs: newcomers, Roles: []chatcore.Role{chatcore.RoleGuest}})
			if err != nil {
				return nil, err
			}
			for _, g := range guests {
				losing[g.ID] = true // not told, like the users losing access
			}
		}
	}
	_ = target
	for _, u := range extra {
		if _, ok := a.flags[u]; !ok && !losing[u] {
			a.flags[u] = chatcore.FlagRead
		}
	}
	return a, nil
}

// publish records the update_message event for the audience (one event per
// distinct flag set, each with those flags), preceded in a move to another
// channel by the delete_message event for the users losing access to ids.
func (a *editAudience) publish(fx *chatcore.Effects, realm chatcore.RealmID, event map[string]any, from *chatcore.Stream, origTopic string, ids []chatcore.MessageID) {
	if len(a.losing) > 0 {
		fx.Event(realm, slices.Clone(a.losing), map[string]any{
			"type": "delete_message", "message_type": "stream", "stream_id": from.ID,
			"topic": origTopic, "message_ids": slices.Clone(ids),
		})
	}
	fx.EventWithFlags(realm, event, a.flags)
}

// movedFirstMessageIDs keeps first_message_id of both channels of a move
// right after ids moved from p.fromStream to p.toStream.
func movedFirstMessageIDs(ctx context.Context, tx chatcore.Tx, fx *chatcore.Effects, p *editPlan, ids []chatcore.MessageID) error {
	if p.toStream == nil || len(ids) == 0 {
		return nil
	}
	if to := p.toStream; to.FirstMessageID == 0 || ids[0] < to.FirstMessageID {
		to.FirstMessageID = ids[0]
		if err := tx.UpdateStream(ctx, to); err != nil {
			return err
		}
	}
	from := p.fromStream
	if !slices.Contains(ids, from.FirstMessageID) {
		return nil
	}
	oldest, err := tx.OldestMessageID(ctx, from.ID)
	if err != nil {
		return err
	}
	from.FirstMessageID = oldest
	return tx.UpdateStream(ctx, from)
}

// moveRange is a half-open id range [lo, hi) of a topic move; hi 0 is open.
type moveRange struct{ lo, hi chatcore.MessageID }

// moveRest moves the other messages of the topic for change_later and
// change_all, in batches, then sends the notification bot's messages.
func moveRest(ctx context.Context, svc *chatcore.Service, p *editPlan, target *chatcore.Message) error {
	moved := []chatcore.MessageID{target.ID}
	var ranges []moveRange
	switch p.mode {
	case PropagateLater:
		ranges = []moveRange{{target.ID + 1, 0}}
	case PropagateAll:
		ranges = []moveRange{{0, target.ID}, {target.ID + 1, 0}}
	}
	now := svc.Now().UTC()
	entry := chatcore.EditHistoryEntry{UserID: p.editor.ID, Timestamp: now}
	template := map[string]any{
		"type": "update_message", "user_id": p.editor.ID, "edit_timestamp": now.Unix(),
		"message_id": target.ID, "rendering_only": false, "stream_name": p.fromStream.Name,
		"stream_id": p.fromStream.ID, "propagate_mode": p.mode, "orig_subject": p.origTopic,
	}
	if p.toStream != nil {
		entry.PrevStreamID, entry.StreamID = p.fromStream.ID, p.toStream.ID
		template["new_stream_id"] = p.toStream.ID
	}
	if p.topic != nil {
		entry.PrevTopic, entry.Topic = new(p.origTopic), new(*p.topic)
		template["subject"] = *p.topic
	}
	for _, r := range ranges {
		cursor := r.lo
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			var ids []chatcore.MessageID
			err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
				var err error
				ids, err = tx.MoveMessages(ctx, chatcore.MessageMove{
					RealmID: target.RealmID, StreamID: p.fromStream.ID, TopicKey: chatcore.TopicKey(p.origTopic),
					MinID: cursor, BeforeID: r.hi, ToStream: p.targetStream.ID,
					ToRecipient: p.targetStream.RecipientID, ToTopic: p.targetTopic, MovedAt: now, Entry: entry,
				}, svc.TopicBatchSize())
				if err != nil || len(ids) == 0 {
					return err
				}
				if err := refreshStreams(ctx, tx, p); err != nil {
					return err
				}
				if err := movedFirstMessageIDs(ctx, tx, fx, p, ids); err != nil {
					return err
				}
				ev := maps.Clone(template)
				if p.topic != nil {
					links, err := svc.TopicLinksIn(ctx, tx, target.RealmID, *p.topic)
					if err != nil {
						return err
					}
					ev["topic_links"] = links
				}
				ev["message_ids"] = ids
				p.audience.publish(fx, target.RealmID, ev, p.fromStream, p.origTopic, ids)
				return nil
			})
			if err != nil {
				return err
			}
			moved = append(moved, ids...)
			if len(ids) < svc.TopicBatchSize() {
				break
			}
			cursor = ids[len(ids)-1] + 1
		}
	}
	if err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		return carryTopicPolicies(ctx, svc, tx, fx, p, len(moved))
	}); err != nil {
		return err
	}
	if !p.notifyOld && !p.notifyNew {
		return nil
	}
	return svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		return moveNotifications(ctx, svc, tx, fx, p, target.ID, len(moved))
	})
}

// refreshStreams re-reads the channels of a move inside a batch's
// transaction (first_message_id may have changed in between).
func refreshStreams(ctx context.Context, tx chatcore.Tx, p *editPlan) error {
	from, err := tx.Stream(ctx, p.fromStream.ID)
	if err != nil {
		return err
	}
	p.fromStream = from
	if p.toStream == nil {
		p.targetStream = from
		return nil
	}
	to, err := tx.Stream(ctx, p.toStream.ID)
	if err != nil {
		return err
	}
	p.toStream, p.targetStream = to, to
	return nil
}

// checkMoveAllLimit refuses change_all when the move's time limit would
// leave some of the topic's messages (those the editor can read) behind, as
// Zulip's MOVE_MESSAGES_TIME_LIMIT_EXCEEDED. Moderators, resolving and
// unresolving are exempt.
func checkMoveAllLimit(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, p *editPlan, m *chatcore.Message) error {
	if p.mode != PropagateAll || !p.moved() || p.editor.Role == chatcore.RoleModerator || p.resolved || p.unresolved {
		return nil
	}
	pol := p.realm.Messages
	limit, ok := pol.MoveWithinChannelLimit.Effective(chatcore.DefaultMoveLimit)
	if p.topic == nil {
		ok = false
	}
	if p.toStream != nil {
		if l, has := pol.MoveBetweenChannelsLimit.Effective(chatcore.DefaultMoveLimit); has && (!ok || l < limit) {
			limit, ok = l, true
		}
	}
	if !ok {
		return nil
	}
	acc, err := chatcore.StreamAccessFor(ctx, tx, p.editor, p.fromStream)
	if err != nil {
		return err
	}
	oldest := svc.Now().Add(-(limit + editGrace))
	key := chatcore.TopicKey(p.origTopic)
	var total, allowed int
	var firstAllowed chatcore.MessageID
	var after chatcore.MessageID
	if acc.MinID > 0 {
		after = acc.MinID - 1
	}
	for {
		msgs, err := tx.Messages(ctx, chatcore.MessageQuery{RealmID: m.RealmID, Recipients: []chatcore.RecipientID{p.fromStream.RecipientID},
			TopicKey: &key, AfterID: after, Limit: svc.TopicBatchSize()})
		if err != nil {
			return err
		}
		for _, x := range msgs {
			total++
			if x.SentAt.After(oldest) {
				allowed++
				if firstAllowed == 0 {
					firstAllowed = x.ID
				}
			}
		}
		if len(msgs) < svc.TopicBatchSize() {
			break
		}
		after = msgs[len(msgs)-1].ID
	}
	if total == allowed {
		return nil
	}
	e := &chatcore.Error{Code: chatcore.CodeMoveTimeLimitExceeded, Kind: chatcore.KindInvalid,
		Msg: fmt.Sprintf("You only have permission to move the %d/%d most recent messages in this topic.", allowed, total),
		Data: map[string]any{"first_message_id_allowed_to_move": nil, "total_messages_in_topic": total,
			"total_messages_allowed_to_move": allowed}}
	if firstAllowed != 0 {
		e.Data["first_message_id_allowed_to_move"] = firstAllowed
	}
	return e
}

// moveNotifications sends the notification bot's messages about a move of
// count messages (target among them) to the new and the old topic, as asked,
// with Zulip's texts, each read for the editor.
func moveNotifications(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, p *editPlan, target chatcore.MessageID, count int) error {
	if err := refreshStreams(ctx, tx, p); err != nil {
		return err
	}
	from, to := p.fromStream, p.targetStream
	oldKey, newKey := chatcore.TopicKey(p.origTopic), chatcore.TopicKey(p.targetTopic)
	movedAll := p.mode == PropagateAll
	if !movedAll {
		acc, err := chatcore.StreamAccessFor(ctx, tx, p.editor, from)
		if err != nil {
			return err
		}
		movedAll = true
		if acc.OK {
			var after chatcore.MessageID
			if acc.MinID > 0 {
				after = acc.MinID - 1
			}
			left, err := tx.MessageIDs(ctx, chatcore.MessageQuery{RealmID: from.RealmID, Recipients: []chatcore.RecipientID{from.RecipientID},
				TopicKey: &oldKey, AfterID: after, Limit: 1})
			if err != nil {
				return err
			}
			movedAll = len(left) == 0
		}
	}
	user := fmt.Sprintf("@_**%s|%d**", p.editor.FullName, p.editor.ID)
	oldLoc := narrowlink.TopicSyntax(int64(from.ID), from.Name, p.origTopic, chatcore.DefaultEmptyTopicDisplayName)
	newLoc := narrowlink.TopicSyntax(int64(to.ID), to.Name, p.targetTopic, chatcore.DefaultEmptyTopicDisplayName)
	bot, err := svc.NotificationBot(ctx, tx, from.RealmID)
	if err != nil {
		return err
	}
	send := func(st *chatcore.Stream, topic, content string) error {
		m, err := svc.SendInTx(ctx, tx, fx, bot, chatcore.Destination{StreamID: st.ID, Topic: topic, SkipAccessCheck: true}, content, "Internal")
		if err != nil {
			return err
		}
		_, err = tx.UpdateUserMessageFlags(ctx, p.editor.ID, []chatcore.MessageID{m.ID}, chatcore.FlagRead, true)
		return err
	}
	if p.notifyNew && (p.toStream != nil || p.topic != nil && !p.resolved && !p.unresolved) {
		acc, err := chatcore.StreamAccessFor(ctx, tx, p.editor, to)
		if err != nil {
			return err
		}
		preexisting := false
		if acc.OK {
			var after chatcore.MessageID
			if acc.MinID > 0 {
				after = acc.MinID - 1
			}
			there, err := tx.MessageIDs(ctx, chatcore.MessageQuery{RealmID: to.RealmID, Recipients: []chatcore.RecipientID{to.RecipientID},
				TopicKey: &newKey, AfterID: after, Limit: count + 1})
			if err != nil {
				return err
			}
			preexisting = len(there) > count
		}
		var text string
		switch {
		case !preexisting && movedAll:
			text = fmt.Sprintf("This topic was moved here from %s by %s.", oldLoc, user)
		case count == 1:
			link := strings.TrimRight(svc.ExternalURL(), "/") + "/" + narrowlink.ChannelMessage(int64(to.ID), to.Name, p.targetTopic, int64(target))
			text = fmt.Sprintf("[A message](%s) was moved here from %s by %s.", link, oldLoc, user)
		default:
			text = fmt.Sprintf("%d messages were moved here from %s by %s.", count, oldLoc, user)
		}
		if err := send(to, p.targetTopic, text); err != nil {
			return err
		}
	}
	if p.notifyOld {
		var text string
		switch {
		case movedAll:
			text = fmt.Sprintf("This topic was moved to %s by %s.", newLoc, user)
		case count == 1:
			text = fmt.Sprintf("A message was moved from this topic to %s by %s.", newLoc, user)
		default:
			text = fmt.Sprintf("%d messages were moved from this topic to %s by %s.", count, newLoc, user)
		}
		if err := send(from, p.origTopic, text); err != nil {
			return err
		}
	}
	return nil
}
