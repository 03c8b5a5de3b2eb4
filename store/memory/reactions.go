package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/chatcore/chatcore/store"
)

// AddReaction implements store.ReactionStore.
func (t *tx) AddReaction(_ context.Context, id store.MessageID, r store.Reaction) error {
	if err := t.write(); err != nil {
		return err
	}
	m, ok := t.d.messages[id]
	if !ok {
		return fmt.Errorf("message %d: %w", id, store.ErrNotFound)
	}
	if slices.ContainsFunc(m.Reactions, func(x store.Reaction) bool {
		return x.UserID == r.UserID && x.ReactionType == r.ReactionType && x.EmojiCode == r.EmojiCode
	}) {
		return fmt.Errorf("reaction on message %d: %w", id, store.ErrConflict)
	}
	c := cloneMessage(m)
	c.Reactions = append(c.Reactions, r)
	put(t, t.d.messages, id, c)
	return nil
}

// RemoveReaction implements store.ReactionStore.
func (t *tx) RemoveReaction(_ context.Context, id store.MessageID, user store.UserID, reactionType, emojiCode string) error {
	if err := t.write(); err != nil {
		return err
	}
	m, ok := t.d.messages[id]
	if !ok {
		return fmt.Errorf("message %d: %w", id, store.ErrNotFound)
	}
	i := slices.IndexFunc(m.Reactions, func(x store.Reaction) bool {
		return x.UserID == user && x.ReactionType == reactionType && x.EmojiCode == emojiCode
	})
	if i < 0 {
		return fmt.Errorf("reaction on message %d: %w", id, store.ErrNotFound)
	}
	c := cloneMessage(m)
	c.Reactions = slices.Delete(c.Reactions, i, i+1)
	put(t, t.d.messages, id, c)
	return nil
}

// Presences implements store.PresenceStore.
func (t *tx) Presences(_ context.Context, q store.PresenceQuery) ([]store.Presence, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.Presence
	for id := range t.d.usersByRealm[q.RealmID].all() {
		p, ok := t.d.presence[id]
		u := t.d.users[id]
		if !ok || !u.IsActive || u.IsBot || p.LastUpdateID <= q.AfterUpdateID ||
			!q.ConnectedSince.IsZero() && p.LastConnected.Before(q.ConnectedSince) {
			continue
		}
		out = append(out, *p)
	}
	return out, nil
}

// UserPresences implements store.PresenceStore.
func (t *tx) UserPresences(_ context.Context, ids []store.UserID) ([]store.Presence, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.Presence
	for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
		if p, ok := t.d.presence[id]; ok {
			out = append(out, *p)
		}
	}
	return out, nil
}

// PutPresences implements store.PresenceStore.
func (t *tx) PutPresences(_ context.Context, realm store.RealmID, rows []store.Presence) error {
	if err := t.write(); err != nil {
		return err
	}
	for _, r := range rows {
		if _, ok := t.d.users[r.UserID]; !ok {
			return fmt.Errorf("presence of user %d: %w", r.UserID, store.ErrNotFound)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	seq := t.d.presenceSeq[realm]
	put(t, t.d.presenceSeq, realm, seq+int64(len(rows)))
	for i := range rows {
		r := &rows[i]
		r.LastUpdateID = seq + int64(i) + 1
		p := *r
		p.RealmID = realm
		if old, ok := t.d.presence[r.UserID]; ok {
			p.LastActive = later(old.LastActive, p.LastActive)
			p.LastConnected = later(old.LastConnected, p.LastConnected)
		}
		put(t, t.d.presence, r.UserID, &p)
	}
	return nil
}

// later returns the later of two times (the zero time is earliest).
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
