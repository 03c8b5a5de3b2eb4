package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore"
)

// ScheduledMessage implements chatcore.ScheduledMessageStore.
func (t *tx) ScheduledMessage(_ context.Context, id chatcore.ScheduledMessageID) (*chatcore.ScheduledMessage, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	m, ok := t.d.scheduled[id]
	if !ok {
		return nil, fmt.Errorf("scheduled message %d: %w", id, chatcore.ErrNotFound)
	}
	return cloneScheduled(m), nil
}

// ScheduledMessages implements chatcore.ScheduledMessageStore.
func (t *tx) ScheduledMessages(_ context.Context, f chatcore.ScheduledFilter) ([]chatcore.ScheduledMessage, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var rows []*chatcore.ScheduledMessage
	for _, m := range t.d.scheduled {
		switch {
		case f.RealmID != 0 && m.RealmID != f.RealmID,
			f.SenderID != 0 && m.SenderID != f.SenderID,
			f.Kind != 0 && m.Kind != f.Kind,
			f.Delivered != nil && m.Delivered != *f.Delivered,
			f.Failed != nil && m.Failed != *f.Failed,
			!f.DueBy.IsZero() && m.DeliverAt.After(f.DueBy):
			continue
		}
		rows = append(rows, m)
	}
	slices.SortFunc(rows, func(a, b *chatcore.ScheduledMessage) int {
		return cmp.Or(a.DeliverAt.Compare(b.DeliverAt), cmp.Compare(a.ID, b.ID))
	})
	if f.Limit > 0 && len(rows) > f.Limit {
		rows = rows[:f.Limit]
	}
	out := make([]chatcore.ScheduledMessage, len(rows))
	for i, m := range rows {
		out[i] = *cloneScheduled(m)
	}
	return out, nil
}

// CreateScheduledMessage implements chatcore.ScheduledMessageStore.
func (t *tx) CreateScheduledMessage(_ context.Context, m *chatcore.ScheduledMessage) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.scheduled[m.ID]; ok {
		return fmt.Errorf("scheduled message %d: %w", m.ID, chatcore.ErrConflict)
	}
	if m.ID == 0 {
		m.ID = t.d.scheduledMax + 1
	}
	useID(t, &t.d.scheduledMax, m.ID)
	put(t, t.d.scheduled, m.ID, cloneScheduled(m))
	return nil
}

// UpdateScheduledMessage implements chatcore.ScheduledMessageStore.
func (t *tx) UpdateScheduledMessage(_ context.Context, m *chatcore.ScheduledMessage) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.scheduled[m.ID]; !ok {
		return fmt.Errorf("scheduled message %d: %w", m.ID, chatcore.ErrNotFound)
	}
	put(t, t.d.scheduled, m.ID, cloneScheduled(m))
	return nil
}

// DeleteScheduledMessage implements chatcore.ScheduledMessageStore.
func (t *tx) DeleteScheduledMessage(_ context.Context, id chatcore.ScheduledMessageID) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.scheduled[id]; !ok {
		return fmt.Errorf("scheduled message %d: %w", id, chatcore.ErrNotFound)
	}
	del(t, t.d.scheduled, id)
	return nil
}

// Linkifier implements chatcore.LinkifierStore.
func (t *tx) Linkifier(_ context.Context, id chatcore.LinkifierID) (*chatcore.Linkifier, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	l, ok := t.d.linkifiers[id]
	if !ok {
		return nil, fmt.Errorf("linkifier %d: %w", id, chatcore.ErrNotFound)
	}
	return cloneLinkifier(l), nil
}

// Linkifiers implements chatcore.LinkifierStore.
func (t *tx) Linkifiers(_ context.Context, realm chatcore.RealmID) ([]chatcore.Linkifier, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []chatcore.Linkifier{}
	for id := range t.d.linkifiersByRealm[realm].all() {
		out = append(out, *t.d.linkifiers[id])
	}
	slices.SortStableFunc(out, func(a, b chatcore.Linkifier) int { return cmp.Compare(a.Order, b.Order) })
	return out, nil
}

// CreateLinkifier implements chatcore.LinkifierStore.
func (t *tx) CreateLinkifier(_ context.Context, l *chatcore.Linkifier) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.linkifiers[l.ID]; ok {
		return fmt.Errorf("linkifier %d: %w", l.ID, chatcore.ErrConflict)
	}
	pattern := realmKey{l.RealmID, l.Pattern}
	if _, ok := t.d.linkifierByPattern[pattern]; ok {
		return fmt.Errorf("linkifier pattern %q in realm %d: %w", l.Pattern, l.RealmID, chatcore.ErrConflict)
	}
	if l.ID == 0 {
		l.ID = t.d.linkifierMax + 1
	}
	useID(t, &t.d.linkifierMax, l.ID)
	put(t, t.d.linkifiers, l.ID, cloneLinkifier(l))
	put(t, t.d.linkifierByPattern, pattern, l.ID)
	index(t, t.d.linkifiersByRealm, l.RealmID, l.ID)
	return nil
}

// UpdateLinkifier implements chatcore.LinkifierStore. The stored RealmID is
// kept; a pattern used by another linkifier of the realm gives ErrConflict.
func (t *tx) UpdateLinkifier(_ context.Context, l *chatcore.Linkifier) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.linkifiers[l.ID]
	if !ok {
		return fmt.Errorf("linkifier %d: %w", l.ID, chatcore.ErrNotFound)
	}
	pattern := realmKey{old.RealmID, l.Pattern}
	if other, ok := t.d.linkifierByPattern[pattern]; ok && other != l.ID {
		return fmt.Errorf("linkifier pattern %q in realm %d: %w", l.Pattern, old.RealmID, chatcore.ErrConflict)
	}
	c := cloneLinkifier(l)
	c.RealmID = old.RealmID
	del(t, t.d.linkifierByPattern, realmKey{old.RealmID, old.Pattern})
	put(t, t.d.linkifierByPattern, pattern, l.ID)
	put(t, t.d.linkifiers, l.ID, c)
	return nil
}

// DeleteLinkifier implements chatcore.LinkifierStore.
func (t *tx) DeleteLinkifier(_ context.Context, id chatcore.LinkifierID) error {
	if err := t.write(); err != nil {
		return err
	}
	l, ok := t.d.linkifiers[id]
	if !ok {
		return fmt.Errorf("linkifier %d: %w", id, chatcore.ErrNotFound)
	}
	del(t, t.d.linkifiers, id)
	del(t, t.d.linkifierByPattern, realmKey{l.RealmID, l.Pattern})
	unindex(t, t.d.linkifiersByRealm, l.RealmID, id)
	return nil
}

// CreateDraft implements chatcore.DraftStore.
func (t *tx) CreateDraft(_ context.Context, d *chatcore.Draft) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.drafts[d.ID]; ok {
		return fmt.Errorf("draft %d: %w", d.ID, chatcore.ErrConflict)
	}
	if d.ID == 0 {
		d.ID = t.d.draftMax + 1
	}
	useID(t, &t.d.draftMax, d.ID)
	put(t, t.d.drafts, d.ID, cloneDraft(d))
	index(t, t.d.draftsByUser, d.UserID, d.ID)
	return nil
}

// Drafts implements chatcore.DraftStore.
func (t *tx) Drafts(_ context.Context, user chatcore.UserID) ([]chatcore.Draft, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	out := []chatcore.Draft{}
	for id := range t.d.draftsByUser[user].all() {
		out = append(out, *cloneDraft(t.d.drafts[id]))
	}
	return out, nil
}

// DeleteDrafts implements chatcore.DraftStore.
func (t *tx) DeleteDrafts(_ context.Context, user chatcore.UserID) (int, error) {
	if err := t.write(); err != nil {
		return 0, err
	}
	ids := t.d.draftsByUser[user].collect()
	for _, id := range ids {
		del(t, t.d.drafts, id)
		unindex(t, t.d.draftsByUser, user, id)
	}
	return len(ids), nil
}

// DeleteDraftsOf implements chatcore.DraftStore.
func (t *tx) DeleteDraftsOf(ctx context.Context, users []chatcore.UserID) (int, error) {
	if err := t.write(); err != nil {
		return 0, err
	}
	n := 0
	for _, u := range users {
		k, err := t.DeleteDrafts(ctx, u) // a repeated id finds nothing left
		if err != nil {
			return n, err
		}
		n += k
	}
	return n, nil
}

// CreateEmailChange implements chatcore.EmailChangeStore.
func (t *tx) CreateEmailChange(_ context.Context, c *chatcore.EmailChange) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.emailChanges[c.Key]; ok {
		return fmt.Errorf("e-mail change: %w", chatcore.ErrConflict)
	}
	put(t, t.d.emailChanges, c.Key, cloneEmailChange(c))
	return nil
}

// EmailChange implements chatcore.EmailChangeStore.
func (t *tx) EmailChange(_ context.Context, key string) (*chatcore.EmailChange, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	c, ok := t.d.emailChanges[key]
	if !ok {
		return nil, fmt.Errorf("e-mail change: %w", chatcore.ErrNotFound)
	}
	return cloneEmailChange(c), nil
}

// DeleteEmailChanges implements chatcore.EmailChangeStore.
func (t *tx) DeleteEmailChanges(_ context.Context, user chatcore.UserID) error {
	if err := t.write(); err != nil {
		return err
	}
	for k, c := range t.d.emailChanges {
		if c.UserID == user {
			del(t, t.d.emailChanges, k)
		}
	}
	return nil
}
