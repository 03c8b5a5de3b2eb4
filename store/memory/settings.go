package memory

import (
	"context"
	"fmt"
	"slices"

	"github.com/chatcore/chatcore/store"
)

// UpdateUserSettings implements store.SettingsStore: it checks every
// change before replacing the stored user with an updated copy.
func (t *tx) UpdateUserSettings(_ context.Context, user store.UserID, changes []store.SettingValue) error {
	if err := t.write(); err != nil {
		return err
	}
	if len(changes) == 0 {
		return nil
	}
	if err := checkSettingNames(changes); err != nil {
		return err
	}
	var probe store.Settings
	for _, ch := range changes {
		if err := probe.Set(ch.Name, ch.Value); err != nil {
			return err
		}
	}
	u, ok := t.d.users[user]
	if !ok {
		return fmt.Errorf("user %d: %w", user, store.ErrNotFound)
	}
	c := cloneUser(u)
	for _, ch := range changes {
		_ = c.Settings.Set(ch.Name, ch.Value) // cannot fail: probe accepted it
	}
	put(t, t.d.users, user, c)
	return nil
}

// checkSettingNames refuses a list of changes that names a setting twice.
func checkSettingNames(changes []store.SettingValue) error {
	for i, ch := range changes {
		for _, prev := range changes[:i] {
			if prev.Name == ch.Name {
				return fmt.Errorf("memory: setting %q named twice", ch.Name)
			}
		}
	}
	return nil
}

// UpdateSettingBulk implements store.SettingsStore.
func (t *tx) UpdateSettingBulk(_ context.Context, b store.BulkSettingUpdate) ([]store.UserID, error) {
	if err := t.write(); err != nil {
		return nil, err
	}
	var probe store.Settings
	if err := probe.Set(b.Setting, b.Value); err != nil {
		return nil, err
	}
	want, _ := probe.Value(b.Setting)

	targets := t.groupMembers(b.GroupIDs, b.RealmID)
	for _, id := range b.UserIDs {
		if u, ok := t.d.users[id]; ok && u.RealmID == b.RealmID && !u.IsBot {
			targets = append(targets, id)
		}
	}
	slices.Sort(targets)
	targets = slices.Compact(targets)

	changed := []store.UserID{}
	for _, id := range targets {
		u := t.d.users[id]
		if have, _ := u.Settings.Value(b.Setting); have == want {
			continue
		}
		if b.SkipIfEdited {
			if _, edited := slices.BinarySearch(t.d.edited[id], b.Setting); edited {
				continue
			}
		}
		c := cloneUser(u)
		_ = c.Settings.Set(b.Setting, want) // cannot fail: probe accepted it
		put(t, t.d.users, id, c)
		changed = append(changed, id)
	}
	return changed, nil
}

// RecordSettingEdits implements store.SettingsStore.
func (t *tx) RecordSettingEdits(_ context.Context, user store.UserID, settings []string) error {
	if err := t.write(); err != nil {
		return err
	}
	if len(settings) == 0 {
		return nil
	}
	names := slices.Concat(t.d.edited[user], settings)
	slices.Sort(names)
	put(t, t.d.edited, user, slices.Compact(names))
	return nil
}

// EditedSettings implements store.SettingsStore.
func (t *tx) EditedSettings(_ context.Context, user store.UserID) ([]string, error) {
	if err := t.read(); err != nil {
		return nil, err
	}
	return append([]string{}, t.d.edited[user]...), nil
}
