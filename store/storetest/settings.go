package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/chatcore/chatcore/store"
	"github.com/matryer/is"
)

// bulk runs UpdateSettingBulk in its own transaction.
func bulk(tb testing.TB, st store.Store, u store.BulkSettingUpdate) []store.UserID {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var changed []store.UserID
	update(tb, st, func(ctx context.Context, tx store.Tx) {
		var err error
		changed, err = tx.UpdateSettingBulk(ctx, u)
		is.NoErr(err) // bulk update applied
	})
	return list(changed...)
}

// settingOf returns the named setting of each user.
func settingOf(tb testing.TB, st store.Store, name string, users ...store.UserID) []any {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var out []any
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		for _, id := range users {
			u, err := tx.User(ctx, id)
			is.NoErr(err) // user found
			v, ok := u.Settings.Value(name)
			is.True(ok) // known setting
			out = append(out, v)
		}
	})
	return out
}

// usersNow returns the users with the ids, as stored.
func usersNow(tb testing.TB, st store.Store, ids ...store.UserID) []store.User {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	var out []store.User
	view(tb, st, func(ctx context.Context, tx store.Tx) {
		for _, id := range ids {
			u, err := tx.User(ctx, id)
			is.NoErr(err) // user found
			out = append(out, normUser(*u))
		}
	})
	return out
}

// withSettings returns u with the changes applied through Settings.Set.
func withSettings(tb testing.TB, u store.User, changes ...store.SettingValue) store.User {
	tb.Helper()
	is := is.New(tb)
	is.Helper()
	for _, c := range changes {
		is.NoErr(u.Settings.Set(c.Name, c.Value)) // expected value is valid
	}
	return u
}

var settingsTests = []test{
	{"UserSettingsOnlyNamedColumns", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		before := usersNow(t, st, w.alice, w.bob)
		one := []store.SettingValue{{Name: "color_scheme", Value: 3}}
		many := []store.SettingValue{
			{Name: "enter_sends", Value: true},
			{Name: "web_font_size_px", Value: int64(20)},
			{Name: "default_language", Value: "de"},
			{Name: "timezone", Value: "Europe/Berlin"},
		}
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.UpdateUserSettings(ctx, w.alice, one))  // one setting updated
			is.NoErr(tx.UpdateUserSettings(ctx, w.alice, many)) // several settings of every type updated
			is.NoErr(tx.UpdateUserSettings(ctx, w.bob, nil))    // no changes is a no-op
			is.NoErr(tx.UpdateUserSettings(ctx, 99999, nil))    // and does not look the user up
		})
		want := withSettings(t, withSettings(t, before[0], one...), many...)
		is.Equal(usersNow(t, st, w.alice, w.bob), []store.User{want, before[1]}) // only the named settings of the named user changed
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.EditedSettings(ctx, w.alice)
			is.NoErr(err)               // edits read
			is.Equal(list(got...), nil) // the write records no edits by itself
		})
	}},
	{"UserSettingsErrors", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		before := usersNow(t, st, w.alice)
		ctx := context.Background()
		valid := store.SettingValue{Name: "enter_sends", Value: true}
		for _, c := range []struct {
			name     string
			user     store.UserID
			changes  []store.SettingValue
			notFound bool
		}{
			{"unknown user, one setting", 99999, []store.SettingValue{valid}, true},
			{"unknown user, several settings", 99999, []store.SettingValue{valid, {Name: "color_scheme", Value: 2}}, true},
			{"unknown setting", w.alice, []store.SettingValue{valid, {Name: "no_such_setting", Value: true}}, false},
			{"wrong type", w.alice, []store.SettingValue{valid, {Name: "color_scheme", Value: "dark"}}, false},
			{"wrong type alone", w.alice, []store.SettingValue{{Name: "enter_sends", Value: 1}}, false},
			{"named twice", w.alice, []store.SettingValue{valid, {Name: "enter_sends", Value: false}}, false},
		} {
			var got error
			// The transaction commits: a failed call must have changed nothing.
			is.NoErr(st.Update(ctx, func(tx store.Tx) error {
				got = tx.UpdateUserSettings(ctx, c.user, c.changes)
				return nil
			})) // transaction commits
			is.True(got != nil)                                     // the write fails
			is.Equal(errors.Is(got, store.ErrNotFound), c.notFound) // only an unknown user is ErrNotFound
			is.True(!errors.Is(got, store.ErrConflict))             // never a uniqueness error
			is.Equal(usersNow(t, st, w.alice), before)              // nothing changed
		}
	}},
	{"UserSettingsRollback", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		before := usersNow(t, st, w.alice)
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			is.NoErr(tx.UpdateUserSettings(ctx, w.alice, []store.SettingValue{{Name: "enter_sends", Value: true}}))                                  // one setting updated
			is.NoErr(tx.UpdateUserSettings(ctx, w.alice, []store.SettingValue{{Name: "color_scheme", Value: 2}, {Name: "emojiset", Value: "text"}})) // several settings updated
			u, err := tx.User(ctx, w.alice)
			is.NoErr(err)                                                                                  // user read inside the transaction
			is.True(u.Settings.EnterSends && u.Settings.ColorScheme == 2 && u.Settings.Emojiset == "text") // the transaction sees its writes
			return errAbort
		})
		is.True(errors.Is(err, errAbort))          // the transaction rolled back
		is.Equal(usersNow(t, st, w.alice), before) // the rollback restores every setting
	}},
	{"RecordAndReadEdits", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.RecordSettingEdits(ctx, w.alice, []string{"emojiset", "color_scheme"})) // edits recorded
		})
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.RecordSettingEdits(ctx, w.alice, []string{"color_scheme", "enter_sends"})) // recording an edit twice is fine
			is.NoErr(tx.RecordSettingEdits(ctx, w.alice, nil))                                     // recording nothing is fine
		})
		view(t, st, func(ctx context.Context, tx store.Tx) {
			got, err := tx.EditedSettings(ctx, w.alice)
			is.NoErr(err)                                                      // edits read
			is.Equal(got, []string{"color_scheme", "emojiset", "enter_sends"}) // sorted, without duplicates
			got, err = tx.EditedSettings(ctx, w.bob)
			is.NoErr(err)               // edits read
			is.Equal(list(got...), nil) // a user who edited nothing has no edits
		})
	}},
	{"BulkExplicitUsers", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		inactive := human(w.realm, "gone@x.test")
		inactive.IsActive = false
		holder := human(w.realm, "holder@x.test")
		holder.Settings.ColorScheme = 3
		ids := newUsers(t, st, inactive, holder)
		changed := bulk(t, st, store.BulkSettingUpdate{
			RealmID: w.realm, Setting: "color_scheme", Value: 3,
			UserIDs: []store.UserID{w.carol, ids[1], w.alice, w.bot, w.zed, ids[0], w.alice, 99999},
		})
		want := []store.UserID{w.alice, w.carol, ids[0]}
		is.Equal(changed, want)                                                              // changed users in ascending order; bots, holders, other realms and unknown ids left out
		is.Equal(settingOf(t, st, "color_scheme", w.alice, w.carol, ids[0]), []any{3, 3, 3}) // the targets hold the value
		is.Equal(settingOf(t, st, "color_scheme", w.bob, w.bot, w.zed), []any{1, 1, 1})      // everybody else is untouched
	}},
	{"BulkValueTypes", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		targets := []store.UserID{w.alice, w.bob}
		is.Equal(bulk(t, st, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: targets, Setting: "enter_sends", Value: true}), targets)      // bool setting changed
		is.Equal(bulk(t, st, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: targets, Setting: "web_font_size_px", Value: 20}), targets)   // int setting changed
		is.Equal(bulk(t, st, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: targets, Setting: "default_language", Value: "de"}), targets) // string setting changed
		is.Equal(settingOf(t, st, "enter_sends", targets...), []any{true, true})                                                              // bool stored
		is.Equal(settingOf(t, st, "web_font_size_px", targets...), []any{20, 20})                                                             // int stored
		is.Equal(settingOf(t, st, "default_language", targets...), []any{"de", "de"})                                                         // string stored
		is.Equal(bulk(t, st, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: targets, Setting: "default_language", Value: "de"}), nil)     // a repeated update changes nobody
		is.Equal(settingOf(t, st, "web_font_size_px", w.carol), []any{16})                                                                    // a user not targeted keeps the default
		ctx := context.Background()
		err := st.Update(ctx, func(tx store.Tx) error {
			_, err := tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: targets, Setting: "no_such_setting", Value: true})
			return err
		})
		is.True(err != nil) // an unknown setting fails
		err = st.Update(ctx, func(tx store.Tx) error {
			_, err := tx.UpdateSettingBulk(ctx, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: targets, Setting: "enter_sends", Value: "yes"})
			return err
		})
		is.True(err != nil)                                                               // a value of the wrong type fails
		is.True(!errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict)) // and is no lookup or uniqueness error
	}},
	{"BulkGroupsRecursive", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		inactive := human(w.realm, "gone@x.test")
		inactive.IsActive = false
		ids := newUsers(t, st, inactive, human(w.realm, "dave@x.test"), human(w.realm, "erin@x.test"))
		gone, d, e := ids[0], ids[1], ids[2]
		// top → mid → leaf → top is a cycle; leaf holds the bot and the
		// deactivated user; foreign belongs to the other realm. Subgroups name
		// groups created later in the same transaction.
		const top, mid, leaf, lone, foreign = 9001, 9002, 9003, 9004, 9005
		update(t, st, func(ctx context.Context, tx store.Tx) {
			for _, g := range []*store.Group{
				{ID: top, RealmID: w.realm, Name: "top", Members: []store.UserID{w.alice}, Subgroups: []store.GroupID{mid}},
				{ID: mid, RealmID: w.realm, Name: "mid", Members: []store.UserID{w.bob, w.alice}, Subgroups: []store.GroupID{leaf}},
				{ID: leaf, RealmID: w.realm, Name: "leaf", Members: []store.UserID{d, w.bot, gone}, Subgroups: []store.GroupID{top}},
				{ID: lone, RealmID: w.realm, Name: "lone", Members: []store.UserID{e}},
				{ID: foreign, RealmID: w.other, Name: "foreign", Members: []store.UserID{w.zed}},
			} {
				is.NoErr(tx.CreateGroup(ctx, g)) // group created
			}
		})
		changed := bulk(t, st, store.BulkSettingUpdate{
			RealmID: w.realm, Setting: "emojiset", Value: "text",
			GroupIDs: []store.GroupID{top, foreign, 99999},
		})
		is.Equal(changed, []store.UserID{w.alice, w.bob, d})                                                                            // active human members of top, mid and leaf; the cycle, bots, deactivated users and other realms are left out
		is.Equal(settingOf(t, st, "emojiset", w.carol, e, w.bot, gone, w.zed), []any{"google", "google", "google", "google", "google"}) // non-members untouched
		changed = bulk(t, st, store.BulkSettingUpdate{
			RealmID: w.realm, Setting: "emojiset", Value: "text",
			GroupIDs: []store.GroupID{lone}, UserIDs: []store.UserID{w.carol, w.alice},
		})
		is.Equal(changed, []store.UserID{w.carol, e}) // the union of explicit users and group members, minus those already holding the value
	}},
	{"BulkSkipIfEdited", func(t *testing.T, st store.Store) {
		is := is.New(t)
		w := newWorld(t, st)
		update(t, st, func(ctx context.Context, tx store.Tx) {
			is.NoErr(tx.RecordSettingEdits(ctx, w.alice, []string{"enter_sends"})) // alice edited enter_sends
			is.NoErr(tx.RecordSettingEdits(ctx, w.bob, []string{"web_home_view"})) // bob edited something else
		})
		targets := []store.UserID{w.alice, w.bob, w.carol}
		changed := bulk(t, st, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: targets, Setting: "enter_sends", Value: true, SkipIfEdited: true})
		is.Equal(changed, []store.UserID{w.bob, w.carol})                               // the user who edited the setting is skipped
		is.Equal(settingOf(t, st, "enter_sends", targets...), []any{false, true, true}) // alice keeps her value
		changed = bulk(t, st, store.BulkSettingUpdate{RealmID: w.realm, UserIDs: targets, Setting: "enter_sends", Value: true})
		is.Equal(changed, []store.UserID{w.alice}) // without SkipIfEdited the edit does not protect
	}},
}
