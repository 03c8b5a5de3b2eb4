package edits

// Editing messages: PATCH /messages/{message_id}. The permission and time
// rules are Zulip's; moving the rest of a topic (change_later, change_all)
// is in move.go.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/chatcore/chatcore"
)

// The propagate modes of a topic or channel change ([Request.PropagateMode]).
const (
	PropagateOne   = "change_one"
	PropagateLater = "change_later"
	PropagateAll   = "change_all"
)

// editGrace is the time Zulip allows past each editing and moving limit
// (network delays, the seconds a client shows before refusing).
const editGrace = 20 * time.Second

// resolvedPrefix marks a resolved topic.
const resolvedPrefix = "✔ "

// Request holds the parameters of PATCH /messages/{message_id}.
// Nil means "not given".
type Request struct {
	// Content is the new Markdown content.
	Content *string `json:"content"`
	// Topic is the new topic ("subject" is its legacy name).
	Topic *string `json:"topic" wire:"alias=subject"`
	// StreamID moves the message to another channel.
	StreamID *chatcore.StreamID `json:"stream_id"`
	// PropagateMode is change_one (the default), change_later or change_all.
	PropagateMode *string `json:"propagate_mode"`
	// SendNotificationToOldThread (default false) and
	// SendNotificationToNewThread (default true) ask for the notification
	// bot's messages about a move.
	SendNotificationToOldThread *bool `json:"send_notification_to_old_thread"`
	SendNotificationToNewThread *bool `json:"send_notification_to_new_thread"`
	// PrevContentSHA256 is the SHA-256 (hex) of the content the client
	// edited; the edit fails when the message's content no longer has it.
	PrevContentSHA256 *string `json:"prev_content_sha256"`
	// Authenticated is the user [chatcore.Service.Authenticate] returned for
	// this request, or nil. When it is the actor, new content is pre-rendered
	// in its realm without reading the actor first (see
	// [chatcore.Service.Prerender]); every rule is still checked on the
	// actor read inside the write transaction.
	Authenticated *chatcore.User `json:"-"`
}

// editPlan is a Request checked against the message.
type editPlan struct {
	content      *string          // normalized new content
	topic        *string          // normalized new topic, nil when unchanged
	toStream     *chatcore.Stream // nil when the channel is unchanged
	mode         string
	notifyOld    bool
	notifyNew    bool
	resolved     bool // the topic change marks the topic resolved
	unresolved   bool
	fromStream   *chatcore.Stream
	origTopic    string
	realm        *chatcore.Realm
	editor       *chatcore.User
	pre          *chatcore.Prerendered
	targetTopic  string
	targetStream *chatcore.Stream
	// audience is who hears of the edit, computed before it is written;
	// the batches of a topic move tell the same users.
	audience *editAudience
}

func (p *editPlan) moved() bool { return p.topic != nil || p.toStream != nil }

// Update edits message id as actorID, as Zulip's PATCH
// /messages/{message_id} does: the content (only the sender, within the
// realm's content edit limit), the topic (any user of the realm's
// move-between-topics group, within the move-within-channel limit unless a
// moderator) and the channel (the move-between-channels group, within its
// limit), for the message alone (change_one), with the later messages of the
// topic (change_later) or the whole topic (change_all). The edited message
// and its edit-history entry are written in one transaction; the other
// messages of a topic move follow in transactions of the topic-deletion batch
// size, lowest id first, each publishing its own update_message event; the
// notification bot's messages (send_notification_to_old_thread /
// _new_thread) follow the last batch. A failure after the first transaction
// leaves the batches done so far moved, as topic deletion does.
//
// Errors (BAD_REQUEST unless noted): "Invalid message(s)" for a message the
// actor cannot see; "Invalid propagate_mode"; "Your organization has turned
// off message editing", "You don't have permission to edit this message",
// "The time limit for editing this message has passed" (content); "Nothing
// to change"; "Direct messages cannot be moved to channels.", "Direct
// messages cannot have topics."; "Invalid propagate_mode without topic
// edit"; "General chat cannot be marked as resolved"; "Invalid character in
// topic, at position N!"; "Cannot change message content while changing
// channel"; "Widgets cannot be edited."; EXPECTATION_MISMATCH
// "'prev_content_sha256' value does not match the expected value."; "Invalid
// channel ID"; "You don't have permission to resolve topics in this
// channel."; "The time limit for editing this message's topic has passed.";
// "You don't have permission to move this message"; "The time limit for
// editing this message's channel has passed"; MOVE_MESSAGES_TIME_LIMIT_EXCEEDED
// for change_all over a topic older than the limit; the content errors of
// [chatcore.Service.SendMessage].
func Update(ctx context.Context, svc *chatcore.Service, actorID chatcore.UserID, id chatcore.MessageID, req Request) error {
	mode := PropagateOne
	if req.PropagateMode != nil {
		mode = *req.PropagateMode
		if mode != PropagateOne && mode != PropagateLater && mode != PropagateAll {
			return chatcore.BadRequest("Invalid propagate_mode")
		}
	}
	var pre *chatcore.Prerendered
	if req.Content != nil {
		pre = svc.Prerender(ctx, actorID, req.Authenticated, *req.Content)
	}
	var (
		plan   *editPlan
		target *chatcore.Message
	)
	if mode != PropagateOne {
		// change_all's time limit reads the whole topic: before the write.
		if err := svc.View(ctx, func(tx chatcore.Tx) error {
			p, m, err := planEdit(ctx, svc, tx, actorID, id, req, mode)
			if err != nil {
				return err
			}
			return checkMoveAllLimit(ctx, svc, tx, p, m)
		}); err != nil {
			return err
		}
	}
	err := svc.Update(ctx, func(tx chatcore.Tx, fx *chatcore.Effects) error {
		p, m, err := planEdit(ctx, svc, tx, actorID, id, req, mode)
		if err != nil {
			return err
		}
		p.pre = pre
		plan, target = p, m
		return applyEdit(ctx, svc, tx, fx, p, m)
	})
	if err != nil || !plan.moved() {
		return err
	}
	return moveRest(ctx, svc, plan, target)
}

// planEdit loads the message and checks req against it with Zulip's rules,
// in Zulip's order.
func planEdit(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, actorID chatcore.UserID, id chatcore.MessageID, req Request, mode string) (*editPlan, *chatcore.Message, error) {
	u, err := chatcore.Actor(ctx, tx, actorID)
	if err != nil {
		return nil, nil, err
	}
	m, err := chatcore.ReadableMessage(ctx, tx, u, id)
	if err != nil {
		return nil, nil, err
	}
	realm, err := tx.Realm(ctx, u.RealmID)
	if err != nil {
		return nil, nil, err
	}
	pol := realm.Messages
	now := svc.Now()
	age := now.Sub(m.SentAt)
	p := &editPlan{mode: mode, realm: realm, editor: u, origTopic: m.Topic, targetTopic: m.Topic,
		notifyOld: req.SendNotificationToOldThread != nil && *req.SendNotificationToOldThread,
		notifyNew: req.SendNotificationToNewThread == nil || *req.SendNotificationToNewThread}
	if req.Content != nil {
		if pol.ContentEditingDisabled {
			return nil, nil, chatcore.BadRequest("Your organization has turned off message editing")
		}
		if m.SenderID != u.ID {
			return nil, nil, chatcore.BadRequest("You don't have permission to edit this message")
		}
		if limit, ok := pol.ContentEditLimit.Effective(chatcore.DefaultContentEditLimit); ok && age > limit+editGrace {
			return nil, nil, chatcore.BadRequest("The time limit for editing this message has passed")
		}
	}
	var rawTopic *string
	if req.Topic != nil {
		t := strings.TrimSpace(*req.Topic)
		if t == chatcore.DefaultEmptyTopicDisplayName {
			t = ""
		}
		if m.Type != chatcore.MessageTypeStream || t != m.Topic {
			rawTopic = &t
		}
	}
	if req.Content == nil && rawTopic == nil && req.StreamID == nil {
		return nil, nil, chatcore.BadRequest("Nothing to change")
	}
	if m.Type != chatcore.MessageTypeStream {
		if req.StreamID != nil {
			return nil, nil, chatcore.BadRequest("Direct messages cannot be moved to channels.")
		}
		if rawTopic != nil {
			return nil, nil, chatcore.BadRequest("Direct messages cannot have topics.")
		}
	}
	if mode != PropagateOne && rawTopic == nil && req.StreamID == nil {
		return nil, nil, chatcore.BadRequest("Invalid propagate_mode without topic edit")
	}
	if rawTopic != nil {
		if *rawTopic == strings.TrimSpace(resolvedPrefix) || *rawTopic == resolvedPrefix+chatcore.DefaultEmptyTopicDisplayName {
			return nil, nil, chatcore.BadRequest("General chat cannot be marked as resolved")
		}
		t, err := chatcore.NormalizeTopic(realm, *rawTopic)
		if err != nil {
			return nil, nil, err
		}
		if t != m.Topic {
			p.topic, p.targetTopic = &t, t
			p.resolved = strings.HasPrefix(t, resolvedPrefix) && !strings.HasPrefix(m.Topic, resolvedPrefix) &&
				strings.TrimPrefix(*rawTopic, resolvedPrefix) == m.Topic
			p.unresolved = strings.HasPrefix(m.Topic, resolvedPrefix) && !strings.HasPrefix(t, resolvedPrefix) &&
				strings.TrimLeft(m.Topic, resolvedPrefix) == t
		}
	}
	if req.StreamID != nil && req.Content != nil {
		return nil, nil, chatcore.BadRequest("Cannot change message content while changing channel")
	}
	if req.Content != nil && len(m.Submessages) > 0 {
		return nil, nil, chatcore.BadRequest("Widgets cannot be edited.")
	}
	if req.PrevContentSHA256 != nil {
		sum := sha256.Sum256([]byte(m.Content))
		if *req.PrevContentSHA256 != hex.EncodeToString(sum[:]) {
			return nil, nil, &chatcore.Error{Code: chatcore.CodeExpectationMismatch, Kind: chatcore.KindInvalid,
				Msg: "'prev_content_sha256' value does not match the expected value."}
		}
	}
	if req.Content != nil {
		body := *req.Content
		if strings.TrimRightFunc(body, isSpace) == "" {
			body = "(deleted)"
		}
		if body, err = chatcore.NormalizeContent(body); err != nil {
			return nil, nil, err
		}
		p.content = &body
	}
	if m.Type != chatcore.MessageTypeStream {
		return p, m, nil
	}
	if p.fromStream, err = tx.Stream(ctx, m.StreamID); err != nil {
		return nil, nil, err
	}
	p.targetStream = p.fromStream
	if req.StreamID != nil && *req.StreamID != m.StreamID {
		st, err := moveTarget(ctx, tx, u, *req.StreamID)
		if err != nil {
			return nil, nil, err
		}
		p.toStream, p.targetStream = st, st
	}
	cp := channelPerms{tx: tx, u: u}
	channels := []*chatcore.Stream{p.fromStream}
	if p.toStream != nil {
		channels = append(channels, p.toStream)
	}
	if p.topic != nil {
		if p.resolved || p.unresolved {
			ok := pol.ResolveTopics.Contains(u, chatcore.GroupEveryone)
			if !ok {
				if ok, err = cp.any(ctx, channels, cp.canResolve); err != nil {
					return nil, nil, err
				}
			}
			if !ok {
				return nil, nil, chatcore.BadRequest("You don't have permission to resolve topics in this channel.")
			}
		} else {
			ok := pol.MoveBetweenTopics.Contains(u, chatcore.GroupEveryone)
			if !ok {
				if ok, err = cp.any(ctx, channels, cp.canMoveWithin); err != nil {
					return nil, nil, err
				}
			}
			if !ok {
				return nil, nil, chatcore.BadRequest("You don't have permission to edit this message")
			}
			if limit, ok := pol.MoveWithinChannelLimit.Effective(chatcore.DefaultMoveLimit); ok && u.Role != chatcore.RoleModerator && age > limit+editGrace {
				return nil, nil, chatcore.BadRequest("The time limit for editing this message's topic has passed.")
			}
		}
	}
	if p.toStream != nil {
		ok := pol.MoveBetweenChannels.Contains(u, chatcore.GroupMembers)
		if !ok {
			if ok, err = cp.any(ctx, channels[:1], cp.canMoveOut); err != nil {
				return nil, nil, err
			}
		}
		if !ok {
			return nil, nil, chatcore.BadRequest("You don't have permission to move this message")
		}
		if limit, ok := pol.MoveBetweenChannelsLimit.Effective(chatcore.DefaultMoveLimit); ok && u.Role != chatcore.RoleModerator && age > limit+editGrace {
			return nil, nil, chatcore.BadRequest("The time limit for editing this message's channel has passed")
		}
	}
	if req.StreamID != nil && p.toStream == nil && p.topic == nil && p.content == nil {
		// A "move" to the message's own channel changes nothing.
		return nil, nil, chatcore.BadRequest("Nothing to change")
	}
	return p, m, nil
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// moveTarget returns the channel a message may be moved to: one of the
// realm that u can access and that is not archived.
func moveTarget(ctx context.Context, tx chatcore.Tx, u *chatcore.User, id chatcore.StreamID) (*chatcore.Stream, error) {
	invalid := chatcore.BadRequest("Invalid channel ID")
	st, err := chatcore.StreamInRealm(ctx, tx, u.RealmID, id)
	if errors.Is(err, chatcore.ErrNotFound) {
		return nil, invalid
	}
	if err != nil {
		return nil, err
	}
	if st.IsArchived {
		return nil, invalid
	}
	acc, err := chatcore.StreamAccessFor(ctx, tx, u, st)
	if err != nil {
		return nil, err
	}
	if !acc.OK {
		return nil, invalid
	}
	return st, nil
}

// applyEdit writes the edit of the target message m and records its events.
func applyEdit(ctx context.Context, svc *chatcore.Service, tx chatcore.Tx, fx *chatcore.Effects, p *editPlan, m *chatcore.Message) error {
	now := svc.Now().UTC()
	orig := *m
	entry := chatcore.EditHistoryEntry{UserID: p.editor.ID, Timestamp: now}
	event := map[string]any{
		"type": "update_message", "user_id": p.editor.ID, "edit_timestamp": now.Unix(),
		"message_id": m.ID, "rendering_only": false,
	}
	if p.content != nil {
		m.LastEditedAt = now
	}
	var mentions *chatcore.Rendered
	if p.content != nil {
		r, err := svc.RenderChecked(ctx, tx, p.editor.RealmID, *p.content, p.pre)
		if err != nil {
			return err
		}
		entry.PrevContent, entry.PrevRenderedContent = m.Content, m.RenderedContent
		event["orig_content"], event["orig_rendered_content"] = m.Content, m.RenderedContent
		event["content"], event["rendered_content"], event["is_me_message"] = *p.content, r.HTML, r.IsMe
		m.Content, m.RenderedContent, m.IsMeMessage = *p.content, r.HTML, r.IsMe
		m.Has = chatcore.ContentHas(m.Content)
		if strings.Contains(entry.PrevContent, "/user_uploads/") || strings.Contains(m.Content, "/user_uploads/") {
			sender, err := tx.User(ctx, m.SenderID)
			if err != nil {
				return err
			}
			has, err := chatcore.ClaimAttachments(ctx, tx, sender, m.ID, m.Content)
			if err != nil {
				return err
			}
			m.Has = m.Has&^(chatcore.HasAttachment|chatcore.HasImage) | has
		}
		mentions = &r
	}
	if m.Type == chatcore.MessageTypeStream {
		event["stream_name"], event["stream_id"] = p.fromStream.Name, p.fromStream.ID
		if p.moved() {
			event["propagate_mode"] = p.mode
			m.LastMovedAt = now
		}
		if p.toStream != nil {
			entry.PrevStreamID, entry.StreamID = p.fromStream.ID, p.toStream.ID
			event["orig_subject"], event["new_stream_id"] = p.origTopic, p.toStream.ID
			m.StreamID, m.RecipientID = p.toStream.ID, p.toStream.RecipientID
		}
		if p.topic != nil {
			entry.PrevTopic, entry.Topic = new(p.origTopic), new(*p.topic)
			links, err := svc.TopicLinksIn(ctx, tx, m.RealmID, *p.topic)
			if err != nil {
				return err
			}
			event["orig_subject"], event["subject"], event["topic_links"] = p.origTopic, *p.topic, links
			m.Topic = *p.topic
		}
	}
	// The channel's subscriptions, which the mention flags and the audience
	// both need: no write of this edit changes them.
	var fromSubs []chatcore.Subscription
	if orig.Type == chatcore.MessageTypeStream {
		var err error
		if fromSubs, err = tx.Subscriptions(ctx, p.fromStream.ID, 0); err != nil {
			return err
		}
	}
	if mentions != nil {
		if err := updateMentionFlags(ctx, tx, m, p.fromStream, fromSubs, *mentions); err != nil {
			return err
		}
	}
	before := orig
	before.DefaultFlags = m.DefaultFlags // flag rows are already updated too
	aud, err := editAudienceOf(ctx, tx, &before, p.fromStream, fromSubs, p.toStream)
	if err != nil {
		return err
	}
	p.audience = aud
	if p.toStream != nil {
		// No content change comes with a channel change: the store's move
		// (which carries the flag rows over) is the whole edit.
		if _, err := tx.MoveMessages(ctx, chatcore.MessageMove{
			RealmID: m.RealmID, StreamID: orig.StreamID, TopicKey: orig.TopicKey, MinID: m.ID, BeforeID: m.ID + 1,
			ToStream: m.StreamID, ToRecipient: m.RecipientID, ToTopic: m.Topic, MovedAt: now, Entry: entry,
		}, 1); err != nil {
			return err
		}
		if err := movedFirstMessageIDs(ctx, tx, fx, p, []chatcore.MessageID{m.ID}); err != nil {
			return err
		}
	} else if err := tx.EditMessage(ctx, m, entry); err != nil {
		return err
	}
	event["message_ids"] = []chatcore.MessageID{m.ID}
	aud.publish(fx, m.RealmID, event, p.fromStream, p.origTopic, []chatcore.MessageID{m.ID})
	return nil
}

// updateMentionFlags recomputes the mention and alert-word flags of m's
// receivers after a content edit, as Zulip's update_user_message_flags does:
// mentioned for the users the new content mentions, stream_wildcard_mentioned
// for everyone on a non-silent @**all**, topic_wildcard_mentioned for the
// topic's participants on a non-silent @**topic**, has_alert_word for the
// users whose alert words the new content holds (one read of the realm's
// alert words). m.DefaultFlags is updated too. subs are the subscriptions of
// m's channel st (nil for a direct message). Wildcard mentions of many users
// are refused as at send ([chatcore.CheckWildcardMentions]).
func updateMentionFlags(ctx context.Context, tx chatcore.Tx, m *chatcore.Message, st *chatcore.Stream, subs []chatcore.Subscription, r chatcore.Rendered) error {
	const bits = chatcore.MentionFlags | chatcore.FlagHasAlertWord
	oldDefaults := m.DefaultFlags
	m.DefaultFlags &^= bits
	if r.StreamWildcard {
		m.DefaultFlags |= chatcore.FlagStreamWildcardMentioned
	}
	var participants []chatcore.UserID
	if r.TopicWildcard && st != nil {
		var err error
		if participants, err = tx.TopicParticipants(ctx, st.ID, chatcore.TopicKey(m.Topic)); err != nil {
			return err
		}
	}
	if st != nil && (r.StreamWildcard || r.TopicWildcard) {
		sender, err := tx.User(ctx, m.SenderID)
		if err != nil {
			return err
		}
		active := 0
		for _, sub := range subs {
			if sub.Active {
				active++
			}
		}
		if err := chatcore.CheckWildcardMentions(ctx, tx, sender, st, active, len(participants), r); err != nil {
			return err
		}
	}
	words, err := tx.RealmAlertWords(ctx, m.RealmID)
	if err != nil {
		return err
	}
	alerted := map[chatcore.UserID]bool{}
	for _, w := range words {
		if !alerted[w.UserID] && chatcore.ContainsAlertWord(m.Content, w.Word) {
			alerted[w.UserID] = true
		}
	}
	rows, err := tx.MessageFlagRows(ctx, m.ID)
	if err != nil {
		return err
	}
	current := make(map[chatcore.UserID]chatcore.MessageFlags, len(rows))
	for _, row := range rows {
		current[row.UserID] = row.Flags
	}
	receivers := derivedReceivers(m, subs)
	for u := range current {
		receivers = append(receivers, u)
	}
	slices.Sort(receivers)
	receivers = slices.Compact(receivers)
	var out []chatcore.UserMessageFlags
	for _, u := range receivers {
		cur, hasRow := current[u]
		if !hasRow {
			cur = oldDefaults
		}
		next := cur&^bits | m.DefaultFlags&bits
		if slices.Contains(r.Mentioned, u) {
			next |= chatcore.FlagMentioned
		}
		if alerted[u] {
			next |= chatcore.FlagHasAlertWord
		}
		if r.TopicWildcard {
			if _, ok := slices.BinarySearch(participants, u); ok {
				next |= chatcore.FlagTopicWildcardMentioned
			}
		}
		if hasRow && next != cur || !hasRow && next != m.DefaultFlags {
			out = append(out, chatcore.UserMessageFlags{UserID: u, MessageID: m.ID, Flags: next})
		}
	}
	if len(out) == 0 {
		return nil
	}
	return tx.PutUserMessageFlags(ctx, out)
}

// derivedReceivers returns the users who received m without a flag row
// deciding it: a direct message's participants, or the active subscribers
// among subs (its channel's subscriptions) whose subscription covers m.
func derivedReceivers(m *chatcore.Message, subs []chatcore.Subscription) []chatcore.UserID {
	if m.Type != chatcore.MessageTypeStream {
		return slices.Clone(m.DirectMembers)
	}
	var out []chatcore.UserID
	for _, sub := range subs {
		if sub.Active && sub.SinceMessageID <= m.ID {
			out = append(out, sub.UserID)
		}
	}
	return out
}
