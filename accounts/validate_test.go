package accounts_test

import (
	"fmt"
	"net/url"
	"reflect"
	"strconv"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/accounts"
	"github.com/chatcore/chatcore/internal/testsupport/chattest"
	"github.com/chatcore/chatcore/internal/wire"
	"github.com/matryer/is"
)

// decodeUpdate builds a SettingsUpdate from wire parameters given as
// name, value pairs, failing the test on decoding errors.
func decodeUpdate(tb testing.TB, pairs ...string) accounts.SettingsUpdate {
	tb.Helper()
	is := is.New(tb)
	vals := url.Values{}
	for i := 0; i+1 < len(pairs); i += 2 {
		vals.Set(pairs[i], pairs[i+1])
	}
	var u accounts.SettingsUpdate
	ignored, err := wire.DecodeParams(vals, &u)
	is.NoErr(err)             // parameters decode
	is.Equal(len(ignored), 0) // every parameter is a field
	return u
}

func TestSettingsUpdateCoversEverySetting(t *testing.T) {
	is := is.New(t)
	st := reflect.TypeFor[chatcore.Settings]()
	ut := reflect.TypeFor[accounts.SettingsUpdate]()
	extra := map[string]bool{"full_name": true, "email": true, "old_password": true, "new_password": true, "target_users": true}
	var names []string
	for f := range ut.Fields() {
		name := f.Tag.Get("json")
		if extra[name] || name == "-" { // account fields, and Authenticated (no parameter)
			continue
		}
		names = append(names, name)
		sf, ok := st.FieldByName(f.Name)
		is.True(ok)                                  // every update field is a setting of the same Go name
		is.Equal(sf.Tag.Get("json"), name)           // with the same wire name
		is.Equal(f.Type, reflect.PointerTo(sf.Type)) // as a pointer to the setting's type
	}
	is.Equal(names, chatcore.SettingNames()) // every setting, in declaration order
}

func TestValidateIntValueSets(t *testing.T) {
	tests := []struct {
		name string
		ok   []int
		bad  []int
	}{
		{"web_mark_read_on_scroll_policy", []int{1, 2, 3}, []int{0, 4, -1}},
		{"web_channel_default_view", []int{1, 2, 3, 4}, []int{0, 5}},
		{"color_scheme", []int{1, 2, 3}, []int{0, 4, 100}},
		{"demote_inactive_streams", []int{1, 2, 3}, []int{0, 4}},
		{"user_list_style", []int{1, 2, 3}, []int{0, 4}},
		{"web_stream_unreads_count_display_policy", []int{1, 2, 3}, []int{0, 4}},
		{"desktop_icon_count_display", []int{1, 2, 3, 4}, []int{0, 5}},
		{"realm_name_in_email_notifications_policy", []int{1, 2, 3}, []int{0, 4}},
		{"automatically_follow_topics_policy", []int{1, 2, 3, 4}, []int{0, 5}},
		{"automatically_unmute_topics_in_muted_streams_policy", []int{1, 2, 3, 4}, []int{0, 5}},
		{"email_address_visibility", []int{1, 2, 3, 4, 5}, []int{0, 6}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range tt.ok {
				is := is.New(t)
				u := decodeUpdate(t, tt.name, strconv.Itoa(v))
				is.NoErr(u.Validate()) // value in the set is accepted
			}
			for _, v := range tt.bad {
				u := decodeUpdate(t, tt.name, strconv.Itoa(v))
				chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid,
					fmt.Sprintf("Invalid %s: Value error, Not in the list of possible values", tt.name))
			}
		})
	}
}

func TestValidateStringValueSets(t *testing.T) {
	tests := []struct {
		name string
		ok   []string
		bad  []string
		msg  string // "" means the generic value-set message
	}{
		{"web_home_view", []string{"recent", "inbox", "all_messages"}, []string{"recent_topics", "", "Inbox", `"inbox"`}, ""},
		{"emojiset", []string{"google", "twitter", "text"}, []string{"google-blob", "apple", "emojione", ""}, ""},
		{"web_animate_image_previews", []string{"always", "on_hover", "never"}, []string{"sometimes", ""}, ""},
		{"resolved_topic_notice_auto_read_policy", []string{"always", "except_followed", "never"}, []string{"1", "sometimes", ""},
			"Invalid resolved_topic_notice_auto_read_policy"},
		{"default_language", []string{"en", "de", "zh-hans", "pt-br", "fr"}, []string{"xx", "", `"de"`, "DE", "klingon"},
			"Invalid default_language"},
		{"timezone", []string{"UTC", "America/Toronto", "America/Montreal", "Europe/Kiev", "Asia/Kolkata", "Etc/GMT+5"},
			[]string{"", "Mars/Olympus", "Local", "america/toronto", "../../etc/passwd", "posix/UTC", "America/", "Europe/Berlin\x00"},
			"Invalid timezone: Value error, Not a recognized time zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range tt.ok {
				is := is.New(t)
				u := decodeUpdate(t, tt.name, v)
				is.NoErr(u.Validate()) // value in the set is accepted
			}
			for _, v := range tt.bad {
				msg := tt.msg
				if msg == "" {
					msg = fmt.Sprintf("Invalid %s: Value error, Not in the list of possible values", tt.name)
				}
				u := decodeUpdate(t, tt.name, v)
				chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, msg)
			}
		})
	}
}

func TestValidateNotificationSound(t *testing.T) {
	for _, v := range []string{"zulip", "ding", "chime", "none", "deep tom"} {
		is := is.New(t)
		u := decodeUpdate(t, "notification_sound", v)
		is.NoErr(u.Validate()) // a Zulip sound or "none"
	}
	for _, v := range []string{"x", "", "Zulip", "zulip.ogg"} {
		u := decodeUpdate(t, "notification_sound", v)
		chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, "Invalid notification sound '"+v+"'")
	}
}

func TestValidateBatchingPeriod(t *testing.T) {
	for _, v := range []int{1, 120, 604800} {
		is := is.New(t)
		u := decodeUpdate(t, "email_notifications_batching_period_seconds", strconv.Itoa(v))
		is.NoErr(u.Validate()) // within (0, one week]
	}
	for _, v := range []int{0, -5, 604801} {
		u := decodeUpdate(t, "email_notifications_batching_period_seconds", strconv.Itoa(v))
		chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, fmt.Sprintf("Invalid email batching period: %d seconds", v))
	}
}

func TestValidateFontBounds(t *testing.T) {
	tests := []struct {
		name             string
		ok               []int
		tooSmall, tooBig int
	}{
		{"web_font_size_px", []int{1, 14, 16, 20, 200, 32767}, 0, 32768},
		{"web_line_height_percent", []int{1, 122, 130, 140, 1000, 32767}, 0, 32768},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, v := range tt.ok {
				is := is.New(t)
				u := decodeUpdate(t, tt.name, strconv.Itoa(v))
				is.NoErr(u.Validate()) // within bounds
			}
			u := decodeUpdate(t, tt.name, strconv.Itoa(tt.tooSmall))
			chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, tt.name+" is too small")
			u = decodeUpdate(t, tt.name, "-3")
			chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, tt.name+" is too small")
			u = decodeUpdate(t, tt.name, strconv.Itoa(tt.tooBig))
			chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, tt.name+" is too large")
		})
	}
}

func TestValidateBooleansAndAccountFieldsNeedNoCheck(t *testing.T) {
	is := is.New(t)
	var pairs []string
	for _, name := range chatcore.SettingNames() {
		v, _ := new(chatcore.Settings).Value(name)
		if _, ok := v.(bool); ok {
			pairs = append(pairs, name, "true")
		}
	}
	pairs = append(pairs, "full_name", "", "email", "bad", "old_password", "", "new_password", "x")
	u := decodeUpdate(t, pairs...)
	is.NoErr(u.Validate()) // booleans and account fields have no value sets
}

func TestValidateTargetUsers(t *testing.T) {
	t.Run("no ids", func(t *testing.T) {
		u := decodeUpdate(t, "target_users", `{"skip_if_already_edited": false}`)
		chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, "Either user_ids or group_ids must be provided.")
		u = decodeUpdate(t, "target_users", `{"user_ids": [], "group_ids": [], "skip_if_already_edited": true}`)
		chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, "Either user_ids or group_ids must be provided.")
	})
	t.Run("skip flag missing in Go", func(t *testing.T) {
		u := accounts.SettingsUpdate{TargetUsers: &accounts.TargetUsers{UserIDs: []chatcore.UserID{1}}}
		chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, `target_users["skip_if_already_edited"] field is missing: Field required`)
	})
	t.Run("valid", func(t *testing.T) {
		is := is.New(t)
		u := decodeUpdate(t, "target_users", `{"group_ids": [3], "skip_if_already_edited": false}`)
		is.NoErr(u.Validate()) // groups alone are enough
	})
}

func TestValidateReportsFirstErrorInZulipOrder(t *testing.T) {
	tests := []struct {
		name  string
		pairs []string
		msg   string
	}{
		{"alphabetical among value sets", []string{"user_list_style", "9", "color_scheme", "9", "emojiset", "x"},
			"Invalid color_scheme: Value error, Not in the list of possible values"},
		{"value sets before language", []string{"default_language", "xx", "web_home_view", "recent_topics"},
			"Invalid web_home_view: Value error, Not in the list of possible values"},
		{"language before sound", []string{"notification_sound", "x", "default_language", "xx"},
			"Invalid default_language"},
		{"sound before batching period", []string{"email_notifications_batching_period_seconds", "0", "notification_sound", "x"},
			"Invalid notification sound 'x'"},
		{"timezone among value sets", []string{"timezone", "Nowhere", "web_animate_image_previews", "x"},
			"Invalid timezone: Value error, Not a recognized time zone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := decodeUpdate(t, tt.pairs...)
			chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, tt.msg)
		})
	}
}

// TestCanonicalTimezone checks that the exported name answers with
// internal/tz's table, which is tested there (links, unknown and unsafe
// names, idempotence).
func TestCanonicalTimezone(t *testing.T) {
	is := is.New(t)
	is.Equal(accounts.CanonicalTimezone("America/Montreal"), "America/Toronto") // a link resolves to its canonical name
	is.Equal(accounts.CanonicalTimezone("Nowhere/Else"), "")                    // an unknown name is refused
}

func TestTargetUsersIDCap(t *testing.T) {
	skip := true
	ids := func(n int) []chatcore.UserID {
		out := make([]chatcore.UserID, n)
		for i := range out {
			out[i] = chatcore.UserID(i + 1)
		}
		return out
	}
	groups := func(n int) []chatcore.GroupID {
		out := make([]chatcore.GroupID, n)
		for i := range out {
			out[i] = chatcore.GroupID(i + 1)
		}
		return out
	}
	t.Run("AtLimit", func(t *testing.T) {
		is := is.New(t)
		u := accounts.SettingsUpdate{TargetUsers: &accounts.TargetUsers{UserIDs: ids(accounts.MaxBulkTargetIDs), SkipIfAlreadyEdited: &skip}}
		is.NoErr(u.Validate()) // exactly the limit is accepted
	})
	t.Run("UserIDsOverLimit", func(t *testing.T) {
		u := accounts.SettingsUpdate{TargetUsers: &accounts.TargetUsers{UserIDs: ids(accounts.MaxBulkTargetIDs + 1), SkipIfAlreadyEdited: &skip}}
		chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, `target_users["user_ids"] is too long (limit: 10000 items)`)
	})
	t.Run("GroupIDsOverLimit", func(t *testing.T) {
		u := accounts.SettingsUpdate{TargetUsers: &accounts.TargetUsers{GroupIDs: groups(accounts.MaxBulkTargetIDs + 1), SkipIfAlreadyEdited: &skip}}
		chattest.WantError(t, u.Validate(), chatcore.CodeBadRequest, chatcore.KindInvalid, `target_users["group_ids"] is too long (limit: 10000 items)`)
	})
}
