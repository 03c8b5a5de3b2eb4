package httpadapter_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/groups"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// realmSectionKeys are the keys of the realm section, sorted.
func realmSectionKeys() []string {
	keys := append(httpadapter.RealmConstantKeys(), "max_reminder_note_length", "realm_date_created",
		"realm_email_changes_disabled", "realm_empty_topic_display_name", "realm_icon_url", "realm_icon_source", "realm_name",
		"realm_name_changes_disabled", "realm_require_unique_names", "realm_url", "realm_description", "realm_default_language",
		"realm_allow_message_editing", "realm_message_content_edit_limit_seconds",
		"realm_message_content_delete_limit_seconds", "realm_move_messages_within_stream_limit_seconds",
		"realm_move_messages_between_streams_limit_seconds", "realm_message_edit_history_visibility_policy",
		"realm_allow_edit_history", "password_min_length", "password_min_guesses", "realm_enable_read_receipts",
		"max_file_upload_size_mib", "max_avatar_file_size_mib", "server_thumbnail_formats", "server_emoji_data_url")

	for _, name := range groups.RealmGroupSettingNames() {
		keys = append(keys, "realm_"+name)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// TestHTTPRegisterRealmMessagePolicy: the realm section tells the realm's own
// message editing policy, with the legacy realm_allow_edit_history that
// zulip-terminal reads.
func TestHTTPRegisterRealmMessagePolicy(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	realm := func() map[string]any {
		t.Helper()
		res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
			params: params("fetch_event_types", `["realm","realm_user"]`)})
		wantSuccess(t, res)
		return res.body
	}
	got := realm()
	is.Equal(got["realm_allow_message_editing"], true)
	is.Equal(num(t, got["realm_message_content_edit_limit_seconds"]), int64(600))
	is.Equal(num(t, got["realm_message_content_delete_limit_seconds"]), int64(600))
	is.Equal(num(t, got["realm_move_messages_within_stream_limit_seconds"]), int64(604800))
	is.Equal(num(t, got["realm_move_messages_between_streams_limit_seconds"]), int64(604800))
	is.Equal(got["realm_message_edit_history_visibility_policy"], "all")
	is.Equal(got["realm_allow_edit_history"], true)

	realmID := e.w.User(t, chatcore.UserID(num(t, got["user_id"]))).RealmID
	e.w.UpdateRealm(t, realmID, func(r *chatcore.Realm) {
		r.Messages.ContentEditingDisabled, r.Messages.EditHistoryDisabled = true, true
		r.Messages.ContentEditLimit, r.Messages.DeleteOwnLimit = chatcore.Unlimited, 60
	})
	got = realm()
	is.Equal(got["realm_allow_message_editing"], false)
	is.Equal(got["realm_message_content_edit_limit_seconds"], nil) // no limit
	is.Equal(num(t, got["realm_message_content_delete_limit_seconds"]), int64(60))
	is.Equal(got["realm_message_edit_history_visibility_policy"], "none")
	is.Equal(got["realm_allow_edit_history"], false)
}

// TestHTTPRegisterPasswordPolicy: the realm section tells the password
// policy the Service enforces (WithPasswordPolicy, else Zulip's 6 characters
// and 10000 guesses) and chatcore's message and topic limits. GET
// /server_settings carries none of them, as in Zulip, with or without the
// option.
func TestHTTPRegisterPasswordPolicy(t *testing.T) {
	for _, tt := range []struct {
		name       string
		opts       []chatcore.Option
		minLength  int64
		minGuesses int64
	}{
		{"default", nil, 6, 10000},
		{"WithPasswordPolicy", []chatcore.Option{chatcore.WithPasswordPolicy(12, 1e6)}, 12, 1000000},
		{"fractional guesses round up", []chatcore.Option{chatcore.WithPasswordPolicy(8, 2.5)}, 8, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			is := is.New(t)
			e := newEnv(t, httpadapter.Options{}, tt.opts...)
			res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded,
				params: params("fetch_event_types", `["realm"]`)})
			wantSuccess(t, res)
			is.Equal(num(t, res.body["password_min_length"]), tt.minLength)                    // the policy's length
			is.Equal(num(t, res.body["password_min_guesses"]), tt.minGuesses)                  // the policy's guesses
			is.Equal(num(t, res.body["max_message_length"]), int64(chatcore.MaxMessageLength)) // the content limit sending applies
			is.Equal(num(t, res.body["max_topic_length"]), int64(chatcore.MaxTopicLength))     // the topic limit sending applies

			res = e.do(t, request{method: "GET", path: "/server_settings"})
			wantSuccess(t, res)
			for _, k := range []string{"password_min_length", "password_min_guesses", "max_message_length", "max_topic_length"} {
				_, ok := res.body[k]
				is.True(!ok) // not part of Zulip's server settings
			}
		})
	}
}

// withoutKeys returns a copy of res whose JSON body lacks the keys: keys
// Zulip's server sends that the served excerpt's description leaves out.
func withoutKeys(tb testing.TB, res *response, keys ...string) *response {
	tb.Helper()
	body := maps.Clone(res.body)
	for _, k := range keys {
		delete(body, k)
	}
	raw, err := json.Marshal(body)
	if err != nil {
		tb.Fatal(err)
	}
	out := *res
	out.body, out.raw = body, raw
	return &out
}
