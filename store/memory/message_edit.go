package memory

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// EditMessage implements store.MessageStore.
func (t *tx) EditMessage(_ context.Context, m *store.Message, entry store.EditHistoryEntry) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.messages[m.ID]
	if !ok {
		return fmt.Errorf("message %d: %w", m.ID, store.ErrNotFound)
	}
	m.TopicKey = store.TopicKey(m.Topic)
	c := cloneMessage(old)
	c.Content, c.RenderedContent, c.IsMeMessage, c.DefaultFlags = m.Content, m.RenderedContent, m.IsMeMessage, m.DefaultFlags
	c.LastEditedAt, c.LastMovedAt = m.LastEditedAt, m.LastMovedAt
	c.EditHistory = append([]store.EditHistoryEntry{cloneEntry(entry)}, c.EditHistory...)
	t.relocate(old, c, m.StreamID, m.RecipientID, m.Topic)
	return nil
}

// SetRenderedContent implements store.MessageStore.
func (t *tx) SetRenderedContent(_ context.Context, id store.MessageID, html string) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.messages[id]
	if !ok {
		return fmt.Errorf("message %d: %w", id, store.ErrNotFound)
	}
	c := cloneMessage(old)
	c.RenderedContent = html
	put(t, t.d.messages, id, c)
	return nil
}

// relocate stores c, a fresh copy of old, at the channel, recipient and topic
// given, keeping the indexes right.
func (t *tx) relocate(old, c *store.Message, stream store.StreamID, recipient store.RecipientID, topic string) {
	c.StreamID, c.RecipientID, c.Topic, c.TopicKey = stream, recipient, topic, store.TopicKey(topic)
	if old.RecipientID != c.RecipientID {
		unindex(t, t.d.msgByRecipient, old.RecipientID, old.ID)
		index(t, t.d.msgByRecipient, c.RecipientID, c.ID)
	}
	if old.Type == store.MessageTypeStream {
		if old.StreamID != c.StreamID {
			unindex(t, t.d.msgByStream, old.StreamID, old.ID)
			index(t, t.d.msgByStream, c.StreamID, c.ID)
		}
		if old.RecipientID != c.RecipientID || old.TopicKey != c.TopicKey {
			unindex(t, t.d.msgByTopic, topicKey{old.RecipientID, old.TopicKey}, old.ID)
			index(t, t.d.msgByTopic, topicKey{c.RecipientID, c.TopicKey}, c.ID)
		}
	}
	put(t, t.d.messages, c.ID, c)
}

func cloneEntry(e store.EditHistoryEntry) store.EditHistoryEntry {
	e.PrevTopic = cloneString(e.PrevTopic)
	e.Topic = cloneString(e.Topic)
	return e
}

// MoveMessages implements store.MessageStore.
func (t *tx) MoveMessages(_ context.Context, mv store.MessageMove, limit int) ([]store.MessageID, error) {
	if err := t.write(); err != nil {
		return nil, err
	}
	if limit <= 0 {
		return nil, errors.New("memory: MoveMessages: limit must be positive")
	}
	st, ok := t.d.streams[mv.StreamID]
	if !ok {
		return nil, nil
	}
	var after store.MessageID
	if mv.MinID > 0 {
		after = mv.MinID - 1
	}
	var ids []store.MessageID
	for id := range t.d.msgByTopic[topicKey{st.RecipientID, mv.TopicKey}].between(after, mv.BeforeID, false) {
		if len(ids) == limit {
			break
		}
		if m := t.d.messages[id]; m.RealmID == mv.RealmID && m.StreamID == mv.StreamID && m.Type == store.MessageTypeStream {
			ids = append(ids, id)
		}
	}
	var newSubs []store.UserID
	if mv.ToStream != mv.StreamID {
		for u := range t.d.subsByStream[mv.ToStream].all() {
			if t.d.subs[subKey{mv.ToStream, u}].Active {
				newSubs = append(newSubs, u)
			}
		}
	}
	for _, id := range ids {
		old := t.d.messages[id]
		if mv.ToStream != mv.StreamID {
			for _, u := range newSubs {
				if _, row := t.d.flags[flagKey{u, id}]; row {
					continue
				}
				f := store.FlagRead
				if um := t.userMessage(u, old); um.Received {
					f = um.Flags
				}
				t.putFlags(u, id, f)
			}
			for _, u := range t.d.flagsByMsg[id].collect() {
				if _, ok := slices.BinarySearch(newSubs, u); !ok {
					del(t, t.d.flags, flagKey{u, id})
					unindex(t, t.d.flagsByMsg, id, u)
					unindex(t, t.d.flagsByUser, u, id)
				}
			}
		}
		c := cloneMessage(old)
		c.LastMovedAt = mv.MovedAt
		c.EditHistory = append([]store.EditHistoryEntry{cloneEntry(mv.Entry)}, c.EditHistory...)
		t.relocate(old, c, mv.ToStream, mv.ToRecipient, mv.ToTopic)
	}
	return ids, nil
}

// MessageFlagRows implements store.FlagStore.
func (t *tx) MessageFlagRows(_ context.Context, msg store.MessageID) ([]store.UserMessageFlags, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.UserMessageFlags
	for u := range t.d.flagsByMsg[msg].all() {
		out = append(out, store.UserMessageFlags{UserID: u, MessageID: msg, Flags: t.d.flags[flagKey{u, msg}]})
	}
	m, ok := t.d.messages[msg]
	if !ok || m.DefaultFlags&store.FlagRead != 0 {
		return out, nil
	}
	for k, through := range t.d.marks {
		if k.recipient != m.RecipientID || through < msg {
			continue
		}
		if _, row := t.d.flags[flagKey{k.user, msg}]; row {
			continue
		}
		if since, ok := t.memberSince(k.user, k.recipient); ok && since <= msg {
			out = append(out, store.UserMessageFlags{UserID: k.user, MessageID: msg, Flags: m.DefaultFlags | store.FlagRead})
		}
	}
	// The sender who received it without a row has it read.
	listed := slices.ContainsFunc(out, func(f store.UserMessageFlags) bool { return f.UserID == m.SenderID })
	if since, ok := t.memberSince(m.SenderID, m.RecipientID); ok && since <= msg && !listed {
		out = append(out, store.UserMessageFlags{UserID: m.SenderID, MessageID: msg, Flags: m.DefaultFlags | store.FlagRead})
	}
	slices.SortFunc(out, func(a, b store.UserMessageFlags) int { return int(a.UserID - b.UserID) })
	return out, nil
}
