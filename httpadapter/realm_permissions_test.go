package httpadapter_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chatcore/chatcore"
	"github.com/chatcore/chatcore/httpadapter"
	"github.com/matryer/is"
)

// The realm's permission groups change who may do what: each test below
// sees a rule follow its group when the owner changes it (PATCH /realm).

// systemGroups returns the ids of the acme realm's system groups by name,
// as JSON numbers.
func systemGroups(t *testing.T, e *env) map[string]string {
	t.Helper()
	res := e.do(t, request{method: "POST", path: "/register", auth: &owner, enc: urlEncoded,
		params: params("fetch_event_types", `["realm_user_groups"]`)})
	wantSuccess(t, res)
	out := map[string]string{}
	for _, g := range res.body["realm_user_groups"].([]any) {
		m := g.(map[string]any)
		if m["is_system_group"] == true {
			out[m["name"].(string)] = num2s(m["id"])
		}
	}
	return out
}

// setRealmGroup has the owner set the realm's group setting name to the
// group id.
func setRealmGroup(t *testing.T, e *env, name, id string) {
	t.Helper()
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/realm", auth: &owner, enc: urlEncoded,
		params: params(name, `{"new":`+id+`}`)}))
}

// channelID returns the id of the acme realm's channel name, as a JSON
// number.
func channelID(t *testing.T, e *env, name string) string {
	t.Helper()
	res := e.do(t, request{method: "GET", path: "/streams", auth: &admin, params: params("include_all", "true")})
	wantSuccess(t, res)
	for _, s := range res.body["streams"].([]any) {
		if m := s.(map[string]any); m["name"] == name {
			return num2s(m["stream_id"])
		}
	}
	t.Fatalf("no channel %q", name)
	return ""
}

// queuedEvents returns the events of c's queue, without their ids.
func queuedEvents(t *testing.T, e *env, c cred, queue string) []map[string]any {
	t.Helper()
	res := e.do(t, request{method: "GET", path: "/events", auth: &c, enc: urlEncoded,
		params: params("queue_id", queue, "last_event_id", "-1", "dont_block", "true")})
	wantSuccess(t, res)
	var got []map[string]any
	for _, ev := range res.body["events"].([]any) {
		m := ev.(map[string]any)
		delete(m, "id")
		got = append(got, m)
	}
	return got
}

// userState returns the realm_user section of c's /register.
func userState(t *testing.T, e *env, c cred) map[string]any {
	t.Helper()
	res := e.do(t, request{method: "POST", path: "/register", auth: &c, enc: urlEncoded,
		params: params("fetch_event_types", `["realm_user"]`)})
	wantSuccess(t, res)
	return res.body
}

func TestHTTPRealmPermissionInvites(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	g := systemGroups(t, e)
	invite := func(c cred, email string) *response {
		return e.do(t, request{method: "POST", path: "/invites", auth: &c, enc: urlEncoded,
			params: params("invitee_emails", email, "stream_ids", "[61]")})
	}
	multiuse := func(c cred) *response {
		return e.do(t, request{method: "POST", path: "/invites/multiuse", auth: &c, enc: urlEncoded, params: params("stream_ids", "[61]")})
	}
	wantSuccess(t, invite(member, "one@example.test"))                    // role:members invites by default
	is.Equal(userState(t, e, member)["can_invite_others_to_realm"], true) // and /register says so
	setRealmGroup(t, e, "can_invite_users_group", g["role:administrators"])
	wantError(t, invite(member, "two@example.test"), 400, "BAD_REQUEST", "Insufficient permission")
	is.Equal(userState(t, e, member)["can_invite_others_to_realm"], false) // no longer
	wantSuccess(t, invite(admin, "two@example.test"))                      // an administrator still invites
	is.Equal(userState(t, e, admin)["can_invite_others_to_realm"], true)

	wantError(t, multiuse(member), 400, "BAD_REQUEST", "Insufficient permission") // role:administrators by default
	setRealmGroup(t, e, "create_multiuse_invite_group", g["role:members"])
	wantSuccess(t, multiuse(member)) // now the member may
	wantSuccess(t, multiuse(admin))

	// Inviting into a channel needs the permission to subscribe others.
	setRealmGroup(t, e, "can_invite_users_group", g["role:members"])
	setRealmGroup(t, e, "can_add_subscribers_group", g["role:administrators"])
	wantError(t, invite(member, "three@example.test"), 400, "BAD_REQUEST", "You do not have permission to subscribe other users to channels.")
	wantError(t, multiuse(member), 400, "BAD_REQUEST", "You do not have permission to subscribe other users to channels.")
	is.Equal(userState(t, e, member)["can_subscribe_other_users"], false)
	wantSuccess(t, e.do(t, request{method: "POST", path: "/default_streams", auth: &admin, enc: urlEncoded, params: params("stream_id", "61")}))
	wantSuccess(t, invite(member, "three@example.test")) // a default channel is allowed
}

func TestHTTPRealmPermissionBots(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	g := systemGroups(t, e)
	bot := func(c cred, short, botType string) *response {
		return e.do(t, request{method: "POST", path: "/bots", auth: &c, enc: urlEncoded,
			params: params("full_name", "Bot "+short, "short_name", short, "bot_type", botType)})
	}
	wantSuccess(t, bot(member, "generic1", "1")) // role:members creates any bot by default
	setRealmGroup(t, e, "can_create_bots_group", g["role:administrators"])
	wantError(t, bot(member, "generic2", "1"), 400, "BAD_REQUEST", "Invalid bot type")
	wantError(t, bot(member, "outgoing2", "3"), 400, "BAD_REQUEST", "Invalid bot type")
	wantSuccess(t, bot(member, "hook2", "2")) // can_create_write_only_bots_group (role:members) allows incoming webhooks
	wantSuccess(t, bot(admin, "generic3", "1"))
	setRealmGroup(t, e, "can_create_write_only_bots_group", g["role:administrators"])
	wantError(t, bot(member, "hook3", "2"), 400, "BAD_REQUEST", "Invalid bot type")
	setRealmGroup(t, e, "can_create_bots_group", g["role:members"])
	wantSuccess(t, bot(member, "hook4", "2")) // back with the group
}

func TestHTTPRealmPermissionCustomEmoji(t *testing.T) {
	e, _ := uploadEnv(t)
	g := systemGroups(t, e)
	img := pngBytes(t, 32, 32)
	add := func(c cred, name string) *response {
		return e.postFiles(t, c, "/api/v1/realm/emoji/"+name, filePart{field: "f", name: "e.png", data: img})
	}
	wantSuccess(t, add(member, "first")) // role:members by default
	setRealmGroup(t, e, "can_add_custom_emoji_group", g["role:moderators"])
	wantError(t, add(member, "second"), 400, "BAD_REQUEST", "Insufficient permission")
	wantSuccess(t, add(moderator, "second"))
	res := e.do(t, request{method: "GET", path: "/realm/emoji", auth: &member})
	wantSuccess(t, res)
	is.New(t).Equal(len(res.body["emoji"].(map[string]any)), 2) // the refused emoji was not stored
}

func TestHTTPRealmPermissionChannels(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	g := systemGroups(t, e)
	create := func(c cred, name string, extra ...string) *response {
		return e.do(t, request{method: "POST", path: "/users/me/subscriptions", auth: &c, enc: urlEncoded,
			params: params(append([]string{"subscriptions", `[{"name":"` + name + `"}]`}, extra...)...)})
	}
	wantSuccess(t, create(member, "mine"))
	wantError(t, create(member, "webby", "is_web_public", "true"), 400, "BAD_REQUEST", "Web-public channels are not enabled.")
	mine := channelID(t, e, "mine")
	patch := func(c cred, kv ...string) *response {
		return e.do(t, request{method: "PATCH", path: "/streams/" + mine, auth: &c, enc: urlEncoded, params: params(kv...)})
	}

	// The creator administers the channel; its privacy follows the
	// realm's channel creation groups.
	wantSuccess(t, patch(member, "is_private", "true"))
	setRealmGroup(t, e, "can_create_public_channel_group", g["role:administrators"])
	wantError(t, patch(member, "is_private", "false"), 400, "BAD_REQUEST", "Insufficient permission")
	is.Equal(userState(t, e, member)["can_create_public_streams"], false)
	is.Equal(userState(t, e, member)["can_create_private_streams"], true)
	is.Equal(userState(t, e, member)["can_create_streams"], true)
	setRealmGroup(t, e, "can_create_private_channel_group", g["role:administrators"])
	wantError(t, patch(member, "is_private", "true"), 400, "BAD_REQUEST", "Insufficient permission") // even unchanged, as Zulip
	wantError(t, create(member, "another"), 400, "BAD_REQUEST", "Insufficient permission")
	is.Equal(userState(t, e, member)["can_create_streams"], false)
	wantSuccess(t, patch(admin, "is_private", "false"))
	wantError(t, patch(admin, "is_web_public", "true"), 400, "BAD_REQUEST", "Web-public channels are not enabled.")

	// The channel's message deletion groups need can_set_delete_message_policy_group.
	deleteOwn := `{"new":` + g["role:members"] + `}`
	wantError(t, patch(member, "can_delete_own_message_group", deleteOwn), 400, "BAD_REQUEST", "Insufficient permission")
	setRealmGroup(t, e, "can_set_delete_message_policy_group", g["role:members"])
	wantSuccess(t, patch(member, "can_delete_own_message_group", deleteOwn))
	res := e.do(t, request{method: "GET", path: "/streams/" + mine, auth: &member})
	wantSuccess(t, res)
	is.Equal(num2s(res.body["stream"].(map[string]any)["can_delete_own_message_group"]), g["role:members"]) // the view shows it
	wantSuccess(t, patch(member, "can_delete_any_message_group", deleteOwn))
}

// TestHTTPChannelGroupSettingsView: a channel shows every group setting
// Zulip sends, system groups by id and the creator's defaults as an
// anonymous group of them.
func TestHTTPChannelGroupSettingsView(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	g := systemGroups(t, e)
	wantSuccess(t, e.do(t, request{method: "POST", path: "/users/me/subscriptions", auth: &member, enc: urlEncoded,
		params: params("subscriptions", `[{"name":"created"}]`)}))
	res := e.do(t, request{method: "GET", path: "/streams", auth: &member})
	wantSuccess(t, res)
	byName := map[string]map[string]any{}
	for _, s := range res.body["streams"].([]any) {
		byName[s.(map[string]any)["name"].(string)] = s.(map[string]any)
	}
	creator := `{"direct_members":[14],"direct_subgroups":[]}`
	for name, want := range map[string]map[string]string{
		"general": {"can_send_message_group": g["role:everyone"], "can_delete_own_message_group": g["role:nobody"],
			"can_remove_subscribers_group": g["role:administrators"], "can_administer_channel_group": g["role:nobody"],
			"can_add_subscribers_group": g["role:nobody"], "can_create_topic_group": g["role:everyone"],
			"can_subscribe_group": g["role:nobody"]},
		"created": {"can_administer_channel_group": creator, "can_add_subscribers_group": creator,
			"can_send_message_group": g["role:everyone"]},
	} {
		for setting, v := range want {
			got, err := json.Marshal(byName[name][setting])
			is.NoErr(err)
			is.Equal(fmt.Sprintf("%s %s", setting, got), setting+" "+v) // Zulip's value
		}
	}
}

func TestHTTPWildcardMentionsOfManyUsers(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	g := systemGroups(t, e)
	realm, general := e.w.Realm(t, 1), e.w.Stream(t, 61)
	for i := range chatcore.WildcardMentionThreshold { // general then has 6 + 15 subscribers
		u := e.w.AddUser(t, realm, fmt.Sprintf("Extra %d", i), chatcore.RoleMember)
		e.w.Subscribe(t, general, u, 0)
	}
	send := func(c cred, content string) *response {
		return e.do(t, request{method: "POST", path: "/messages", auth: &c, enc: urlEncoded,
			params: params("type", "stream", "to", "general", "topic", "crowd", "content", content)})
	}
	wantError(t, send(member, "@**all** hello"), 400, "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
		"You do not have permission to use channel wildcard mentions in this channel.")
	wantSuccess(t, send(member, "@_**all** silent")) // a silent mention notifies nobody
	wantSuccess(t, send(admin, "@**all** hello"))    // role:administrators by default
	wantSuccess(t, send(member, "@**topic** few"))   // the topic has few participants
	sent := send(member, "plain")
	wantSuccess(t, sent)
	edit := e.do(t, request{method: "PATCH", path: "/messages/" + num2s(sent.body["id"]), auth: &member, enc: urlEncoded,
		params: params("content", "@**channel** edited")})
	wantError(t, edit, 400, "STREAM_WILDCARD_MENTION_NOT_ALLOWED", "You do not have permission to use channel wildcard mentions in this channel.")
	setRealmGroup(t, e, "can_mention_many_users_group", g["role:members"])
	wantSuccess(t, send(member, "@**all** hello"))
	wantError(t, send(guest, "@**everyone** hello"), 400, "STREAM_WILDCARD_MENTION_NOT_ALLOWED",
		"You do not have permission to use channel wildcard mentions in this channel.")
	setRealmGroup(t, e, "can_mention_many_users_group", g["role:everyone"]) // this setting may be role:everyone
	wantSuccess(t, send(guest, "@**everyone** hello"))
}

// TestHTTPRealmGroupSettingRules: PATCH /realm refuses the values Zulip's
// settings do not take, and the owners' settings to administrators.
func TestHTTPRealmGroupSettingRules(t *testing.T) {
	e := newEnv(t, httpadapter.Options{})
	g := systemGroups(t, e)
	for _, tc := range []struct{ setting, value, msg string }{
		{"can_manage_all_groups", g["role:nobody"], "'can_manage_all_groups' setting cannot be set to 'role:nobody' group."},
		{"can_invite_users_group", g["role:everyone"], "'can_invite_users_group' setting cannot be set to 'role:everyone' group."},
		{"can_create_web_public_channel_group", g["role:members"], "'can_create_web_public_channel_group' setting cannot be set to 'role:members' group."},
		{"can_create_web_public_channel_group", `{"direct_members":[11],"direct_subgroups":[]}`, "'can_create_web_public_channel_group' must be a system user group."},
		{"can_delete_any_message_group", g["role:everyone"], "'can_delete_any_message_group' setting cannot be set to 'role:everyone' group."},
	} {
		res := e.do(t, request{method: "PATCH", path: "/realm", auth: &owner, enc: urlEncoded, params: params(tc.setting, `{"new":`+tc.value+`}`)})
		wantError(t, res, 400, "BAD_REQUEST", tc.msg)
	}
	for _, setting := range []string{"create_multiuse_invite_group", "can_create_groups", "can_invite_users_group", "can_manage_all_groups", "can_manage_billing_group"} {
		res := e.do(t, request{method: "PATCH", path: "/realm", auth: &admin, enc: urlEncoded, params: params(setting, `{"new":`+g["role:owners"]+`}`)})
		wantError(t, res, 400, "UNAUTHORIZED_PRINCIPAL", "Must be an organization owner")
	}
	setRealmGroup(t, e, "can_create_web_public_channel_group", g["role:moderators"])
	res := e.do(t, request{method: "PATCH", path: "/realm", auth: &admin, enc: urlEncoded, params: params("can_add_custom_emoji_group", `{"new":`+g["role:owners"]+`}`)})
	wantSuccess(t, res) // administrators change the others
}

// TestHTTPRealmDescriptionAndLanguage: PATCH /realm stores the realm's
// description and language, shows them in /register and tells the realm
// with update events.
func TestHTTPRealmDescriptionAndLanguage(t *testing.T) {
	is := is.New(t)
	e := newEnv(t, httpadapter.Options{})
	res := e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("event_types", `["realm"]`)})
	wantSuccess(t, res)
	queue := res.body["queue_id"].(string)
	is.Equal(res.body["realm_description"], "")        // none yet
	is.Equal(res.body["realm_default_language"], "en") // Zulip's default
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/realm", auth: &admin, enc: urlEncoded,
		params: params("description", "We make **anvils**.", "default_language", "de")}))
	is.Equal(queuedEvents(t, e, member, queue), []map[string]any{
		{"type": "realm", "op": "update", "property": "description", "value": "We make **anvils**."},
		{"type": "realm", "op": "update", "property": "default_language", "value": "de"},
	})
	res = e.do(t, request{method: "POST", path: "/register", auth: &member, enc: urlEncoded, params: params("fetch_event_types", `["realm"]`)})
	wantSuccess(t, res)
	is.Equal(res.body["realm_description"], "We make **anvils**.")
	is.Equal(res.body["realm_default_language"], "de")
	for _, tc := range []struct{ key, value, msg string }{
		{"default_language", "xx", "Invalid language 'xx'"},
		{"description", strings.Repeat("é", 1001), "description is too long (limit: 1000 characters)"},
	} {
		wantError(t, e.do(t, request{method: "PATCH", path: "/realm", auth: &admin, enc: urlEncoded, params: params(tc.key, tc.value)}), 400, "BAD_REQUEST", tc.msg)
	}
	wantSuccess(t, e.do(t, request{method: "PATCH", path: "/realm", auth: &admin, enc: urlEncoded, params: params("description", strings.Repeat("é", 1000))}))
}
