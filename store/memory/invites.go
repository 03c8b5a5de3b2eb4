package memory

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/chatcore/chatcore/store"
)

func cloneInvite(inv *store.Invite) *store.Invite {
	c := *inv
	c.StreamIDs = slices.Clone(inv.StreamIDs)
	c.CreatedAt = inv.CreatedAt.Truncate(time.Second)
	c.ExpiresAt = inv.ExpiresAt.Truncate(time.Second)
	return &c
}

// CreateInvite implements store.InviteStore.
func (t *tx) CreateInvite(_ context.Context, inv *store.Invite) error {
	if err := t.write(); err != nil {
		return err
	}
	if _, ok := t.d.realms[inv.RealmID]; !ok {
		return fmt.Errorf("realm %d: %w", inv.RealmID, store.ErrNotFound)
	}
	if _, ok := t.d.invites[inv.ID]; ok && inv.ID != 0 {
		return fmt.Errorf("invite %d: %w", inv.ID, store.ErrConflict)
	}
	if _, ok := t.d.inviteByKey[inv.Key]; ok {
		return fmt.Errorf("invite key: %w", store.ErrConflict)
	}
	if inv.ID == 0 {
		inv.ID = t.d.inviteMax + 1
	}
	useID(t, &t.d.inviteMax, inv.ID)
	put(t, t.d.invites, inv.ID, cloneInvite(inv))
	put(t, t.d.inviteByKey, inv.Key, inv.ID)
	return nil
}

// Invite implements store.InviteStore.
func (t *tx) Invite(_ context.Context, id store.InviteID) (*store.Invite, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	inv, ok := t.d.invites[id]
	if !ok {
		return nil, fmt.Errorf("invite %d: %w", id, store.ErrNotFound)
	}
	return cloneInvite(inv), nil
}

// InviteByKey implements store.InviteStore.
func (t *tx) InviteByKey(ctx context.Context, key string) (*store.Invite, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	id, ok := t.d.inviteByKey[key]
	if !ok {
		return nil, fmt.Errorf("invite key: %w", store.ErrNotFound)
	}
	return t.Invite(ctx, id)
}

// Invites implements store.InviteStore.
func (t *tx) Invites(_ context.Context, f store.InviteFilter) ([]store.Invite, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	var out []store.Invite
	for _, inv := range t.d.invites {
		if inv.RealmID != f.RealmID ||
			(f.InviterID != 0 && inv.InviterID != f.InviterID) ||
			(f.Status != nil && inv.Status != *f.Status) ||
			(f.Email != "" && (inv.MultiUse || store.FoldKey(inv.Email) != store.FoldKey(f.Email))) ||
			(!f.CreatedSince.IsZero() && inv.CreatedAt.Before(f.CreatedSince.Truncate(time.Second))) {
			continue
		}
		out = append(out, *cloneInvite(inv))
	}
	slices.SortFunc(out, func(a, b store.Invite) int { return int(a.ID - b.ID) })
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[:f.Limit]
	}
	return out, nil
}

// UpdateInvite implements store.InviteStore.
func (t *tx) UpdateInvite(_ context.Context, inv *store.Invite) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.invites[inv.ID]
	if !ok {
		return fmt.Errorf("invite %d: %w", inv.ID, store.ErrNotFound)
	}
	if other, ok := t.d.inviteByKey[inv.Key]; ok && other != inv.ID {
		return fmt.Errorf("invite key: %w", store.ErrConflict)
	}
	if old.Key != inv.Key {
		del(t, t.d.inviteByKey, old.Key)
		put(t, t.d.inviteByKey, inv.Key, inv.ID)
	}
	put(t, t.d.invites, inv.ID, cloneInvite(inv))
	return nil
}

// UpdateBotService implements store.InviteStore.
func (t *tx) UpdateBotService(_ context.Context, s *store.BotService) error {
	if err := t.write(); err != nil {
		return err
	}
	old, ok := t.d.services[s.ID]
	if !ok {
		return fmt.Errorf("bot service %d: %w", s.ID, store.ErrNotFound)
	}
	if old.BotID != s.BotID {
		if _, ok := t.d.users[s.BotID]; !ok {
			return fmt.Errorf("bot %d: %w", s.BotID, store.ErrNotFound)
		}
		unindex(t, t.d.servicesByBot, old.BotID, s.ID)
		index(t, t.d.servicesByBot, s.BotID, s.ID)
	}
	put(t, t.d.services, s.ID, cloneService(s))
	return nil
}
